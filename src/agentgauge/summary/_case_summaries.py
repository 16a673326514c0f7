"""Every case of a row summary as a :class:`CaseSummary`, made when read, and what the reports count over all of
them without making one: the case and case run counts, the cases with errors, the usage, the agent time per case,
the cases a list picks (flaky, not passed)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, overload

from ..model import EvalStatus, UsageTotals
from ._case_summary import CaseSummary

if TYPE_CHECKING:  # pragma: no cover
    from ._row_summary import RowSummary

__all__ = ["CaseSummaries", "CaseTotals"]

_KEPT_CASES = 10_000
"""Up to this many cases, each :class:`CaseSummary` is kept once built (a report reads them more than once: counts,
then the cases that did not pass); beyond it they are built on every read, so memory does not grow with the run."""


@dataclass
class CaseTotals:
    """What one pass over every case's rows gives: cases and case runs by status, the cases with an error message in
    a run, the usage summed over every run, and each case's agent time (its recorded turn durations summed, averaged
    over its runs; ``None`` when none was recorded), in eval-set order."""

    cases: dict[EvalStatus, int] = field(default_factory=lambda: dict.fromkeys(EvalStatus, 0))
    case_runs: dict[EvalStatus, int] = field(default_factory=lambda: dict.fromkeys(EvalStatus, 0))
    errored: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    durations: list[float | None] = field(default_factory=list)


class CaseSummaries(Sequence[CaseSummary]):
    """Every case's :class:`CaseSummary` (eval-set order), built from the rows of a :class:`RowSummary` when read;
    :meth:`totals`, :meth:`select` and :meth:`index_of` answer from the rows, building none."""

    def __init__(self, summary: RowSummary) -> None:
        self._summary = summary
        count = len(summary.groups)
        self._kept: list[CaseSummary | None] | None = [None] * count if count <= _KEPT_CASES else None
        self._index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._summary.groups)

    @overload
    def __getitem__(self, index: int) -> CaseSummary: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[CaseSummary]: ...

    def __getitem__(self, index: int | slice) -> CaseSummary | Sequence[CaseSummary]:
        if isinstance(index, slice):
            return [self._case(i) for i in range(len(self))[index]]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("case index out of range")
        return self._case(index)

    def __iter__(self) -> Iterator[CaseSummary]:
        for group in range(len(self)):
            yield self._case(group)

    def runs_passed(self) -> list[int]:
        """How many runs of each case passed (without building the summaries)."""
        table, groups = self._summary.table, self._summary.groups
        total = len(table)
        return [
            sum(1 for i in groups.rows_of(g, total) if table.status(i) is EvalStatus.PASSED) for g in range(len(groups))
        ]

    def index_of(self, eval_id: str) -> int | None:
        """The position of the case ``eval_id`` (``None``: no such case)."""
        if self._index is None:
            self._index = {eval_id: g for g, eval_id in enumerate(self._summary.groups.ids)}
        return self._index.get(eval_id)

    def select(self, wanted: Callable[[EvalStatus, int, int], bool]) -> Iterator[CaseSummary]:
        """The cases for which ``wanted(status, runs, runs passed)`` holds, in eval-set order (only they are built)."""
        table, groups = self._summary.table, self._summary.groups
        total = len(table)
        for group in range(len(groups)):
            rows = groups.rows_of(group, total)
            passed = sum(1 for i in rows if table.status(i) is EvalStatus.PASSED)
            if wanted(groups.status_of(group), len(rows), passed):
                yield self._case(group)

    def count_where(self, wanted: Callable[[EvalStatus, int, int], bool]) -> int:
        """How many cases :meth:`select` would give (none is built)."""
        table, groups = self._summary.table, self._summary.groups
        total = len(table)
        found = 0
        for group in range(len(groups)):
            rows = groups.rows_of(group, total)
            passed = sum(1 for i in rows if table.status(i) is EvalStatus.PASSED)
            found += wanted(groups.status_of(group), len(rows), passed)
        return found

    def totals(self) -> CaseTotals:
        """One pass over every case's rows (see :class:`CaseTotals`); the same figures as the summaries give."""
        table, groups = self._summary.table, self._summary.groups
        total = len(table)
        found = CaseTotals()
        for group in range(len(groups)):
            found.cases[groups.status_of(group)] += 1
            rows = groups.rows_of(group, total)
            errored = False
            case_usage: UsageTotals | None = None  # as CaseSummary.usage sums it
            for i in rows:
                found.case_runs[table.status(i)] += 1
                errored = errored or bool(table.error_message(i))
                usage = table.usage(i)
                if usage is not None and usage.known:
                    case_usage = case_usage or UsageTotals()
                    case_usage.merge(usage)
            found.errored += errored
            duration = case_usage.duration if case_usage is not None else None
            found.durations.append(None if duration is None else duration / max(len(rows), 1))
            if case_usage is not None:
                found.usage.merge(case_usage)
        return found

    def _case(self, group: int) -> CaseSummary:
        kept = self._kept
        if kept is None:
            return self._summary.case(group)
        found = kept[group]
        if found is None:
            found = kept[group] = self._summary.case(group)
        return found
