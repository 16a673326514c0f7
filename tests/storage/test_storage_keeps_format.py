"""The local eval set manager keeps each file's dialect and the cases a change does not touch.

Random sequences of changes (add, update, delete a case; replace the whole set) are made on a file in each dialect
and, in parallel, on the in-memory manager: both must hold the same eval set after every change, while the file
keeps its dialect and every untouched case stays exactly as it was in the file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "formats"))  # the shared format strategies

from fmt_strategies import adk_eval_sets, eval_sets

from agentgauge.formats._dialect import camelize, document_dialect
from agentgauge.formats._jsonio import dump_json
from agentgauge.model import EvalCase, EvalSet, Invocation, Message
from agentgauge.storage import InMemoryEvalSetManager, LocalEvalSetManager

ROOT = Path(__file__).resolve().parents[2]


def _raw_cases(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_bytes())
    cases = doc.get("eval_cases", doc.get("evalCases"))
    return {c.get("eval_id", c.get("evalId")): c for c in cases}


def _first_turn(doc: dict[str, Any]) -> Any:
    return next((inv for case in doc.get("evalCases", []) for inv in case.get("conversation") or []), None)


def _stamped(case: EvalCase) -> EvalCase:
    """``case`` with every timestamp set, so that both managers store the same values."""
    case = case.model_copy(deep=True)
    case.creation_timestamp = case.creation_timestamp or 1.0
    for inv in case.conversation or []:
        inv.creation_timestamp = inv.creation_timestamp or 1.0
    return case


def _new_case(n: int) -> EvalCase:
    turn = Invocation(user_content=Message(role="user", content=f"q{n}"), final_response=Message(content=f"a{n}"))
    turn.final_response.role = "assistant"  # type: ignore[union-attr]
    return _stamped(EvalCase(eval_id=f"new{n}", conversation=[turn]))


_ops = st.lists(st.tuples(st.sampled_from(["add", "update", "delete", "put"]), st.integers(0, 5)), max_size=5)


def _apply(op: str, n: int, managers: list[Any], step: int) -> set[str]:
    """Make one change on every manager; the ids of the cases it touched."""
    current = managers[1].get("app", "s")
    ids = [c.eval_id for c in current.eval_cases]
    if op == "add":
        for manager in managers:
            manager.add_case("app", "s", _new_case(step))
        return {f"new{step}"}
    if not ids:
        return set()
    target = ids[n % len(ids)]
    if op == "delete":
        for manager in managers:
            manager.delete_case("app", "s", target)
        return {target}
    if op == "update":
        case = _stamped(current.get_case(target))  # type: ignore[arg-type]
        case.conversation = [*(case.conversation or []), _new_case(step).conversation[0]]  # type: ignore[index]
        for manager in managers:
            manager.update_case("app", "s", case)
        return {target}
    replaced = current.model_copy(update={"description": f"put {step}"})
    for manager in managers:
        manager.put("app", replaced)
    return set()


def _check_sequence(tmp_path: Path, data: bytes, ops: list[tuple[str, int]]) -> None:
    folder = tmp_path / "app"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "s.evalset.json"
    path.write_bytes(data)
    local, memory = LocalEvalSetManager(tmp_path), InMemoryEvalSetManager()
    memory.put("app", local.get("app", "s"))
    dialect = document_dialect(json.loads(data))
    touched: set[str] = set()
    ambiguous = False
    before = _raw_cases(path)
    for step, (op, n) in enumerate(ops):
        touched |= _apply(op, n, [local, memory], step)
        assert local.get("app", "s").model_dump(mode="json") == memory.get("app", "s").model_dump(mode="json")
        now = json.loads(path.read_bytes())
        # A camelCase file without a single turn reads the same in both dialects: from then on it is native.
        ambiguous = ambiguous or ("evalCases" in now and _first_turn(now) is None)
        if not ambiguous:
            assert document_dialect(now) == dialect
        after = _raw_cases(path)
        for case_id, raw in before.items():
            if case_id not in touched:
                assert after[case_id] == raw


@pytest.mark.parametrize("camel", [False, True])
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(doc=adk_eval_sets(), ops=_ops)
def test_adk_files_keep_their_dialect(
    tmp_path_factory: pytest.TempPathFactory, camel: bool, doc: Any, ops: Any
) -> None:
    doc = camelize(doc) if camel else doc
    _check_sequence(tmp_path_factory.mktemp("adk"), dump_json(doc), ops)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(eval_set=eval_sets, ops=_ops)
def test_native_files_keep_their_dialect(tmp_path_factory: pytest.TempPathFactory, eval_set: EvalSet, ops: Any) -> None:
    _check_sequence(tmp_path_factory.mktemp("native"), dump_json(eval_set.model_dump(mode="json")), ops)


def test_saving_an_unchanged_case_writes_nothing(tmp_path: Path) -> None:
    source = ROOT / "examples/dice_prime/eval_set_example_with_multiple_sessions.evalset.json"
    (tmp_path / "app").mkdir()
    path = tmp_path / "app" / "s.evalset.json"
    path.write_bytes(source.read_bytes())
    sets = LocalEvalSetManager(tmp_path)
    for case in sets.get("app", "s").eval_cases:
        sets.update_case("app", "s", case)
    assert path.read_bytes() == source.read_bytes()


@pytest.mark.parametrize(
    ("neighbours", "expected"),
    [([], "native"), (["adk"], "adk"), (["native", "adk", "native"], "native"), (["native", "adk"], "adk")],
)
def test_a_new_set_takes_the_dialect_of_its_neighbours(tmp_path: Path, neighbours: list[str], expected: str) -> None:
    sources = {
        "adk": ROOT / "examples/helm/helm_eval_set.evalset.json",
        "native": ROOT / "examples/math_basic/math-basic.evalset.json",
    }
    (tmp_path / "app").mkdir()
    for i, kind in enumerate(neighbours):
        (tmp_path / "app" / f"n{i}.evalset.json").write_bytes(sources[kind].read_bytes())
    sets = LocalEvalSetManager(tmp_path)
    sets.create("app", "fresh")
    assert document_dialect(json.loads((tmp_path / "app" / "fresh.evalset.json").read_bytes())) == expected
    assert sets.dialect("app", "fresh") == expected
