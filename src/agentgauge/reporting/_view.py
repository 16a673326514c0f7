"""Report-independent views of an EvalSetResult: case outcomes, metric means, pass@k and mismatch blocks.

Every output format (terminal, JUnit, Markdown, HTML) is built from these views so they agree on the numbers.
"""

from __future__ import annotations

import itertools
import statistics
from array import array
from collections.abc import Mapping, MutableSequence, Sequence
from dataclasses import dataclass, field

from ..model import (
    EvalCaseResult,
    EvalSetResult,
    EvalStatus,
    UsageTotals,
    status_for_score,
    summarize_statuses,
)
from ..stats import pass_at_k, pass_hat_k
from ..summary._latency import LatencyPercentiles, latency_percentiles
from ..summary._reasons import first_reason
from ..summary._usage import case_usage, format_duration

__all__ = [
    "CaseOutcome",
    "MetricOverview",
    "PassK",
    "ResultView",
    "ViewBuilder",
    "build_view",
    "latency_cards",
    "pass_k_rows",
    "view_latency",
]


@dataclass
class MetricOverview:
    """A metric over the whole result: mean score of evaluated results against its threshold, plus counts
    (``error``: results its evaluator could not produce, e.g. the judge failed). One line of a report's metric
    table; one metric's outcome in one case run is a :class:`~agentgauge.summary.MetricRow`."""

    metric_name: str
    threshold: float
    scores: MutableSequence[float] = field(default_factory=list)
    passed: int = 0
    failed: int = 0
    not_evaluated: int = 0
    informational: int = 0
    error: int = 0
    case_totals: MutableSequence[float] = field(default_factory=lambda: array("d"))
    """Per case (by :attr:`CaseOutcome.index`): the sum of its scores, over its runs (for confidence intervals)."""
    case_scored: MutableSequence[int] = field(default_factory=lambda: array("q"))
    """Per case: how many of its runs produced a score."""

    def add(self, score: float | None, status: EvalStatus, case: int | None = None) -> None:
        """Count one result of this metric (its score goes into the mean unless it was not evaluated); ``case`` is
        the index of the case it belongs to, for the per-case totals."""
        if status is EvalStatus.INFORMATIONAL:
            self.informational += 1
        elif status is EvalStatus.PASSED:
            self.passed += 1
        elif status is EvalStatus.FAILED:
            self.failed += 1
        elif status is EvalStatus.ERROR:
            self.error += 1
            return  # an error has no score
        else:
            self.not_evaluated += 1
        if score is not None and status is not EvalStatus.NOT_EVALUATED:
            self.scores.append(score)
            if case is not None:
                missing = case + 1 - len(self.case_totals)
                if missing > 0:
                    self.case_totals.extend([0.0] * missing)
                    self.case_scored.extend([0] * missing)
                self.case_totals[case] += score
                self.case_scored[case] += 1

    @property
    def mean(self) -> float | None:
        """Mean score over the results that produced one."""
        return statistics.fmean(self.scores) if self.scores else None

    @property
    def status(self) -> EvalStatus:
        """``informational`` if the metric never gates, else the mean compared with the threshold (``error`` when
        no result was scored and one could not be)."""
        if self.informational and not (self.passed or self.failed or self.error):
            return EvalStatus.INFORMATIONAL
        mean = self.mean
        if mean is None and self.error:
            return EvalStatus.ERROR
        return status_for_score(mean, self.threshold)


@dataclass(frozen=True, slots=True)  # slots: a view of a million-case run holds a million of these
class CaseOutcome:
    """One eval case across its runs.

    ``reason`` is the first reason a run did not pass (``reason_run`` is that run's id); ``usage`` sums the
    durations, tokens and costs of every run's invocations; ``index`` is the case's position in the result and
    ``first_run`` its lowest run id.
    """

    eval_id: str
    status: EvalStatus
    runs: int
    runs_passed: int
    errors: tuple[str, ...]
    reason: str | None = None
    reason_run: int | None = None
    usage: UsageTotals = field(default_factory=UsageTotals)
    index: int = 0
    first_run: int = 1

    @property
    def runs_text(self) -> str:
        """``3/5 runs passed``."""
        return f"{self.runs_passed}/{self.runs} runs passed"


@dataclass(frozen=True)
class PassK:
    """Mean pass@k and pass^k over cases for one k."""

    k: int
    pass_at_k: float
    pass_hat_k: float


