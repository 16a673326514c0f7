"""Aggregation across runs and the EvalSetResult summary."""

from __future__ import annotations

import pytest

from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalStatus
from agentgauge.service import (
    aggregate_case,
    case_order,
    case_row,
    summarize_rows,
    summarize_runs,
)

P, F, N, E = EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED, EvalStatus.ERROR


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
    aggregate = aggregate_case("c", runs)
    [metric] = aggregate.metric_results
    assert metric.score == pytest.approx(0.6)
    assert metric.threshold == 0.5
    assert metric.eval_status is P
    # Several runs: status from averaged metrics, not from the per-run statuses.
    assert aggregate.overall_status is P


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
    assert aggregate_case("c", runs).overall_status is status


def test_summary_shape_counts_and_order() -> None:
    results = [
        _run("b", 1, P, _metric("m", 1.0, P)),
        _run("a", 1, F, _metric("m", 0.0, F)),
        _run("zz-unknown", 1, P, _metric("m", 1.0, P)),
        _run("b", 2, P, _metric("m", 1.0, P)),
        _run("a", 2, P, _metric("m", 1.0, P)),
        _run("zz-unknown", 2, N, _metric("m", None, N)),
    ]
    summary, aggregates = summarize_runs(results, case_ids=["b", "a"], num_runs=2)
    assert [a.eval_id for a in aggregates] == ["b", "a", "zz-unknown"]
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
    assert rows.case_status["c"] is aggregate_case("c", runs).overall_status


def test_row_summary_streams_the_same_summary() -> None:
    results = [
        _run("b", 1, P, _metric("m", 1.0, P), _metric("k", 0.1, F)),
        _run("a", 1, F, _metric("m", 0.0, F), error="boom"),
        _run("b", 2, F, _metric("m", 0.2, F), _metric("k", 0.9, P)),
        _run("a", 2, N, _metric("m", None, N)),
        _run("z", 1, P, _metric("m", 1.0, P)),
    ]
    summary, _ = summarize_runs(results, case_ids=["a", "b"], num_runs=2)
    rows = summarize_rows(map(case_row, results), case_ids=["a", "b"], num_runs=2)
    assert rows.head.eval_case_summaries == []
    assert list(rows.case_summaries()) == summary.eval_case_summaries
    assert [s.eval_id for s in summary.eval_case_summaries] == ["a", "b", "z"]
    assert rows.full() == summary
