"""Metric results added up one at a time: status counts, the mean of the evaluated scores, and the status it gives.

Imports only :mod:`agentgauge.model`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable

from ..model import EvalMetricResult, EvalStatus, MetricSummary, StatusCounts, status_for_score

__all__ = ["MetricTally", "metric_summaries", "tally_metrics"]


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
