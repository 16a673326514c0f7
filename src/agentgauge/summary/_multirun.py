"""Aggregating case results across runs into per-case outcomes and the EvalSetResult ``summary``."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalSetResultSummary,
    EvalStatus,
    MetricSummary,
    StatusCounts,
    UsageTotals,
    status_for_score,
    summarize_statuses,
)

__all__ = [
    "CaseAggregate",
    "CaseRow",
    "MetricRow",
    "MetricTally",
    "aggregate_case",
    "case_order",
    "case_row",
    "metric_summaries",
    "summarize_runs",
    "tally_metrics",
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


class MetricTally:
    """One metric's results added one at a time: status counts, the evaluated scores (for the mean), the first
    threshold, and whether every result was informational. What :func:`metric_summaries` and the summaries of
    compact rows compute from."""

    __slots__ = ("counts", "errors", "informational_only", "name", "scores", "threshold")

    def __init__(self, name: str, threshold: float) -> None:
        self.name = name
        self.threshold = threshold
        self.counts = StatusCounts()
        self.scores = array("d")
        self.informational_only = True
        self.errors = False

    def add(self, score: float | None, status: EvalStatus) -> None:
        """Count one result."""
        self.counts.add(status)
        if status is not EvalStatus.INFORMATIONAL:
            self.informational_only = False
        if status is EvalStatus.ERROR:
            self.errors = True
        elif status is not EvalStatus.NOT_EVALUATED and score is not None:
            self.scores.append(score)

    @property
    def average(self) -> float | None:
        """The mean of the evaluated scores (``None`` without any)."""
        return sum(self.scores) / len(self.scores) if self.scores else None

    @property
    def status(self) -> EvalStatus:
        """``informational`` when every result was, else the average against the first threshold (``error`` when
        no result was scored and one could not be)."""
        if self.informational_only:
            return EvalStatus.INFORMATIONAL
        average = self.average
        if average is None and self.errors:
            return EvalStatus.ERROR
        return status_for_score(average, self.threshold)

    def summary(self) -> MetricSummary:
        """The :class:`MetricSummary` of the results added."""
        return MetricSummary(
            metric_name=self.name,
            average_score=self.average,
            eval_status=self.status,
            threshold=self.threshold,
            status_counts=self.counts,
        )


def tally_metrics(
    results: Iterable[tuple[str, float | None, EvalStatus, float]], tallies: dict[str, MetricTally] | None = None
) -> dict[str, MetricTally]:
    """Add (name, score, status, threshold) results to per-metric tallies (new ones unless ``tallies`` is given),
    in order of first appearance."""
    out: dict[str, MetricTally] = {} if tallies is None else tallies
    for name, score, status, threshold in results:
        tally = out.get(name)
        if tally is None:
            tally = out[name] = MetricTally(name, threshold)
        tally.add(score, status)
    return out


def metric_summaries(results: Iterable[EvalMetricResult]) -> list[MetricSummary]:
    """Per metric: the mean over results that were evaluated, its status, and counts over every result."""
    tallies = tally_metrics((r.metric_name, r.score, r.eval_status, r.threshold) for r in results)
    return [tally.summary() for tally in tallies.values()]


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
    from ._reasons import first_reason
    from ._usage import case_usage

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


def summarize_runs(
    results: Sequence[EvalCaseResult], *, case_ids: Sequence[str], num_runs: int
) -> tuple[EvalSetResultSummary, list[CaseAggregate]]:
    """Build the multi-run ``summary`` and the per-case aggregates (sorted by eval-set order)."""
    order = case_order(case_ids)
    by_case: dict[str, list[EvalCaseResult]] = {}
    for result in results:
        by_case.setdefault(result.eval_id, []).append(result)
    aggregates = [aggregate_case(eval_id, by_case[eval_id]) for eval_id in sorted(by_case, key=order)]
    from ._row_summary import summarize_rows

    summary = summarize_rows(map(case_row, results), case_ids=case_ids, num_runs=num_runs).full()
    return summary, aggregates
