"""One eval case across its runs: :class:`CaseSummary`, what every surface reads of a case.

The status is decided once, by the run's rule (:func:`~agentgauge.summary._case_status.decide_case_status`), when
the rows are summarised; everything else a report, the result file, the server or ``compare`` shows of a case is
computed here from its runs' compact rows: runs passed, errors, the first reason, usage, the metrics over runs, the
rule's wording and the persisted ``evalCaseSummaries`` entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from ..model import (
    CaseMetricRunResult,
    CaseRunSummary,
    CaseStatusRule,
    EvalCaseSummary,
    EvalStatus,
    StatusCounts,
    UsageTotals,
)
from ..stats import pass_at_k, pass_hat_k
from ._case_row import CaseRow
from ._case_status import decide_case_status, rule_phrase, status_text
from ._tally import MetricTally, tally_metrics

__all__ = ["CaseSummary", "summarize_case"]


class _Runs:
    """A case's runs as compact rows, as :func:`~agentgauge.summary._case_status.decide_case_status` reads them."""

    __slots__ = ("rows",)

    def __init__(self, rows: Sequence[CaseRow]) -> None:
        self.rows = rows

    def statuses(self) -> Sequence[EvalStatus]:
        return [row.final_eval_status for row in self.rows]

    def errored(self) -> bool:
        return any(row.error_message for row in self.rows)

    def metric_statuses(self) -> Iterable[EvalStatus]:
        return (tally.status for tally in _tallies(self.rows))

    def failed_by_case(self) -> bool:
        return any(
            row.final_eval_status is EvalStatus.FAILED
            and bool(row.metrics)
            and all(m.eval_status is not EvalStatus.FAILED for m in row.metrics)
            for row in self.rows
        )


def _tallies(rows: Iterable[CaseRow]) -> tuple[MetricTally, ...]:
    """Each metric over the rows (its reducer applied), in order of first appearance."""
    tallies: dict[str, MetricTally] = {}
    for row in rows:
        reducers = {m.metric_name: m.reducer for m in row.metrics if m.reducer}
        tally_metrics(((m.metric_name, m.score, m.eval_status, m.threshold) for m in row.metrics), tallies, reducers)
    return tuple(tallies.values())


def summarize_case(
    eval_id: str, rows: Sequence[CaseRow], rule: CaseStatusRule, *, index: int = 0, saved: EvalStatus | None = None
) -> CaseSummary:
    """The :class:`CaseSummary` of one case's rows: its status ``saved`` by the result that holds it, else decided
    by ``rule`` (the rule :func:`~agentgauge.summary.summarize_rows` applies to a whole table)."""
    status = saved if saved is not None else decide_case_status(rule, _Runs(rows))
    return CaseSummary(eval_id, status, rule, tuple(rows), index)


@dataclass(frozen=True)
class CaseSummary:
    """One eval case across its runs: its status under ``rule`` and its runs' compact rows (in the order they were
    added); ``index`` is the case's position among the result's cases (eval-set order)."""

    eval_id: str
    status: EvalStatus
    rule: CaseStatusRule
    rows: tuple[CaseRow, ...]
    index: int = 0

    @property
    def runs(self) -> int:
        """How many runs of the case there are (its case runs)."""
        return len(self.rows)

    @cached_property
    def runs_passed(self) -> int:
        """How many of those runs passed."""
        return sum(1 for row in self.rows if row.final_eval_status is EvalStatus.PASSED)

    @property
    def passed(self) -> bool:
        """Whether the case's status is ``passed``."""
        return self.status is EvalStatus.PASSED

    @property
    def flaky(self) -> bool:
        """Whether its runs disagree: some passed, some did not."""
        return 0 < self.runs_passed < self.runs

    @property
    def first_run(self) -> int:
        """The lowest run id."""
        return min((row.run_id for row in self.rows), default=1)

    @cached_property
    def errors(self) -> tuple[str, ...]:
        """Each run's error message, as ``run N: message``."""
        return tuple(f"run {row.run_id}: {row.error_message}" for row in self.rows if row.error_message)

    @cached_property
    def _first_reason(self) -> tuple[str | None, int | None]:
        found: tuple[str | None, int | None] = (None, None)
        for row in self.rows:
            if row.reason is not None and (found[1] is None or row.run_id < found[1]):
                found = (row.reason, row.run_id)
        return found

    @property
    def reason(self) -> str | None:
        """The first reason a run did not pass (of the lowest such run id); ``None`` when every run passed."""
        return self._first_reason[0]

    @property
    def reason_run(self) -> int | None:
        """The run :attr:`reason` comes from."""
        return self._first_reason[1]

    @cached_property
    def usage(self) -> UsageTotals:
        """Durations, tokens and costs summed over every run's invocations."""
        total = UsageTotals()
        for row in self.rows:
            if row.usage is not None and row.usage.known:
                total.merge(row.usage)
        return total

    @cached_property
    def metrics(self) -> tuple[MetricTally, ...]:
        """Each metric over the case's runs (its reducer applied), in order of first appearance."""
        return _tallies(self.rows)

    @property
    def reducers(self) -> tuple[str, ...]:
        """The metric reducers other than the mean the case's runs were combined with."""
        return tuple(dict.fromkeys(t.reducer for t in self.metrics if t.reducer and not t.measurement))

    @property
    def runs_text(self) -> str:
        """``3/5 runs passed``."""
        return f"{self.runs_passed}/{self.runs} runs passed"

    @property
    def status_text(self) -> str:
        """The status with the rule that decided it: ``passed (3/5 runs passed; rule: mean of runs ≥ threshold)``
        (the status alone for one run)."""
        return status_text(self.status, self.rule, self.runs, self.runs_passed, self.reducers)

    @property
    def rule_text(self) -> str:
        """The rule as reports name it (see :func:`~agentgauge.summary._case_status.rule_phrase`)."""
        return rule_phrase(self.rule, self.reducers)

    def pass_at_k(self, k: int) -> float:
        """pass@k of this case over its runs (see :func:`agentgauge.stats.pass_at_k`)."""
        return pass_at_k(self.runs, self.runs_passed, k)

    def pass_hat_k(self, k: int) -> float:
        """pass^k of this case over its runs (see :func:`agentgauge.stats.pass_hat_k`)."""
        return pass_hat_k(self.runs, self.runs_passed, k)

    def persisted(self) -> EvalCaseSummary:
        """The result file's ``evalCaseSummaries`` entry of the case (trpc-agent-go's shape)."""
        counts = StatusCounts()
        for row in self.rows:
            counts.add(row.final_eval_status)
        return EvalCaseSummary(
            eval_id=self.eval_id,
            overall_status=self.status,
            run_status_counts=counts,
            metric_summaries=[tally.summary() for tally in self.metrics],
            run_summaries=[
                CaseRunSummary(
                    run_id=row.run_id,
                    final_eval_status=row.final_eval_status,
                    error_message=row.error_message,
                    metric_results=[
                        CaseMetricRunResult(
                            metric_name=m.metric_name, score=m.score, eval_status=m.eval_status, threshold=m.threshold
                        )
                        for m in row.metrics
                    ],
                )
                for row in sorted(self.rows, key=lambda r: r.run_id)
            ],
        )
