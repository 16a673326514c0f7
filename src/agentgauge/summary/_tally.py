"""Metric results added up one at a time: status counts, the mean of the evaluated scores, and the status it gives.

Imports only :mod:`agentgauge.model`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping

from ..model import EvalMetricResult, EvalStatus, MetricSummary, StatusCounts, status_for_score
from ..stats import at_least_k, reduce_scores

__all__ = ["MetricTally", "metric_summaries", "tally_metrics"]


class MetricTally:
    """One metric's results added one at a time: status counts, the evaluated scores (for the mean) and the first
    threshold. The one tally of a metric: the saved summaries (per run, per case) and every report's metric table
    are computed from it. With a ``reducer`` (one case's runs: see :mod:`agentgauge.stats`) the scores are reduced
    by it instead of averaged."""

    __slots__ = ("counts", "informational", "name", "reducer", "scores", "threshold")

    def __init__(self, name: str, threshold: float, reducer: str | None = None) -> None:
        self.name = name
        self.threshold = threshold
        self.reducer = reducer
        self.counts = StatusCounts()
        """Results by status (informational ones are in :attr:`informational`)."""
        self.scores = array("d")
        self.informational = 0

    def add(self, score: float | None, status: EvalStatus) -> None:
        """Count one result."""
        if status is EvalStatus.INFORMATIONAL:
            self.informational += 1
        else:
            self.counts.add(status)
        if status is not EvalStatus.ERROR and status is not EvalStatus.NOT_EVALUATED and score is not None:
            self.scores.append(score)

    @property
    def measurement(self) -> bool:
        """Whether the metric is a measurement, not a score (:func:`agentgauge.model.is_measurement` of its
        results): reports show it apart, without threshold, pass/fail counts or verdicts."""
        # is_measurement over the counts (a test holds the two equal): read for every metric of every summary.
        counts = self.counts
        return self.informational > 0 and not (counts.passed or counts.failed or counts.error)

    @property
    def errors(self) -> bool:
        """Whether a result could not be produced (its evaluator failed)."""
        return self.counts.error > 0

    @property
    def average(self) -> float | None:
        """The mean of the evaluated scores, or what the reducer makes of them (``None`` without any)."""
        if self.reducer is None:
            return sum(self.scores) / len(self.scores) if self.scores else None
        return reduce_scores(self.reducer, self.scores, self.threshold)

    @property
    def status(self) -> EvalStatus:
        """``informational`` for a measurement, else the average against the first threshold (``error`` when no
        result was scored and one could not be)."""
        if self.measurement:
            return EvalStatus.INFORMATIONAL
        average = self.average
        if average is None and self.errors:
            return EvalStatus.ERROR
        if average is not None and at_least_k(self.reducer) is not None:  # 1: enough runs reached the threshold
            return EvalStatus.PASSED if average == 1.0 else EvalStatus.FAILED
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
    results: Iterable[tuple[str, float | None, EvalStatus, float]],
    tallies: dict[str, MetricTally] | None = None,
    reducers: Mapping[str, str] | None = None,
) -> dict[str, MetricTally]:
    """Add (name, score, status, threshold) results to per-metric tallies (new ones unless ``tallies`` is given),
    in order of first appearance; ``reducers`` (metric name -> reducer) when the results are one case's runs."""
    out: dict[str, MetricTally] = {} if tallies is None else tallies
    for name, score, status, threshold in results:
        tally = out.get(name)
        if tally is None:
            tally = out[name] = MetricTally(name, threshold, reducers.get(name) if reducers else None)
        tally.add(score, status)
    return out


def metric_summaries(results: Iterable[EvalMetricResult], *, one_case: bool = False) -> list[MetricSummary]:
    """Per metric: the mean over results that were evaluated, its status, and counts over every result. With
    ``one_case`` (the results are one case's runs) each metric's reducer applies instead of the mean."""
    items = list(results)
    reducers = {r.metric_name: r.reducer for r in items if r.reducer} if one_case else None
    tallies = tally_metrics(((r.metric_name, r.score, r.eval_status, r.threshold) for r in items), None, reducers)
    return [tally.summary() for tally in tallies.values()]
