"""The gate of a rules file (``compare.gate_report``): each rule on results built by hand, the rules file's parsing
and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.compare import GateRules, compare_results, gate_report, load_gate_rules
from agentgauge.errors import InputError
from agentgauge.model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalStatus,
    Invocation,
    Message,
    TokenUsage,
)


def _run(
    eval_id: str, passed: bool, run_id: int = 1, *, cost: float | None = None, seconds: float = 1.0
) -> EvalCaseResult:
    status = EvalStatus.PASSED if passed else EvalStatus.FAILED
    metric = EvalMetricResult(metric_name="m", score=1.0 if passed else 0.0, threshold=1.0, eval_status=status)
    usage = TokenUsage(input_tokens=100, output_tokens=20, total_tokens=120, cost=cost)
    turn = Invocation(user_content=Message(content="q"), duration=seconds, usage=usage)
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        overall_eval_metric_results=[metric],
        eval_metric_result_per_invocation=[EvalMetricResultPerInvocation(actual_invocation=turn)],
    )


def _result(passing: dict[str, int], runs: int = 1, **kwargs: float) -> EvalSetResult:
    """Cases by id with how many of their ``runs`` pass."""
    results = [_run(e, r < n, r + 1, **kwargs) for e, n in passing.items() for r in range(runs)]
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=results)


def _statuses(report: object) -> dict[str, str]:
    return {v.name: v.status for v in report.verdicts}  # type: ignore[attr-defined]


CASES = [f"c{i}" for i in range(20)]


def test_a_real_gain_is_accepted_and_the_same_result_is_not() -> None:
    base = _result({c: i < 3 for i, c in enumerate(CASES)})
    new = _result(dict.fromkeys(CASES, 1))
    report = gate_report(compare_results(base, new, fail_on=None), GateRules(), new)
    assert report.accepted and _statuses(report) == {"min_gain": "pass", "no_new_failures": "pass", "overfit": "skip"}
    assert report.gain is not None and report.gain.delta == pytest.approx(0.85) and report.gain.low > 0
    same = gate_report(compare_results(base, base, fail_on=None), GateRules(), base)
    assert not same.accepted and _statuses(same)["min_gain"] == "fail"
    assert "the low end +0.000 is not above 0 (the gain may be chance)" in same.verdicts[0].findings[0]


def test_min_gain_asks_more_than_significance() -> None:
    base = _result({c: i < 6 for i, c in enumerate(CASES)})
    new = _result({c: i < 14 for i, c in enumerate(CASES)})  # +0.4, 95% interval about [+0.2, +0.6]
    comparison = compare_results(base, new, fail_on=None)
    assert gate_report(comparison, GateRules(min_gain=0.1), new).accepted
    refused = gate_report(comparison, GateRules(min_gain=0.3), new)
    assert not refused.accepted and refused.gain is not None and 0.1 < (refused.gain.low or 0) < 0.3


def test_a_broken_case_a_critical_case_and_budgets() -> None:
    base = _result({c: i < 5 for i, c in enumerate(CASES)})
    fixed_most = {c: i != 0 for i, c in enumerate(CASES)}  # c0 passed before, fails now
    new = _result(fixed_most, cost=0.03, seconds=2.0)
    rules = GateRules.model_validate(
        {"critical_cases": ["c0", "c9", "nope"], "case_budgets": {"cost": 0.02, "latency": 5, "tokens": 100}}
    )
    report = gate_report(compare_results(base, new, fail_on=None), rules, new)
    assert not report.accepted
    statuses = _statuses(report)
    assert statuses["min_gain"] == "pass" and statuses["no_new_failures"] == "fail"
    assert statuses["critical_cases"] == "fail" and statuses["case_budgets"] == "fail"
    critical = next(v for v in report.verdicts if v.name == "critical_cases")
    assert critical.findings == ["c0: failed (0/1 runs passed)", "nope: not run in the candidate"]
    budgets = next(v for v in report.verdicts if v.name == "case_budgets")
    assert "c0: mean cost 0.03 > 0.02" in budgets.findings and "c0: mean tokens 120 > 100" in budgets.findings
    assert not any("latency" in f for f in budgets.findings)


def test_overfit_train_up_validation_down() -> None:
    train = compare_results(_result(dict.fromkeys(CASES, 0)), _result(dict.fromkeys(CASES, 1)), fail_on=None)
    before = {c: 4 if i < 12 else 0 for i, c in enumerate(CASES)}
    new_val = _result({**before, "c0": 2}, runs=4)  # validation a little worse
    validation = compare_results(_result(before, runs=4), new_val, fail_on=None)
    for mode, status in (("reject", "fail"), ("warn", "warn"), ("off", "skip")):
        report = gate_report(validation, GateRules(overfit=mode), new_val, train=train)  # type: ignore[arg-type]
        verdict = next(v for v in report.verdicts if v.name == "overfit")
        assert verdict.status == status, mode
        assert not report.accepted  # min_gain fails anyway: validation did not improve
    flagged = gate_report(validation, GateRules(), new_val, train=train).verdicts[-1]
    assert flagged.findings[0].startswith("train: pass rate (runs) 0.000 -> 1.000 (gain +1.000")
    assert flagged.findings[1].startswith("validation: pass rate (runs) 0.600 -> 0.575 (gain -0.025")
    assert gate_report(validation, GateRules(), new_val).verdicts[-1].findings == ["no train results to compare"]


def test_rules_files(tmp_path: Path) -> None:
    path = tmp_path / "gate.yaml"
    path.write_text("min_gain: 0.05\ncritical_cases: [a, b]\ncase_budgets:\n  cost: 0.5\noverfit: warn\nalpha: 0.01\n")
    rules = load_gate_rules(path)
    assert rules.min_gain == 0.05 and rules.critical_cases == ["a", "b"] and rules.case_budgets.cost == 0.5
    assert rules.overfit == "warn" and rules.alpha == 0.01
    path.write_text("")
    assert load_gate_rules(path) == GateRules()
    path.write_text('{"metric": "response_match_score"}')
    assert load_gate_rules(path).metric == "response_match_score"


def test_a_rules_file_that_is_not_a_file(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "gate.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"gate\.yaml: a FIFO, expected a regular JSON file"):
        load_gate_rules(fifo)
    with pytest.raises(InputError, match=r"missing\.yaml: file not found"):
        load_gate_rules(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("min_gains: 0.1\n", "gate.yaml: min_gains: extra inputs are not permitted"),
        ("case_budgets:\n  money: 1\n", "gate.yaml: case_budgets.money: extra inputs are not permitted"),
        ("overfit: sometimes\n", "gate.yaml: overfit: input should be 'reject', 'warn' or 'off'"),
        ("alpha: 2\n", "gate.yaml: alpha: input should be less than 1"),
        ("critical_cases: [a\n", "gate.yaml: line 2 column 1: invalid YAML"),
        ("- a\n- b\n", "gate.yaml: input should be a valid dictionary or instance of GateRules (got array)"),
        ("a: &x [1, 2]\nb: [*x, *x]\n", "gate.yaml: line 2 column 5: invalid YAML: aliases are not allowed"),
        ("min_gain: 0.1\n" + "# padding\n" * 30_000, "gate.yaml: the rules file is over the 262144-byte limit"),
    ],
)
def test_bad_rules_files_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "gate.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_gate_rules(path)
    assert str(info.value).replace(str(tmp_path) + "/", "").startswith(message), str(info.value)
