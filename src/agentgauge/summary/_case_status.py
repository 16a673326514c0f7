"""The one rule that decides a case's status over its runs (:class:`~agentgauge.model.CaseStatusRule`), and how
every report names it.

Imports only :mod:`agentgauge.model`. The rule reads a case's runs through :class:`CaseRuns`, so the summary of a
million compact rows decides each case without building an object per run.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Protocol

from ..model import CaseStatusRule, EvalStatus, summarize_statuses

__all__ = ["CaseRuns", "decide_case_status", "rule_phrase", "status_text"]


class CaseRuns(Protocol):
    """What the rule reads of one case's runs."""

    def statuses(self) -> Sequence[EvalStatus]:
        """Each run's final status."""
        ...

    def errored(self) -> bool:
        """Whether a run has an error message."""
        ...

    def metric_statuses(self) -> Iterable[EvalStatus]:
        """Each metric's status over the runs: its scores reduced (mean, or its reducer) against its threshold."""
        ...

    def failed_by_case(self) -> bool:
        """Whether a run failed although none of its metrics did (the case itself failed it, e.g. a recording
        missing a turn): no reduction of metric scores can pass such a run."""
        ...


def _not_passed(statuses: Iterable[EvalStatus]) -> EvalStatus:
    found = set(statuses)
    if EvalStatus.FAILED in found:
        return EvalStatus.FAILED
    return EvalStatus.ERROR if EvalStatus.ERROR in found else EvalStatus.NOT_EVALUATED


def _needed(rule: CaseStatusRule, runs: int) -> int:
    """How many runs must pass under ``rule`` (not for ``mean``)."""
    if rule is CaseStatusRule.ALL:
        return runs
    if rule is CaseStatusRule.MAJORITY:
        return runs // 2 + 1
    return 1


def decide_case_status(rule: CaseStatusRule, runs: CaseRuns) -> EvalStatus:
    """The status of a case over its runs under ``rule`` (see :class:`~agentgauge.model.CaseStatusRule`).

    With one run: that run's status. ``mean``: the metrics reduced over the runs decide (``failed`` when one fails,
    and when a run was failed by the case itself); ``all`` / ``majority`` / ``any``: passed when enough runs
    passed, else failed, error or not evaluated as the runs were. A case no rule could decide (``not_evaluated``)
    whose runs hold an error message is ``error``.
    """
    statuses = runs.statuses()
    if len(statuses) <= 1:
        status = summarize_statuses(statuses)
    elif rule is CaseStatusRule.MEAN:
        status = summarize_statuses(runs.metric_statuses())
        if status is not EvalStatus.FAILED and runs.failed_by_case():
            status = EvalStatus.FAILED
    else:
        passed = sum(1 for s in statuses if s is EvalStatus.PASSED)
        status = EvalStatus.PASSED if passed >= _needed(rule, len(statuses)) else _not_passed(statuses)
    if status is EvalStatus.NOT_EVALUATED and runs.errored():
        status = EvalStatus.ERROR  # no run decided it, and one could not be scored
    return status


def rule_phrase(rule: CaseStatusRule, reducers: Collection[str] = ()) -> str:
    """The rule as reports name it: ``mean of runs ≥ threshold``, ``all runs pass``, ``most runs pass``, ``any run
    passes``; for ``mean`` with metric reducers, which ones (``reduced runs ≥ threshold (median)``)."""
    if rule is CaseStatusRule.MEAN:
        if not reducers:
            return "mean of runs ≥ threshold"
        return f"reduced runs ≥ threshold ({', '.join(sorted(set(reducers)))})"
    return {CaseStatusRule.ALL: "all runs pass", CaseStatusRule.MAJORITY: "most runs pass"}.get(rule, "any run passes")


def status_text(
    status: EvalStatus, rule: CaseStatusRule, runs: int, runs_passed: int, reducers: Collection[str] = ()
) -> str:
    """A case's status with the rule that decided it: ``failed (3/5 runs passed; rule: all runs pass)``; just the
    status for a case that ran once (every rule gives its run's status)."""
    if runs <= 1:
        return status.value
    return f"{status.value} ({runs_passed}/{runs} runs passed; rule: {rule_phrase(rule, reducers)})"
