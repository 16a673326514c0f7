"""The :class:`ResultView` of a run from its compact rows, with no Python object per case held.

A million-case run's view would otherwise hold a million :class:`CaseOutcome` objects (plus the tallies that build
them). Here ``view.cases`` is a sequence that builds each outcome from the run's row table when it is read; the
counts every report starts with come from one pass over it (see :meth:`ResultView._stats`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, overload

from ..model import EvalSetResult, EvalStatus, UsageTotals
from ._view import CaseOutcome, MetricOverview, ResultView, pass_k_rows

if TYPE_CHECKING:  # pragma: no cover
    from ..summary import RowSummary

__all__ = ["RowOutcomes", "view_from_rows"]


_KEPT_OUTCOMES = 10_000
"""Up to this many cases, each outcome is kept once built (a report reads them more than once: counts, then the
cases that did not pass); beyond it they are built on every read, so memory does not grow with the run."""


class RowOutcomes(Sequence[CaseOutcome]):
    """Every case's :class:`CaseOutcome` (eval-set order), built from the rows of a :class:`RowSummary` when read."""

    def __init__(self, summary: RowSummary) -> None:
        self._summary = summary
        self._total = len(summary.table)
        count = len(summary.groups)
        self._kept: list[CaseOutcome | None] | None = [None] * count if count <= _KEPT_OUTCOMES else None

    def __len__(self) -> int:
        return len(self._summary.groups)

    @overload
    def __getitem__(self, index: int) -> CaseOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[CaseOutcome]: ...

    def __getitem__(self, index: int | slice) -> CaseOutcome | Sequence[CaseOutcome]:
        if isinstance(index, slice):
            return [self._outcome(i) for i in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("case index out of range")
        return self._outcome(index)

    def __iter__(self) -> Iterator[CaseOutcome]:
        for group in range(len(self)):
            yield self._outcome(group)

    def runs_passed(self) -> list[int]:
        """How many runs of each case passed (without building the outcomes)."""
        table, groups = self._summary.table, self._summary.groups
        return [
            sum(1 for i in groups.rows_of(g, self._total) if table.status(i) is EvalStatus.PASSED)
            for g in range(len(groups))
        ]

    def _outcome(self, group: int) -> CaseOutcome:
        kept = self._kept
        if kept is None:
            return self._build(group)
        outcome = kept[group]
        if outcome is None:
            outcome = kept[group] = self._build(group)
        return outcome

    def _build(self, group: int) -> CaseOutcome:
        # The same fields as ViewBuilder gives for these rows (see ViewBuilder.add / finish).
        table, groups = self._summary.table, self._summary.groups
        rows = groups.rows_of(group, self._total)
        errors: list[str] = []
        usage = UsageTotals()
        reason: str | None = None
        reason_run: int | None = None
        passed = 0
        first_run: int | None = None
        for i in rows:
            run_id = table.run_id(i)
            first_run = run_id if first_run is None else min(first_run, run_id)
            if table.status(i) is EvalStatus.PASSED:
                passed += 1
            message = table.error_message(i)
            if message:
                errors.append(f"run {run_id}: {message}")
            row_usage = table.usage(i)
            if row_usage is not None and row_usage.known:
                usage.merge(row_usage)
            row_reason = table.reason(i)
            if row_reason is not None and (reason_run is None or run_id < reason_run):
                reason, reason_run = row_reason, run_id
        return CaseOutcome(
            groups.ids[group],
            groups.status_of(group),
            len(rows),
            passed,
            tuple(errors),
            reason=reason,
            reason_run=reason_run,
            usage=usage,
            index=group,
            first_run=first_run if first_run is not None else 1,
        )


def _metric_rows(summary: RowSummary) -> list[MetricOverview]:
    from array import array

    table, groups = summary.table, summary.groups
    total = len(table)
    metrics: dict[str, MetricOverview] = {}
    for group in range(len(groups)):  # cases in eval-set order, as ViewBuilder sees them
        for i in groups.rows_of(group, total):
            for name, score, status, threshold in table.metrics(i):
                row = metrics.get(name)
                if row is None:
                    row = metrics[name] = MetricOverview(name, threshold, scores=array("d"))
                row.add(score, status, group)
    return list(metrics.values())


def view_from_rows(header: EvalSetResult, summary: RowSummary) -> ResultView:
    """The view of a run from its compact rows (see the module docstring)."""
    num_runs = header.summary.num_runs if header.summary else max(len(summary.head.run_summaries), 1)
    outcomes = RowOutcomes(summary)
    return ResultView(
        result=header,
        num_runs=num_runs,
        cases=outcomes,
        metrics=_metric_rows(summary),
        pass_k=pass_k_rows(outcomes.runs_passed(), num_runs) if num_runs > 1 else [],
    )
