"""A request's baseline: found before anything runs (a file, an id, ``label:`` or ``latest``, as every command
takes a result), each eval set's result compared with it once the set has run, and the gate's verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.errors import InputError, NotFoundError
from agentgauge.launch import COMMAND_LINE, EvalRequest, GateOptions, MetricOptions, evaluate, prepare
from agentgauge.model import CaseStatusRule

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"
AGENT = str(CALCULATOR / "agent.py")
SET = f"{CALCULATOR / 'calculator.evalset.json'}:calc_add,calc_divide"


def _request(out: Path, **fields: object) -> EvalRequest:
    return EvalRequest(agent=AGENT, sets=(SET,), output_dir=out, **fields)  # type: ignore[arg-type]


async def test_each_set_is_compared_with_the_baseline_its_selector_names(tmp_path: Path) -> None:
    [first] = await evaluate(_request(tmp_path, labels=("env=before",)))
    assert first.result_path is not None
    for selector in ("latest", "label:env=before", str(first.result_path), first.eval_set_result.eval_set_result_id):
        prepared = prepare(_request(tmp_path, gate=GateOptions(selector, fail_on="broken")))
        [outcome] = await prepared.run()
        assert prepared.baseline is not None and prepared.baseline.gated and not prepared.baseline.failed
        compared = prepared.baseline.compared(outcome)
        assert compared is not None and compared.label == first.eval_set_result.eval_set_result_id, selector
        assert compared.comparison.gate is not None and compared.comparison.gate.fail_on == "broken"


async def test_a_baseline_that_is_not_there_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        prepare(_request(tmp_path, gate=GateOptions("latest")))
    with pytest.raises((InputError, NotFoundError), match="no-such-result"):
        prepare(_request(tmp_path, gate=GateOptions("no-such-result"), surface=COMMAND_LINE))
    assert not (tmp_path / "calculator").exists()  # nothing ran, nothing was saved


async def test_without_a_gate_rule_the_cases_decide(tmp_path: Path) -> None:
    await evaluate(_request(tmp_path))
    prepared = prepare(_request(tmp_path, gate=GateOptions("latest")))
    [outcome] = await prepared.run()
    assert prepared.baseline is not None and not prepared.baseline.gated
    assert prepared.baseline.compared(outcome) is not None


def test_the_checks_derive_the_gate_rule_and_the_case_status_rule() -> None:
    checked = EvalRequest(
        sets=(SET,), gate=GateOptions("latest", fail_on_regression=True), metrics=MetricOptions(case_status="ALL")
    ).check()
    assert checked.fail_on == "broken" and checked.case_status is CaseStatusRule.ALL
    assert EvalRequest(sets=(SET,)).check().fail_on is None
