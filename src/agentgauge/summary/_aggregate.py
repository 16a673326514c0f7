"""Aggregating full case results across runs into per-case outcomes and the EvalSetResult ``summary``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResultSummary,
    EvalStatus,
    summarize_statuses,
)
from ._case_row import case_row
from ._row_summary import case_order, summarize_rows
from ._tally import MetricTally

__all__ = ["CaseAggregate", "aggregate_case", "summarize_runs"]


@dataclass
class CaseAggregate:
    """One case across runs: overall status, metric results averaged over runs, and its per-run results."""

    eval_id: str
    overall_status: EvalStatus
    metric_results: list[EvalMetricResult]
    runs: list[EvalCaseResult]


def _group(results: Iterable[EvalMetricResult]) -> dict[str, list[EvalMetricResult]]:
    groups: dict[str, list[EvalMetricResult]] = {}
    for result in results:
        groups.setdefault(result.metric_name, []).append(result)
    return groups


def _averaged(results: Sequence[EvalMetricResult]) -> EvalMetricResult:
    # Threshold of the first run, criterion of the last (as the reference aggregator does); the same mean (or
    # reducer) and status as the summary of compact rows, through the same tally.
    reducer = next((r.reducer for r in results if r.reducer), None)
    tally = MetricTally(results[0].metric_name, results[0].threshold, reducer)
    for result in results:
        tally.add(result.score, result.eval_status)
    return EvalMetricResult(
        metric_name=results[0].metric_name,
        score=tally.average,
        eval_status=tally.status,
        threshold=results[0].threshold,
        criterion=results[-1].criterion,
        reducer=reducer,
    )


def aggregate_case(eval_id: str, runs: Sequence[EvalCaseResult]) -> CaseAggregate:
    """Combine one case's runs.

    Metric averages skip ``not_evaluated`` and ``error`` results. With one run the case status is that run's
    status; with several it summarises the averaged metric statuses, failed when a run failed although none of its
    metrics did (the case itself failed it, e.g. a recording missing a turn). A ``not_evaluated`` outcome becomes
    ``error`` when any run has an error message.
    """
    metrics = [_averaged(group) for group in _group(m for r in runs for m in r.overall_eval_metric_results).values()]
    if len(runs) <= 1:
        status = summarize_statuses(r.final_eval_status for r in runs)
    else:
        status = summarize_statuses(m.eval_status for m in metrics)
        if status is not EvalStatus.FAILED and any(_failed_by_case(r) for r in runs):
            status = EvalStatus.FAILED  # the case itself failed a run (a recording missing a turn), not a metric
    if status is EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        status = EvalStatus.ERROR
    return CaseAggregate(eval_id, status, metrics, list(runs))


def _failed_by_case(run: EvalCaseResult) -> bool:
    """A run scored and failed although none of its metrics did: no average of metric scores can pass it."""
    metrics = run.overall_eval_metric_results
    return (
        run.final_eval_status is EvalStatus.FAILED
        and bool(metrics)
        and not any(m.eval_status is EvalStatus.FAILED for m in metrics)
    )


def summarize_runs(
    results: Sequence[EvalCaseResult], *, case_ids: Sequence[str], num_runs: int
) -> tuple[EvalSetResultSummary, list[CaseAggregate]]:
    """Build the multi-run ``summary`` and the per-case aggregates (sorted by eval-set order)."""
    order = case_order(case_ids)
    by_case: dict[str, list[EvalCaseResult]] = {}
    for result in results:
        by_case.setdefault(result.eval_id, []).append(result)
    aggregates = [aggregate_case(eval_id, by_case[eval_id]) for eval_id in sorted(by_case, key=order)]
    summary = summarize_rows(map(case_row, results), case_ids=case_ids, num_runs=num_runs).full()
    return summary, aggregates
