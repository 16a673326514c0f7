"""Aggregating full case results across runs into per-case outcomes and the EvalSetResult ``summary``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResultSummary,
    EvalStatus,
    status_for_score,
    summarize_statuses,
)
from ._case_row import case_row
from ._row_summary import case_order, summarize_rows

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


def _average(results: Sequence[EvalMetricResult]) -> float | None:
    skipped = (EvalStatus.NOT_EVALUATED, EvalStatus.ERROR)
    scores = [r.score for r in results if r.eval_status not in skipped and r.score is not None]
    return sum(scores) / len(scores) if scores else None


def _status(results: Sequence[EvalMetricResult], average: float | None) -> EvalStatus:
    if all(r.eval_status is EvalStatus.INFORMATIONAL for r in results):
        return EvalStatus.INFORMATIONAL
    if average is None and any(r.eval_status is EvalStatus.ERROR for r in results):
        return EvalStatus.ERROR  # no run scored it, and one could not
    return status_for_score(average, results[0].threshold)


def _averaged(results: Sequence[EvalMetricResult]) -> EvalMetricResult:
    # Threshold of the first run, criterion of the last (as the reference aggregator does).
    average = _average(results)
    return EvalMetricResult(
        metric_name=results[0].metric_name,
        score=average,
        eval_status=_status(results, average),
        threshold=results[0].threshold,
        criterion=results[-1].criterion,
    )


def aggregate_case(eval_id: str, runs: Sequence[EvalCaseResult]) -> CaseAggregate:
    """Combine one case's runs.

    Metric averages skip ``not_evaluated`` and ``error`` results. With one run the case status is that run's
    status; with several it summarises the averaged metric statuses. A ``not_evaluated`` outcome becomes ``error``
    when any run has an error message.
    """
    metrics = [_averaged(group) for group in _group(m for r in runs for m in r.overall_eval_metric_results).values()]
    if len(runs) <= 1:
        status = summarize_statuses(r.final_eval_status for r in runs)
    else:
        status = summarize_statuses(m.eval_status for m in metrics)
    if status is EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        status = EvalStatus.ERROR
    return CaseAggregate(eval_id, status, metrics, list(runs))


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