@dataclass
class _CaseStats:
    """What one pass over a view's cases gives (see :meth:`ResultView._stats`)."""

    counts: dict[EvalStatus, int]
    errored: int
    not_passing: int
    usage: UsageTotals


def _not_passing(case: CaseOutcome) -> bool:
    return case.status is not EvalStatus.PASSED or case.runs_passed < case.runs or bool(case.errors)


@dataclass(frozen=True)
class ResultView:
    """Everything the reports show about one EvalSetResult.

    ``cases`` may be a list or a sequence that builds each outcome when read (a million-case run's view); the
    counts below come from one pass over it, made once.
    """

    result: EvalSetResult
    num_runs: int
    cases: Sequence[CaseOutcome]
    metrics: list[MetricOverview]
    pass_k: list[PassK]

    @property
    def multi_run(self) -> bool:
        """True when the result holds several runs of each case."""
        return self.num_runs > 1

    def _stats(self) -> _CaseStats:
        stats: _CaseStats | None = self.__dict__.get("_stats_cache")
        if stats is None:  # the view is frozen, so its cases never change
            stats = _CaseStats({status: 0 for status in EvalStatus}, 0, 0, UsageTotals())
            for case in self.cases:
                stats.counts[case.status] += 1
                stats.errored += bool(case.errors)
                stats.not_passing += _not_passing(case)
                stats.usage.merge(case.usage)
            self.__dict__["_stats_cache"] = stats
        return stats

    @property
    def usage(self) -> UsageTotals:
        """Durations, tokens and costs summed over every case and run."""
        return self._stats().usage

    @property
    def flaky(self) -> list[CaseOutcome]:
        """Cases whose runs did not all end alike: some passed, some did not (only with several runs)."""
        return [c for c in self.cases if 0 < c.runs_passed < c.runs]

    @property
    def not_passing(self) -> list[CaseOutcome]:
        """Cases that failed or were not evaluated, and (with several runs) cases with a run that did not pass."""
        return [c for c in self.cases if _not_passing(c)]

    @property
    def not_passing_count(self) -> int:
        """How many cases :attr:`not_passing` lists."""
        return self._stats().not_passing

    def first_not_passing(self, limit: int) -> list[CaseOutcome]:
        """The first ``limit`` cases of :attr:`not_passing` (without building the whole list)."""
        return list(itertools.islice((c for c in self.cases if _not_passing(c)), limit))

    def outcome(self, eval_id: str) -> CaseOutcome | None:
        """The outcome of the case ``eval_id`` (``None`` when the view has no such case)."""
        index = self.__dict__.get("_by_id")
        if index is None:  # built once; the view is frozen, so its case list never changes
            index = self.__dict__["_by_id"] = {c.eval_id: c for c in self.cases}
        return index.get(eval_id)

    def count(self, status: EvalStatus) -> int:
        """How many cases ended with ``status`` (passed + failed + error + not evaluated = cases)."""
        return self._stats().counts[status]

    @property
    def errored(self) -> int:
        """How many cases had an error message in at least one run (a case that failed or, over several runs,
        passed may have one too: the case counts are :meth:`count`)."""
        return self._stats().errored

    @property
    def overall_status(self) -> EvalStatus:
        """Passed only when every case passed (failed, error or not evaluated cases fail the set: failed first,
        then error); an interrupted run never passed."""
        if not self.cases:
            return EvalStatus.NOT_EVALUATED
        if self.count(EvalStatus.PASSED) == len(self.cases):
            return EvalStatus.NOT_EVALUATED if self.result.interrupted else EvalStatus.PASSED
        if self.count(EvalStatus.FAILED):
            return EvalStatus.FAILED
        if self.count(EvalStatus.ERROR):
            return EvalStatus.ERROR
        return EvalStatus.NOT_EVALUATED


@dataclass(slots=True)
class _CaseTally:
    index: int
    first_run: int
    statuses: list[EvalStatus] = field(default_factory=list)
    errors: list[str] | None = None  # most cases have none: no list for them
    usage: UsageTotals = field(default_factory=UsageTotals)
    reason: str | None = None
    reason_run: int | None = None


