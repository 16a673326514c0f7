"""First divergence: every kind, where the runs re-converge, what does not count as a difference, and bounds."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import agentgauge.divergence._align as align
from agentgauge.divergence import (
    DivergenceKind,
    Step,
    align_steps,
    divergence_text,
    first_divergence,
    invocation_steps,
    run_divergence,
)
from agentgauge.model import Invocation

K = DivergenceKind


def call(turn: int, step: int, name: str, result: Any = None, **arguments: Any) -> Step:
    return Step(turn=turn, step=step, kind="tool", name=name, arguments=arguments, result=result)


def answer(turn: int, step: int, text: str) -> Step:
    return Step(turn=turn, step=step, kind="answer", text=text)


BASE = [
    call(1, 1, "calc", 42, a=6, b=7),
    answer(1, 2, "42"),
    call(2, 1, "calc", 50, a=42, b=8),
    call(2, 2, "prime", False, n=50),
    answer(2, 3, "50, not prime"),
]

CASES = [
    # (new run, kind, turn, step, index, re-converges at base (turn, step))
    ([*BASE[:2], call(2, 1, "calc", 50, a=8, b=42), *BASE[3:]], K.DIFFERENT_ARGUMENTS, 2, 1, 3, (2, 2)),
    ([*BASE[:2], call(2, 1, "sum", 50, a=42, b=8), *BASE[3:]], K.DIFFERENT_TOOL, 2, 1, 3, (2, 2)),
    ([*BASE[:2], call(2, 1, "calc", 51, a=42, b=8), *BASE[3:]], K.DIFFERENT_RESULT, 2, 1, 3, (2, 2)),
    ([*BASE[:3], answer(2, 2, "50, not prime")], K.MISSING_CALL, 2, 2, 4, (2, 3)),
    ([BASE[0], call(1, 2, "log", x=1), answer(1, 3, "42"), *BASE[2:]], K.EXTRA_CALL, 1, 2, 2, (1, 2)),
    ([*BASE[:4], answer(2, 3, "50, prime")], K.DIFFERENT_ANSWER, 2, 3, 5, None),
    (BASE[:2], K.MISSING_CALL, 2, 1, 3, None),
    ([*BASE, answer(3, 1, "anything else?")], K.EXTRA_TURN, 3, 1, 6, None),
]


@pytest.mark.parametrize(("new", "kind", "turn", "step", "index", "again"), CASES)
def test_each_kind_of_divergence(new: list[Step], kind: K, turn: int, step: int, index: int, again: Any) -> None:
    found = first_divergence(BASE, new)
    assert found is not None
    assert (found.kind, found.turn, found.step, found.index) == (kind, turn, step, index)
    assert (found.reconverges.base_turn, found.reconverges.base_step) == again if again else found.reconverges is None
    assert (found.base_steps, found.new_steps) == (len(BASE), len(new))


def test_a_result_one_side_did_not_record_is_no_difference() -> None:
    # Golden turns are usually written without tool results: the first divergence is the argument that differs.
    golden = [call(1, 1, "get_weather", city="Oslo"), call(1, 2, "to_f", celsius=11), answer(1, 3, "51.8")]
    run = [call(1, 1, "get_weather", {"t": 12}, city="Oslo"), call(1, 2, "to_f", {"f": 53.6}, celsius=12)]
    found = first_divergence(golden, [*run, answer(1, 3, "53.6")])
    assert found is not None and (found.kind, found.turn, found.step) == (K.DIFFERENT_ARGUMENTS, 1, 2)
    assert found.detail.startswith("actual 12 != expected 11 at $.celsius")


def test_a_missing_turn_and_the_detail_of_an_argument_change() -> None:
    short = [call(1, 1, "calc", 42, a=6, b=7), answer(1, 2, "42")]
    found = first_divergence([*short, answer(2, 1, "bye")], short)
    assert found is not None and found.kind is K.MISSING_TURN
    changed = first_divergence(BASE, [*BASE[:2], call(2, 1, "calc", 50, a=8, b=42), *BASE[3:]])
    assert changed is not None and changed.detail.startswith("actual 8 != expected 42 at $.a")
    text = divergence_text(changed)
    assert text.startswith("first divergence at turn 2, step 1 (step 3): different arguments; base: calc(")
    assert text.endswith("re-converge at turn 2, step 2")


def test_equal_runs_do_not_diverge_whatever_their_ids_timings_and_key_order() -> None:
    def run(ids: str, timing: float) -> list[Invocation]:
        return [
            Invocation.model_validate(
                {
                    "invocationId": f"inv-{ids}",
                    "userContent": {"content": "q"},
                    "finalResponse": {"role": "assistant", "content": "calc  result:\n5"},
                    "tools": [{"id": f"call-{ids}", "name": "c", "arguments": {"a": 1, "b": 2.0}, "result": {"r": 3}}],
                    "duration": timing,
                }
            )
        ]

    a, b = run("x", 0.1), run("y", 9.0)
    b[0].tools[0].arguments = {"b": 2, "a": 1.0000001}  # other key order, the same numbers within 1e-6
    b[0].final_response.content = "calc result: 5"  # type: ignore[union-attr]  # whitespace only
    assert run_divergence(a, b) is None
    assert [s.kind for s in invocation_steps(a)] == ["tool", "answer"]


def test_two_stretches_and_the_edit_distance() -> None:
    new = [call(1, 1, "calc", 42, a=6, b=9), answer(1, 2, "42"), call(2, 1, "calc", 50, a=42, b=8), answer(2, 2, "x")]
    found = first_divergence(BASE, new)
    assert found is not None
    assert (found.kind, found.distance, found.stretches) == (K.DIFFERENT_ARGUMENTS, 3, 2)


def test_runs_too_long_to_align_report_the_first_difference_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(align, "MAX_CELLS", 2)
    new = [*BASE[:2], call(2, 1, "sum", 50, a=42, b=8), call(2, 2, "x"), call(2, 3, "y"), answer(2, 4, "z")]
    found = first_divergence(BASE, new)
    assert found is not None and not found.aligned
    assert (found.kind, found.index) == (K.DIFFERENT_TOOL, 3)
    assert "too long to align further" in divergence_text(found)
    assert not align_steps(BASE, new).aligned


_steps = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 2), st.booleans()), min_size=0, max_size=12
)


def _run(spec: list[tuple[str, int, bool]]) -> list[Step]:
    out, turn, step = [], 1, 1
    for name, value, ends_turn in spec:
        out.append(answer(turn, step, name) if ends_turn else call(turn, step, name, value, v=value))
        turn, step = (turn + 1, 1) if ends_turn else (turn, step + 1)
    return out


@given(_steps, _steps)
def test_the_divergence_is_where_the_runs_first_differ(
    a: list[tuple[str, int, bool]], b: list[tuple[str, int, bool]]
) -> None:
    base, new = _run(a), _run(b)
    found = first_divergence(base, new)
    prefix = 0
    while prefix < min(len(base), len(new)) and base[prefix].model_dump() == new[prefix].model_dump():
        prefix += 1
    if len(base) == len(new) == prefix:
        assert found is None
        return
    assert found is not None and found.index == prefix + 1
    alignment = align_steps(base, new)
    assert [s.base for s in alignment.steps if s.base] == base and [s.new for s in alignment.steps if s.new] == new
    assert first_divergence(base, base) is None
