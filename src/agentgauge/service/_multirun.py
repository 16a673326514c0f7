"""Aggregating case results across runs into per-case outcomes and the EvalSetResult ``summary``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..model import (
    CaseMetricRunResult,
    CaseRunSummary,
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    EvalSetResultSummary,
    EvalStatus,
    MetricSummary,
    RunSummary,
    StatusCounts,
    UsageTotals,
    status_for_score,
    summarize_statuses,
)

__all__ = [
    "CaseAggregate",
    "CaseRow",
    "MetricRow",
    "RowSummary",
    "aggregate_case",
    "case_order",
    "case_row",
    "metric_summaries",
    "summarize_rows",
    "summarize_runs",
]


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
    scores = [r.score for r in results if r.eval_status is not EvalStatus.NOT_EVALUATED and r.score is not None]
    return sum(scores) / len(scores) if scores else None


def _status(results: Sequence[EvalMetricResult], average: float | None) -> EvalStatus:
    if all(r.eval_status is EvalStatus.INFORMATIONAL for r in results):
        return EvalStatus.INFORMATIONAL
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


def metric_summaries(results: Iterable[EvalMetricResult]) -> list[MetricSummary]:
    """Per metric: the mean over results that were evaluated, its status, and counts over every result."""
    summaries = []
    for name, group in _group(results).items():
        counts = StatusCounts()
        for result in group:
            counts.add(result.eval_status)
        average = _average(group)
        summaries.append(
            MetricSummary(
                metric_name=name,
                average_score=average,
                eval_status=_status(group, average),
                threshold=group[0].threshold,
                status_counts=counts,
            )
        )
    return summaries


def aggregate_case(eval_id: str, runs: Sequence[EvalCaseResult]) -> CaseAggregate:
    """Combine one case's runs.

    Metric averages skip ``not_evaluated`` results. With one run the case status is that run's status; with
    several it summarises the averaged metric statuses. A ``not_evaluated`` outcome becomes ``failed`` when any
    run has an error message.
    """
    metrics = [_averaged(group) for group in _group(m for r in runs for m in r.overall_eval_metric_results).values()]
    if len(runs) <= 1:
        status = summarize_statuses(r.final_eval_status for r in runs)
    else:
        status = summarize_statuses(m.eval_status for m in metrics)
    if status is EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        status = EvalStatus.FAILED
    return CaseAggregate(eval_id, status, metrics, list(runs))


def case_order(case_ids: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    """A sort key putting cases in eval-set order; ids not in the set go last, lexicographically."""
    index = {case_id: i for i, case_id in enumerate(case_ids)}
    return lambda case_id: (index.get(case_id, len(index)), case_id)


@dataclass(slots=True, frozen=True)
class MetricRow:
    """One metric's outcome in one case run, without criterion or details (what summaries need)."""

    metric_name: str
    score: float | None
    eval_status: EvalStatus
    threshold: float


@dataclass(slots=True, frozen=True)
class CaseRow:
    """The compact part of one case result that summaries, pass@k and the terminal overview need.

    A run keeps one of these per case run instead of the full :class:`EvalCaseResult` (whose invocations are
    written to the result file and dropped), so its memory does not grow with the size of the traces.
    """

    eval_id: str
    run_id: int
    final_eval_status: EvalStatus
    error_message: str | None
    metrics: tuple[MetricRow, ...]
    usage: UsageTotals | None = None  # None when no invocation recorded any duration, tokens or cost
    reason: str | None = None  # the first reason the case did not pass (None when it passed)

    @property
    def overall_eval_metric_results(self) -> tuple[MetricRow, ...]:
        """The metric outcomes, under the name :class:`EvalCaseResult` uses (so views can read either)."""
        return self.metrics


_SHARED_ROWS: dict[tuple[str, float | None, EvalStatus, float], MetricRow] = {}
_SHARED_ROWS_MAX = 4096


def _metric_row(name: str, score: float | None, status: EvalStatus, threshold: float) -> MetricRow:
    # Rows are immutable, and many repeat (a trajectory score is mostly 0.0 or 1.0): a million-case run shares them
    # instead of holding a million equal objects. Only the first few thousand distinct rows are remembered.
    key = (name, score, status, threshold)
    row = _SHARED_ROWS.get(key)
    if row is None:
        row = MetricRow(name, score, status, threshold)
        if len(_SHARED_ROWS) < _SHARED_ROWS_MAX:
            _SHARED_ROWS[key] = row
    return row


