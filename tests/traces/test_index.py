"""The conversation index behind ``eval --traces``: the same conversations, matches and cases as reading whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.formats import load_eval_set
from agentgauge.traces import TraceConversation, match_traces, read_conversations, trace_eval_set
from agentgauge.traces._index import index_conversations, plan_cases

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
PER_TURN = DATA / "recorded" / "adk_per_turn.otlp.jsonl"
EXAMPLES = Path(__file__).parents[2] / "examples" / "traces"


def _full(conversation: TraceConversation) -> tuple[Any, ...]:
    return (
        conversation.trace_id, conversation.source, conversation.trace_ids, conversation.eval_id,
        conversation.session_id, conversation.app_name, conversation.user_id, conversation.warnings,
        [inv.model_dump(mode="json") for inv in conversation.invocations],
    )  # fmt: skip


def _key(conversation: TraceConversation) -> tuple[Any, ...]:
    return (conversation.trace_id, conversation.source, conversation.eval_id, conversation.session_id,
            conversation.app_name, conversation.user_id, conversation.first_user_text)  # fmt: skip


def _two_sessions_interleaved(folder: Path) -> Path:
    """Two sessions of two one-turn traces each, the second session's traces between the first's."""
    lines = PER_TURN.read_text().splitlines()
    text = PER_TURN.read_text()
    copy = text.replace("be7f72a23fdb3651a27ac9c454386ee6", "1" * 32)
    copy = copy.replace("30d3eb023238ab2e3ba8f7cf82d585e2", "2" * 32)
    copy = copy.replace("dc05dab0-2b99-4daa-b6f5-3c9c9eaeedf4", "second-session")
    other = copy.splitlines()
    path = folder / "sessions.otlp.jsonl"
    path.write_text("\n".join([*lines[:5], *other[:5], *lines[5:], *other[5:]]) + "\n")
    return path


@pytest.mark.parametrize("by_session", [False, True])
@pytest.mark.parametrize("name", ["helm", "per_turn", "interleaved", "examples"])
def test_index_holds_the_conversations_read_whole(name: str, by_session: bool, tmp_path: Path) -> None:
    path = {
        "helm": AE / "helm.json",
        "per_turn": PER_TURN,
        "interleaved": _two_sessions_interleaved(tmp_path),
        "examples": EXAMPLES,
    }[name]
    whole = read_conversations(path, by_session=by_session).conversations
    with index_conversations(path, by_session=by_session) as index:
        assert [_key(c) for c in index.conversations] == [_key(c) for c in whole]
        assert [_full(index.load(n)) for n in range(len(whole))] == [_full(c) for c in whole]
        # a summary keeps one user message per trace, no answers or tool calls: the conversations stay on disk
        assert all(len(c.invocations) <= len(set(c.trace_ids)) for c in index.conversations)
        assert not any(
            hasattr(i, "final_response") or hasattr(i, "tools") for c in index.conversations for i in c.invocations
        )


def test_sessions_spread_over_the_file_are_merged_as_whole(tmp_path: Path) -> None:
    path = _two_sessions_interleaved(tmp_path)
    with index_conversations(path, by_session=True) as index:
        assert [c.session_id for c in index.conversations] == ["dc05dab0-2b99-4daa-b6f5-3c9c9eaeedf4", "second-session"]
        merged = index.load(1)
        assert merged.trace_ids == ["1" * 32, "2" * 32]
        assert len(merged.invocations) == 2


def test_planned_cases_are_the_cases_of_the_whole_eval_set(tmp_path: Path) -> None:
    # The same trace twice (other trace ids): two matches of one case, ids helm_list_releases and ..._2.
    text = (AE / "helm.json").read_text()
    (tmp_path / "a.json").write_text(text)
    (tmp_path / "b.json").write_text(text.replace("3e289017fe03ffd7c4145316d2eb3d0d", "9" * 32))
    golden = load_eval_set(AE / "eval_set_helm.json")
    whole = trace_eval_set(match_traces(read_conversations(tmp_path).conversations, golden), golden.eval_set_id)
    with index_conversations(tmp_path) as index:
        planned = plan_cases(index, match_traces(index.conversations, golden))
        built = [p.build(index) for p in planned]
        assert [p.eval_id for p in planned] == ["helm_list_releases", "helm_list_releases_2"]
        assert [c.model_dump(mode="json") for c in built] == [c.model_dump(mode="json") for c in whole.eval_cases]
        free = [p.build(index) for p in plan_cases(index)]
    reference_free = trace_eval_set(read_conversations(tmp_path).conversations, "free")
    assert [c.model_dump(mode="json") for c in free] == [c.model_dump(mode="json") for c in reference_free.eval_cases]


def test_the_first_unreadable_trace_in_input_order_is_the_error(tmp_path: Path) -> None:
    no_content = DATA / "recorded" / "adk_no_content.otlp.json"
    with pytest.raises(Exception) as whole:
        read_conversations(no_content)
    with pytest.raises(Exception) as indexed:
        index_conversations(no_content)
    assert str(indexed.value) == str(whole.value)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "a_2", "a_3", "b", "a_2_2"]), max_size=40))
def test_case_ids_are_numbered_as_trace_eval_set_numbers_them(bases: list[str]) -> None:
    from agentgauge.traces._cases import _UniqueIds

    def first_free(base: str, taken: set[str]) -> str:  # the definition: the first of base, base_2, ... not taken
        candidate, number = base, 2
        while candidate in taken:
            candidate, number = f"{base}_{number}", number + 1
        taken.add(candidate)
        return candidate

    taken: set[str] = set()
    unique = _UniqueIds()
    assert [unique(base) for base in bases] == [first_free(base, taken) for base in bases]


def test_many_traces_of_one_case_are_numbered_in_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # ``traces to-evalset`` and trace-mode runs number the cases of traces that share an id (here every trace:
    # ids alike in their first 16 hex digits) base, base_2, base_3, ...; finding each number afresh from 2 would
    # test n * n / 2 candidates.
    from agentgauge.traces import TraceConversation, _cases, golden_eval_set

    tested = 0

    class CountingSet(set[str]):
        def __contains__(self, item: object) -> bool:
            nonlocal tested
            tested += 1
            return super().__contains__(item)

    monkeypatch.setattr(_cases, "set", CountingSet, raising=False)
    conversations = [TraceConversation(f"{n:032x}", "t.json", []) for n in range(3000)]
    conversations[5].eval_id = "trace_0000000000000000_9"  # an explicit id the numbering has to step over
    ids = [case.eval_id for case in golden_eval_set(conversations, "recorded").eval_cases]
    base = "trace_0000000000000000"
    assert ids[:5] == [base, f"{base}_2", f"{base}_3", f"{base}_4", f"{base}_5"]
    assert ids[5] == f"{base}_9" and ids[6:9] == [f"{base}_6", f"{base}_7", f"{base}_8"]
    assert ids[9] == f"{base}_10" and ids[-1] == f"{base}_3000" and len(set(ids)) == 3000
    assert len(conversations) <= tested <= 3 * len(conversations)
