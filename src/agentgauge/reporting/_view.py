"""What every report shows of one EvalSetResult: its cases (the run's :class:`~agentgauge.summary.CaseSummary`
objects), its metric tallies over every case run, pass@k and latency.

Every output format (terminal, JUnit, Markdown, HTML, JSON statistics, the GitHub summary) is built from one
:class:`ResultView`, and the view from the summary of the run's compact rows (:mod:`agentgauge.summary`): a result
read back, a run just finished and a million-case file read as a stream all give the same numbers.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import (
    DEFAULT_CASE_STATUS,
    CaseNotRun,
    CaseStatusRule,
    EvalSetResult,
    EvalStatus,
    StatusCounts,
    UsageTotals,
)
from ..stats import pass_at_k, pass_hat_k
from ..summary import (
    CaseSummaries,
    CaseSummary,
    CaseTotals,
    MetricTally,
    RowSummary,
    result_summary,
    rule_phrase,
    tally_metrics,
)
from ..summary._latency import LatencyPercentiles, latency_percentiles
from ..summary._usage import format_duration

__all__ = [
    "PassK",
    "ResultView",
    "build_view",
    "latency_cards",
    "pass_k_rows",
    "view_from_rows",
    "view_latency",
]


@dataclass(frozen=True)
class PassK:
    """Mean pass@k and pass^k over cases for one k."""

    k: int
    pass_at_k: float
    pass_hat_k: float


@dataclass(frozen=True)
class ResultView:
    """Everything the reports show about one EvalSetResult.

    ``cases`` builds each case's summary when read (a million-case run's view holds none); the counts below come
    from one pass over the rows, made once, and the lists pick their cases from the rows. ``metrics`` are the
    tallies of every metric over every case run, in order of first appearance; :attr:`scores` and
    :attr:`measurements` split them.
    """

    result: EvalSetResult
    num_runs: int
    cases: CaseSummaries
    metrics: list[MetricTally]
    pass_k: list[PassK]
    rule: CaseStatusRule = DEFAULT_CASE_STATUS

    @property
    def multi_run(self) -> bool:
        """True when the result holds several runs of each case."""
        return self.num_runs > 1

    @property
    def scores(self) -> list[MetricTally]:
        """The metrics with a pass rule: a threshold, pass/fail counts, a status."""
        return [m for m in self.metrics if not m.measurement]

    @property
    def measurements(self) -> list[MetricTally]:
        """The metrics that only measure (ADK's efficiency metrics, any metric without a pass rule): shown apart,
        with no threshold, counts or verdict."""
        return [m for m in self.metrics if m.measurement]

    @property
    def rule_text(self) -> str:
        """The case status rule as reports name it (``mean of runs ≥ threshold``, ``all runs pass``, ...)."""
        reducers = {r for c in itertools.islice(self.cases, 1) for r in c.reducers}
        return rule_phrase(self.rule, reducers)

    def _stats(self) -> CaseTotals:
        stats: CaseTotals | None = self.__dict__.get("_stats_cache")
        if stats is None:  # the view is frozen, so its cases never change
            stats = self.__dict__["_stats_cache"] = self.cases.totals()
        return stats

    @property
    def usage(self) -> UsageTotals:
        """Durations, tokens and costs summed over every case and run."""
        return self._stats().usage

    @property
    def case_runs(self) -> StatusCounts:
        """The case runs (each case once per run) by their status: what a per-run count (``17 of 30 case runs
        passed``) reads, always labelled apart from the case counts."""
        runs = self._stats().case_runs
        counted = ("passed", "failed", "error", "not_evaluated")
        return StatusCounts(**{name: runs[EvalStatus(name)] for name in counted})

    @property
    def total_case_runs(self) -> int:
        """How many case runs the result holds."""
        return sum(self._stats().case_runs.values())

    @property
    def flaky(self) -> list[CaseSummary]:
        """Cases whose runs did not all end alike: some passed, some did not (only with several runs)."""
        return list(self.cases.select(_flaky)) if self.multi_run else []

    @property
    def flaky_count(self) -> int:
        """How many cases :attr:`flaky` lists (without building them)."""
        return self.cases.count_where(_flaky) if self.multi_run else 0

    def first_flaky(self, limit: int) -> list[CaseSummary]:
        """The first ``limit`` cases of :attr:`flaky`."""
        return list(itertools.islice(self.cases.select(_flaky), limit)) if self.multi_run else []

    @property
    def not_passing(self) -> list[CaseSummary]:
        """The cases whose status is not ``passed``: failed, error, not evaluated."""
        return list(self.cases.select(_not_passed))

    @property
    def not_passing_count(self) -> int:
        """How many cases :attr:`not_passing` lists."""
        return len(self.cases) - self.count(EvalStatus.PASSED)

    def first_not_passing(self, limit: int) -> list[CaseSummary]:
        """The first ``limit`` cases of :attr:`not_passing` (without building the whole list)."""
        return list(itertools.islice(self.cases.select(_not_passed), limit))

    @property
    def not_run(self) -> list[CaseNotRun]:
        """The cases of the eval set the run could not run, each with why (a trace run's cases without a trace):
        not among :attr:`cases` (nor in any count of them), listed and counted apart by every report."""
        summary = self.result.summary
        return list(summary.cases_not_run) if summary is not None else []

    def not_run_text(self, limit: int = 10) -> str | None:
        """``2 cases of the eval set not run: no trace (case_a, case_b)``: the cases of :attr:`not_run` by reason,
        the first ``limit`` of each named; ``None`` when every case ran."""
        by_reason: dict[str, list[str]] = {}
        for case in self.not_run:
            by_reason.setdefault(case.reason, []).append(case.eval_id)
        if not by_reason:
            return None
        parts = []
        for reason, ids in by_reason.items():
            named = ", ".join(ids[:limit]) + (f", … {len(ids) - limit} more" if len(ids) > limit else "")
            cases = "1 case" if len(ids) == 1 else f"{len(ids)} cases"
            parts.append(f"{cases} of the eval set not run: {reason} ({named})")
        return "; ".join(parts)

    def outcome(self, eval_id: str) -> CaseSummary | None:
        """The summary of the case ``eval_id`` (``None`` when the view has no such case)."""
        index = self.cases.index_of(eval_id)
        return None if index is None else self.cases[index]

    def count(self, status: EvalStatus) -> int:
        """How many cases ended with ``status`` (passed + failed + error + not evaluated = cases)."""
        return self._stats().cases[status]

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


def _flaky(status: EvalStatus, runs: int, passed: int) -> bool:
    return 0 < passed < runs


def _not_passed(status: EvalStatus, runs: int, passed: int) -> bool:
    return status is not EvalStatus.PASSED


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


def _metric_tallies(summary: RowSummary) -> list[MetricTally]:
    """Each metric over every case run, cases in eval-set order (metrics in order of first appearance)."""
    table, groups = summary.table, summary.groups
    total = len(table)
    tallies: dict[str, MetricTally] = {}
    for group in range(len(groups)):
        for i in groups.rows_of(group, total):
            tally_metrics(table.metrics(i), tallies)
    return list(tallies.values())


def view_from_rows(header: EvalSetResult, summary: RowSummary) -> ResultView:
    """The view of a result from the summary of its compact rows (``header``: the result's ids, time, flags and
    summary head; its case results are not read)."""
    num_runs = header.summary.num_runs if header.summary else max(len(summary.head.run_summaries), 1)
    cases = summary.cases
    return ResultView(
        result=header,
        num_runs=num_runs,
        cases=cases,
        metrics=_metric_tallies(summary),
        pass_k=pass_k_rows(cases.runs_passed(), num_runs) if num_runs > 1 else [],
        rule=summary.rule,
    )


def build_view(result: EvalSetResult) -> ResultView:
    """The view of a result held in memory: its cases as its summary decided them (see
    :func:`~agentgauge.summary.result_summary`)."""
    return view_from_rows(result, result_summary(result))


def latency_cards(view: ResultView) -> list[tuple[str, str, str]]:
    """The HTML summary's latency card ``(label, value, css class)``, when any case recorded a duration."""
    latency = view_latency(view) if view.usage.duration is not None else None
    if latency is None:
        return []
    return [("Latency p50 / p95 / p99", " / ".join(format_duration(v) for v in latency.values), "")]


def view_latency(view: ResultView) -> LatencyPercentiles | None:
    """p50 / p95 / p99 of the cases' agent time (a case's recorded turn durations summed, averaged over its runs),
    as agentevals reports latency per result; ``None`` when no case recorded a duration."""
    return latency_percentiles(view._stats().durations)