def case_row(result: EvalCaseResult) -> CaseRow:
    """The compact row of a case result (with its usage totals and first failure reason for the reports)."""
    from ..reporting._usage import case_usage
    from ..reporting._view import first_reason

    usage = case_usage(result)
    return CaseRow(
        result.eval_id,
        result.run_id,
        result.final_eval_status,
        result.error_message,
        tuple(
            _metric_row(m.metric_name, m.score, m.eval_status, m.threshold) for m in result.overall_eval_metric_results
        ),
        usage if usage.known else None,
        first_reason(result),
    )


def _row_status(runs: Sequence[CaseRow]) -> EvalStatus:
    # The same rule as aggregate_case, on compact rows.
    if len(runs) <= 1:
        status = summarize_statuses(r.final_eval_status for r in runs)
    else:
        groups = _group(m for r in runs for m in r.metrics)  # type: ignore[misc]
        status = summarize_statuses(_status(g, _average(g)) for g in groups.values())
    if status is EvalStatus.NOT_EVALUATED and any(r.error_message for r in runs):
        status = EvalStatus.FAILED
    return status


def _case_summary(eval_id: str, status: EvalStatus, runs: Sequence[CaseRow]) -> EvalCaseSummary:
    counts = StatusCounts()
    for run in runs:
        counts.add(run.final_eval_status)
    return EvalCaseSummary(
        eval_id=eval_id,
        overall_status=status,
        run_status_counts=counts,
        metric_summaries=metric_summaries(m for r in runs for m in r.metrics),  # type: ignore[misc]
        run_summaries=[
            CaseRunSummary(
                run_id=run.run_id,
                final_eval_status=run.final_eval_status,
                error_message=run.error_message,
                metric_results=[
                    CaseMetricRunResult(
                        metric_name=m.metric_name, score=m.score, eval_status=m.eval_status, threshold=m.threshold
                    )
                    for m in run.metrics
                ],
            )
            for run in sorted(runs, key=lambda r: r.run_id)
        ],
    )


@dataclass
class RowSummary:
    """The multi-run summary of compact rows: ``head`` is the summary without its per-case entries, which
    :meth:`case_summaries` produces one at a time (eval-set order), so they never need to exist together."""

    head: EvalSetResultSummary
    by_case: dict[str, list[CaseRow]]
    case_status: dict[str, EvalStatus]

    def case_summaries(self) -> Iterator[EvalCaseSummary]:
        """The ``evalCaseSummaries`` entries, in eval-set order."""
        for eval_id, status in self.case_status.items():
            yield _case_summary(eval_id, status, self.by_case[eval_id])

    def full(self) -> EvalSetResultSummary:
        """The complete summary (per-case entries included)."""
        summary = self.head.model_copy()
        summary.eval_case_summaries = list(self.case_summaries())
        return summary


def summarize_rows(rows: Iterable[CaseRow], *, case_ids: Sequence[str], num_runs: int) -> RowSummary:
    """The multi-run summary of compact case rows (see :class:`RowSummary`)."""
    order = case_order(case_ids)
    by_run: dict[int, list[CaseRow]] = {}
    by_case: dict[str, list[CaseRow]] = {}
    for row in rows:
        by_run.setdefault(row.run_id, []).append(row)
        by_case.setdefault(row.eval_id, []).append(row)
    run_summaries = []
    run_counts = StatusCounts()
    for run_id in sorted(by_run):
        case_rows = by_run[run_id]
        counts = StatusCounts()
        for row in case_rows:
            counts.add(row.final_eval_status)
        status = summarize_statuses(r.final_eval_status for r in case_rows)
        run_counts.add(status)
        run_summaries.append(
            RunSummary(
                run_id=run_id,
                overall_status=status,
                case_status_counts=counts,
                metric_summaries=metric_summaries(m for r in case_rows for m in r.metrics),  # type: ignore[misc]
            )
        )
    case_status = {eval_id: _row_status(by_case[eval_id]) for eval_id in sorted(by_case, key=order)}
    head = EvalSetResultSummary(
        overall_status=summarize_statuses(case_status.values()),
        num_runs=num_runs,
        run_status_counts=run_counts,
        run_summaries=run_summaries,
    )
    return RowSummary(head, by_case, case_status)


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