class ViewBuilder:
    """Builds a :class:`ResultView` from case results handed over one at a time (a result read as a stream).

    Only per-metric scores and per-case statuses are kept, never the case results themselves.
    """

    def __init__(self) -> None:
        self._rows: dict[str, MetricOverview] = {}
        self._cases: dict[str, _CaseTally] = {}
        self._runs: set[int] = set()

    def add(self, case: EvalCaseResult) -> None:
        """Account for one case result (or a compact row carrying ``usage`` and ``reason``)."""
        self._runs.add(case.run_id)
        tally = self._cases.get(case.eval_id)
        if tally is None:
            tally = self._cases[case.eval_id] = _CaseTally(len(self._cases), case.run_id)
        tally.first_run = min(tally.first_run, case.run_id)
        tally.statuses.append(case.final_eval_status)
        if case.error_message:
            if tally.errors is None:
                tally.errors = []
            tally.errors.append(f"run {case.run_id}: {case.error_message}")
        if isinstance(case, EvalCaseResult):
            usage: UsageTotals | None = case_usage(case)
            reason = first_reason(case)
        else:
            usage, reason = getattr(case, "usage", None), getattr(case, "reason", None)
        if usage is not None and usage.known:  # compact rows keep only known usage: both give the same view
            tally.usage.merge(usage)
        if reason is not None and (tally.reason_run is None or case.run_id < tally.reason_run):
            tally.reason, tally.reason_run = reason, case.run_id
        for metric in case.overall_eval_metric_results:
            row = self._rows.get(metric.metric_name)
            if row is None:
                row = self._rows[metric.metric_name] = MetricOverview(metric.metric_name, metric.threshold)
            row.add(metric.score, metric.eval_status, tally.index)

    def finish(self, result: EvalSetResult, *, case_status: Mapping[str, EvalStatus] | None = None) -> ResultView:
        """The view; ``result`` supplies the summary and the header fields (its case results are not read).

        A case's status comes from ``case_status``, else from the result's summary, else from its runs.
        """
        num_runs = result.summary.num_runs if result.summary else max(len(self._runs), 1)
        statuses: Mapping[str, EvalStatus] = case_status or {}  # read only: no copy of a per-case mapping
        if not statuses and result.summary:
            statuses = {s.eval_id: s.overall_status for s in result.summary.eval_case_summaries}
        outcomes = []
        for eval_id, tally in self._cases.items():
            errors = tuple(tally.errors) if tally.errors else ()
            known = statuses.get(eval_id)
            if known is not None:
                status = known
            else:
                status = summarize_statuses(tally.statuses)
                if status is EvalStatus.NOT_EVALUATED and errors:
                    status = EvalStatus.ERROR
            passed = sum(1 for s in tally.statuses if s is EvalStatus.PASSED)
            outcomes.append(
                CaseOutcome(
                    eval_id,
                    status,
                    len(tally.statuses),
                    passed,
                    errors,
                    reason=tally.reason,
                    reason_run=tally.reason_run,
                    usage=tally.usage,
                    index=tally.index,
                    first_run=tally.first_run,
                )
            )
        return ResultView(
            result=result,
            num_runs=num_runs,
            cases=outcomes,
            metrics=list(self._rows.values()),
            pass_k=pass_k_rows([c.runs_passed for c in outcomes], num_runs),
        )


def pass_k_rows(runs_passed: Sequence[int], num_runs: int) -> list[PassK]:
    """Mean pass@k and pass^k over cases (``runs_passed``: how many of each case's runs passed) for k = 1 and k =
    ``num_runs``; none for a single run."""
    if num_runs <= 1 or not runs_passed:
        return []
    rows = []
    for k in sorted({1, num_runs}):
        at = [pass_at_k(num_runs, min(passed, num_runs), k) for passed in runs_passed]
        hat = [pass_hat_k(num_runs, min(passed, num_runs), k) for passed in runs_passed]
        rows.append(PassK(k, statistics.fmean(at), statistics.fmean(hat)))
    return rows


def build_view(result: EvalSetResult) -> ResultView:
    """Aggregate an EvalSetResult into the numbers every report shows."""
    builder = ViewBuilder()
    for case in result.eval_case_results:
        builder.add(case)
    return builder.finish(result)


def latency_cards(view: ResultView) -> list[tuple[str, str, str]]:
    """The HTML summary's latency card ``(label, value, css class)``, when any case recorded a duration."""
    latency = view_latency(view) if view.usage.duration is not None else None
    if latency is None:
        return []
    return [("Latency p50 / p95 / p99", " / ".join(format_duration(v) for v in latency.values), "")]


def view_latency(view: ResultView) -> LatencyPercentiles | None:
    """p50 / p95 / p99 of the cases' agent time (a case's recorded turn durations summed, averaged over its runs),
    as agentevals reports latency per result; ``None`` when no case recorded a duration."""
    return latency_percentiles(
        None if c.usage.duration is None else c.usage.duration / max(c.runs, 1) for c in view.cases
    )
