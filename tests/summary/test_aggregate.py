"""One case across its runs (CaseSummary): its status under each case status rule, the words every report names
the rule with, the metrics over runs, and the EvalSetResult summary written from it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.model import CaseStatusRule, EvalCaseResult, EvalMetricResult, EvalStatus, is_measurement
from agentgauge.summary import (
    CaseSummary,
    MetricTally,
    case_order,
    case_row,
    summarize_results,
    summarize_rows,
)

P, F, N, E = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED, EvalStatus.ERROR
MEAN, ALL, MAJORITY, ANY = CaseStatusRule.MEAN, CaseStatusRule.ALL, CaseStatusRule.MAJORITY, CaseStatusRule.ANY


def _case(runs: list[EvalCaseResult], rule: CaseStatusRule = MEAN) -> CaseSummary:
    return summarize_results(runs, case_ids=["c"], num_runs=len(runs), rule=rule).cases[0]


def _metric(name: str, score: float | None, status: EvalStatus, threshold: float = 0.5) -> EvalMetricResult:
    return EvalMetricResult(metric_name=name, score=score, eval_status=status, threshold=threshold)


def _run(
    eval_id: str, run_id: int, status: EvalStatus, *metrics: EvalMetricResult, error: str | None = None
) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id="set",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        error_message=error,
        overall_eval_metric_results=list(metrics),
    )


def test_metric_average_skips_not_evaluated_and_uses_first_threshold() -> None:
    runs = [
        _run("c", 1, P, _metric("m", 1.0, P, 0.5)),
        _run("c", 2, F, _metric("m", 0.2, F, 0.9)),
        _run("c", 3, N, _metric("m", None, N, 0.5)),
    ]
    case = _case(runs)
    [metric] = case.metrics
    assert metric.average == pytest.approx(0.6)
    assert metric.threshold == 0.5
    assert metric.status is P
    # Several runs: status from averaged metrics, not from the per-run statuses.
    assert case.status is P
    assert (case.runs, case.runs_passed, case.flaky) == (3, 1, True)
    assert case.status_text == "passed (1/3 runs passed; rule: mean of runs ≥ threshold)"


CASE_STATUS_RULES = [
    ([_run("c", 1, P, _metric("m", 0.0, F))], P),  # one run: the run's own status (custom aggregators)
    ([_run("c", 1, F, error="agent failed")], F),
    ([_run("c", 1, N)], N),
    ([_run("c", 1, F, error="x"), _run("c", 2, F, error="y")], E),  # not_evaluated + errorMessage -> error
    ([_run("c", 1, E, error="x"), _run("c", 2, E, error="y")], E),
    ([_run("c", 1, F, error="x"), _run("c", 2, P, _metric("m", 1.0, P))], P),
    ([_run("c", 1, E, error="x"), _run("c", 2, P, _metric("m", 1.0, P))], P),  # the run that scored decides
    ([_run("c", 1, E, _metric("m", None, E)), _run("c", 2, E, _metric("m", None, E))], E),
    ([_run("c", 1, E, _metric("m", None, E)), _run("c", 2, P, _metric("m", 1.0, P))], P),
    ([_run("c", 1, E, _metric("j", None, E), _metric("m", 1.0, P))], E),  # one run: the run's own status
    ([_run("c", 1, P, _metric("m", 0.4, F)), _run("c", 2, P, _metric("m", 0.5, P))], F),
    ([_run("c", 1, N, _metric("m", None, N)), _run("c", 2, N, _metric("m", None, N))], N),
]


@pytest.mark.parametrize(("runs", "status"), CASE_STATUS_RULES)
def test_case_status_rules(runs: list[EvalCaseResult], status: EvalStatus) -> None:
    assert _case(runs).status is status


def _runs(*statuses: EvalStatus) -> list[EvalCaseResult]:
    """Runs with one metric each, passing when the run passed (score 1 or 0.6, threshold 0.5 ... 0.8 alike)."""
    return [
        _run("c", i, s, *([_metric("m", 1.0 if s is P else 0.6, s, 0.8)] if s in (P, F) else []))
        for i, s in enumerate(statuses, start=1)
    ]


# (runs, status under mean, all, majority, any): mean averages the scores (1, 0.6) against the threshold 0.8.
RULES = [
    (_runs(P, P, P, P, P), (P, P, P, P)),
    (_runs(P, P, F, P, F), (P, F, P, P)),  # mean 0.84: passes on the mean, fails on every run
    (_runs(P, P, F, F, F), (F, F, F, P)),  # mean 0.76
    (_runs(F, F, F, F, F), (F, F, F, F)),
    (_runs(P, N, N, N, N), (P, N, N, P)),  # runs not evaluated: not passed, and not failed either
    (_runs(P, F), (P, F, F, P)),  # a tie is no majority
    (_runs(F), (F, F, F, F)),  # one run: its status under every rule
    (_runs(P), (P, P, P, P)),
]


@pytest.mark.parametrize(("runs", "expected"), RULES)
def test_each_case_status_rule(runs: list[EvalCaseResult], expected: tuple[EvalStatus, ...]) -> None:
    got = tuple(_case(runs, rule).status for rule in (MEAN, ALL, MAJORITY, ANY))
    assert got == expected


def test_errored_runs_give_error_where_no_run_decided() -> None:
    runs = [_run("c", 1, E, error="agent failed"), _run("c", 2, E, error="agent failed")]
    assert {_case(runs, rule).status for rule in CaseStatusRule} == {E}


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        (MEAN, "passed (3/5 runs passed; rule: mean of runs ≥ threshold)"),
        (ALL, "failed (3/5 runs passed; rule: all runs pass)"),
        (MAJORITY, "passed (3/5 runs passed; rule: most runs pass)"),
        (ANY, "passed (3/5 runs passed; rule: any run passes)"),
    ],
)
def test_the_status_names_the_rule_that_decided_it(rule: CaseStatusRule, text: str) -> None:
    case = _case(_runs(P, P, F, P, F), rule)
    assert case.status_text == text
    assert case.persisted().overall_status is case.status


def test_one_run_needs_no_rule_and_a_reducer_is_named() -> None:
    assert _case(_runs(F)).status_text == "failed"
    outcomes = [(P, 1.0), (F, 0.0)]
    metric = [
        EvalMetricResult(metric_name="m", score=x, eval_status=s, threshold=1.0, reducer="max") for s, x in outcomes
    ]
    runs = [_run("c", i, s, m) for i, ((s, _), m) in enumerate(zip(outcomes, metric, strict=True), start=1)]
    assert _case(runs).status_text == "passed (1/2 runs passed; rule: reduced runs ≥ threshold (max))"


def test_summary_shape_counts_and_order() -> None:
    results = [
        _run("b", 1, P, _metric("m", 1.0, P)),
        _run("a", 1, F, _metric("m", 0.0, F)),
        _run("zz-unknown", 1, P, _metric("m", 1.0, P)),
        _run("b", 2, P, _metric("m", 1.0, P)),
        _run("a", 2, P, _metric("m", 1.0, P)),
        _run("zz-unknown", 2, N, _metric("m", None, N)),
    ]
    rows = summarize_results(results, case_ids=["b", "a"], num_runs=2)
    summary = rows.full()
    assert [c.eval_id for c in rows.cases] == ["b", "a", "zz-unknown"]
    assert summary.case_status_rule is MEAN
    assert summary.case_run_status_counts is not None
    assert summary.case_run_status_counts.model_dump() == {"passed": 4, "failed": 1, "notEvaluated": 1}
    assert summary.num_runs == 2
    assert [r.run_id for r in summary.run_summaries] == [1, 2]
    assert [r.overall_status for r in summary.run_summaries] == [F, P]
    assert summary.run_status_counts.model_dump() == {"failed": 1, "passed": 1}
    run1 = summary.run_summaries[0]
    assert run1.case_status_counts.model_dump() == {"passed": 2, "failed": 1}
    assert run1.metric_summaries[0].average_score == pytest.approx(2 / 3)
    run2 = summary.run_summaries[1].metric_summaries[0]
    assert (run2.average_score, run2.status_counts.model_dump()) == (1.0, {"passed": 2, "notEvaluated": 1})
    case_a = summary.eval_case_summaries[1]
    assert case_a.eval_id == "a"
    assert case_a.overall_status is P  # mean 0.5 >= 0.5
    assert case_a.run_status_counts.model_dump() == {"passed": 1, "failed": 1}
    assert [(r.run_id, r.final_eval_status) for r in case_a.run_summaries] == [(1, F), (2, P)]
    assert case_a.run_summaries[0].metric_results[0].score == 0.0
    assert summary.overall_status is P


def test_case_order_puts_unknown_ids_last_lexicographically() -> None:
    key = case_order(["c", "a"])
    assert sorted(["z", "a", "y", "c"], key=key) == ["c", "a", "y", "z"]


@pytest.mark.parametrize("runs", [case_runs for case_runs, _ in CASE_STATUS_RULES])
def test_compact_rows_give_the_same_status_as_full_results(runs: list[EvalCaseResult]) -> None:
    rows = summarize_rows(map(case_row, runs), case_ids=["c"], num_runs=len(runs))
    assert rows.case_status["c"] is _case(runs).status


def test_row_summary_streams_the_same_summary() -> None:
    results = [
        _run("b", 1, P, _metric("m", 1.0, P), _metric("k", 0.1, F)),
        _run("a", 1, F, _metric("m", 0.0, F), error="boom"),
        _run("b", 2, F, _metric("m", 0.2, F), _metric("k", 0.9, P)),
        _run("a", 2, N, _metric("m", None, N)),
        _run("z", 1, P, _metric("m", 1.0, P)),
    ]
    summary = summarize_results(results, case_ids=["a", "b"], num_runs=2).full()
    rows = summarize_rows(map(case_row, results), case_ids=["a", "b"], num_runs=2)
    assert rows.head.eval_case_summaries == []
    assert list(rows.case_summaries()) == summary.eval_case_summaries
    assert [s.eval_id for s in summary.eval_case_summaries] == ["a", "b", "z"]
    assert rows.full() == summary


@given(st.lists(st.sampled_from(list(EvalStatus)), max_size=6))
def test_a_tally_is_a_measurement_exactly_when_its_statuses_are(statuses: list[EvalStatus]) -> None:
    tally = MetricTally("m", 0.5)
    for status in statuses:
        tally.add(1.0, status)
    assert tally.measurement is is_measurement(statuses)
    assert (tally.status is EvalStatus.INFORMATIONAL) is tally.measurement


def test_one_informational_score_beside_a_not_evaluated_result_is_a_measurement() -> None:
    tally = MetricTally("invocation_duration_v1", 0.5)
    tally.add(1.0, EvalStatus.INFORMATIONAL)
    tally.add(None, EvalStatus.NOT_EVALUATED)
    assert tally.status is EvalStatus.INFORMATIONAL and tally.average == 1.0
