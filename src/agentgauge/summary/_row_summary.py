"""The multi-run summary of a run's compact rows, computed without a Python object per case.

:func:`summarize_rows` groups the rows of a :class:`~agentgauge.summary.RowTable` by case (cases in eval-set order),
decides each case's status and builds the summary head (per-run counts and metric summaries). The groups are arrays
of row positions; the usual shapes -- one run, or runs dispatched one after the other -- are recognised in one
linear pass, without a map from case id to group.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass
from typing import Any

from ..model import (
    DEFAULT_CASE_STATUS,
    CaseStatusRule,
    EvalCaseSummary,
    EvalSetResultSummary,
    EvalStatus,
    RunSummary,
    StatusCounts,
    summarize_statuses,
)
from ._case_row import CaseRow
from ._case_status import decide_case_status
from ._case_summaries import CaseSummaries
from ._case_summary import CaseSummary
from ._row_table import RowTable
from ._summary_json import one_row_document
from ._tally import MetricTally, tally_metrics

__all__ = ["CaseGroups", "CaseSummaries", "RowSummary", "case_order", "summarize_rows"]

_STATUSES = tuple(EvalStatus)
_CODES = {status: code for code, status in enumerate(_STATUSES)}


class CaseGroups:
    """The rows of each case: ``ids[g]`` is case ``g`` (eval-set order), its rows are :meth:`rows_of` ``(g)``."""

    def __init__(self, ids: list[str], members: array[int] | None, bounds: array[int] | None, period: int) -> None:
        self.ids = ids
        self._members = members  # row positions, grouped by case (None: see _period)
        self._bounds = bounds  # group g is _members[_bounds[g]:_bounds[g + 1]]
        self._period = period  # without _members: group g is rows g, g + period, g + 2 * period, ...
        self.status = bytearray()
        """Each case's status (an :class:`EvalStatus` code, see :meth:`status_of`)."""

    def __len__(self) -> int:
        return len(self.ids)

    def rows_of(self, group: int, total_rows: int) -> Sequence[int]:
        """The positions of case ``group``'s rows (in the order they were added) in a table of ``total_rows``."""
        if self._members is None or self._bounds is None:
            return range(group, total_rows, self._period)
        return self._members[self._bounds[group] : self._bounds[group + 1]]

    def status_of(self, group: int) -> EvalStatus:
        """The status of case ``group``."""
        return _STATUSES[self.status[group]]


def case_order(case_ids: Sequence[str]) -> Callable[[str], tuple[int, str]]:
    """A sort key putting cases in eval-set order; ids not in the set go last, lexicographically."""
    index = {case_id: i for i, case_id in enumerate(case_ids)}
    return lambda case_id: (index.get(case_id, len(index)), case_id)


def _repeating_period(ids: list[str]) -> int | None:
    """``p`` when the ids are distinct ids ``ids[:p]`` repeated (the last repeat may stop early), else ``None``."""
    if not ids:
        return None
    first = ids[0]
    period = next((i for i in range(1, len(ids)) if ids[i] == first), len(ids))
    for start in range(period, len(ids), period):
        block = ids[start : start + period]
        if block != ids[: len(block)]:
            return None
    if len(set(ids[:period])) != period:
        return None
    return period


def _in_order(found: list[str], case_ids: Sequence[str]) -> bool:
    """True when ``found`` lists its ids in the order of ``case_ids`` (which must hold every one of them)."""
    position = 0
    for eval_id in found:
        while position < len(case_ids) and case_ids[position] != eval_id:
            position += 1
        if position == len(case_ids):
            return False
        position += 1
    return True


def group_rows(table: RowTable, case_ids: Sequence[str]) -> CaseGroups:
    """Group the table's rows by case, cases in the order of ``case_ids`` (ids not there last, by id)."""
    ids = table.eval_ids
    period = _repeating_period(ids)
    if period is not None and _in_order(ids[:period], case_ids):
        return CaseGroups(ids[:period], None, None, period)
    positions: dict[str, list[int]] = {}
    for index, eval_id in enumerate(ids):
        positions.setdefault(eval_id, []).append(index)
    order = list(positions)
    if not _in_order(order, case_ids):
        order.sort(key=case_order(case_ids))
    members, bounds = array("q"), array("q", [0])
    for eval_id in order:
        members.extend(positions.pop(eval_id))
        bounds.append(len(members))
    return CaseGroups(order, members, bounds, 0)


class _TableRuns:
    """One case's runs in a row table, as :func:`~agentgauge.summary._case_status.decide_case_status` reads them
    (one object for every case of a summary: :attr:`rows` is set to each case's rows in turn)."""

    __slots__ = ("rows", "table")

    def __init__(self, table: RowTable) -> None:
        self.table = table
        self.rows: Sequence[int] = ()

    def statuses(self) -> Sequence[EvalStatus]:
        return [self.table.status(i) for i in self.rows]

    def errored(self) -> bool:
        return any(self.table.error_message(i) for i in self.rows)

    def metric_statuses(self) -> Iterable[EvalStatus]:
        tallies: dict[str, MetricTally] = {}
        for i in self.rows:
            tally_metrics(self.table.metrics(i), tallies, self.table.reducers(i))
        return (t.status for t in tallies.values())

    def failed_by_case(self) -> bool:
        table = self.table
        for i in self.rows:
            if table.status(i) is EvalStatus.FAILED:
                statuses = [status for _, _, status, _ in table.metrics(i)]
                if statuses and EvalStatus.FAILED not in statuses:
                    return True
        return False


class _CaseStatuses(Mapping[str, EvalStatus]):
    """Each case's status by id, in eval-set order, read from the groups (a dict is built only for lookups)."""

    def __init__(self, groups: CaseGroups) -> None:
        self._groups = groups
        self._index: dict[str, int] | None = None

    def __len__(self) -> int:
        return len(self._groups)

    def __iter__(self) -> Iterator[str]:
        return iter(self._groups.ids)

    def __getitem__(self, eval_id: str) -> EvalStatus:
        if self._index is None:
            self._index = {eval_id: g for g, eval_id in enumerate(self._groups.ids)}
        return self._groups.status_of(self._index[eval_id])

    def values(self) -> ValuesView[EvalStatus]:
        """The statuses in eval-set order (read in place: no lookup by id)."""
        return _StatusValues(self)


class _StatusValues(ValuesView[EvalStatus]):
    _mapping: _CaseStatuses

    def __iter__(self) -> Iterator[EvalStatus]:
        return (_STATUSES[code] for code in self._mapping._groups.status)

    def __contains__(self, value: object) -> bool:
        return any(status is value or status == value for status in self)


@dataclass
class RowSummary:
    """The multi-run summary of compact rows: ``head`` is the summary without its per-case entries, which
    :meth:`case_summaries` produces one at a time (eval-set order), so they never need to exist together; ``rule``
    decided every case's status."""

    head: EvalSetResultSummary
    table: RowTable
    groups: CaseGroups
    rule: CaseStatusRule = DEFAULT_CASE_STATUS

    @property
    def case_status(self) -> Mapping[str, EvalStatus]:
        """Each case's status by id, in eval-set order."""
        return _CaseStatuses(self.groups)

    def case_rows(self, group: int) -> list[CaseRow]:
        """The rows of case ``group`` (eval-set order), as :class:`CaseRow` objects."""
        return [self.table.row(i) for i in self.groups.rows_of(group, len(self.table))]

    def case(self, group: int) -> CaseSummary:
        """The :class:`CaseSummary` of case ``group`` (eval-set order)."""
        rows = tuple(self.case_rows(group))
        return CaseSummary(self.groups.ids[group], self.groups.status_of(group), self.rule, rows, group)

    @property
    def cases(self) -> CaseSummaries:
        """Every case's :class:`CaseSummary`, in eval-set order (built when read; see :class:`CaseSummaries`)."""
        found: CaseSummaries | None = self.__dict__.get("_cases")
        if found is None:
            found = self.__dict__["_cases"] = CaseSummaries(self)
        return found

    @property
    def by_case(self) -> dict[str, list[CaseRow]]:
        """Every case's rows by id, in eval-set order (built on each call: for small runs and tests)."""
        return {eval_id: self.case_rows(g) for g, eval_id in enumerate(self.groups.ids)}

    def case_summaries(self) -> Iterator[EvalCaseSummary]:
        """The ``evalCaseSummaries`` entries, in eval-set order."""
        for case in self.cases:
            yield case.persisted()

    def case_summary_documents(self) -> Iterator[dict[str, Any]]:
        """The ``evalCaseSummaries`` entries as JSON documents (``model_dump(mode="json")`` of
        :meth:`case_summaries`), in eval-set order; a case with one row is written straight from the table."""
        table, total = self.table, len(self.table)
        for group, eval_id in enumerate(self.groups.ids):
            rows = self.groups.rows_of(group, total)
            status = self.groups.status_of(group)
            document = one_row_document(table, rows[0], eval_id, status) if len(rows) == 1 else None
            if document is None:
                document = self.case(group).persisted().model_dump(mode="json")
            yield document

    def full(self) -> EvalSetResultSummary:
        """The complete summary (per-case entries included)."""
        summary = self.head.model_copy()
        summary.eval_case_summaries = list(self.case_summaries())
        return summary


def _run_summaries(table: RowTable) -> list[RunSummary]:
    counts: dict[int, StatusCounts] = {}
    tallies: dict[int, dict[str, MetricTally]] = {}
    seen: dict[int, set[EvalStatus]] = {}
    for index in range(len(table)):
        run_id = table.run_id(index)
        run_counts = counts.get(run_id)
        if run_counts is None:
            run_counts = counts[run_id] = StatusCounts()
            tallies[run_id], seen[run_id] = {}, set()
        status = table.status(index)
        run_counts.add(status)
        seen[run_id].add(status)
        tally_metrics(table.metrics(index), tallies[run_id])
    return [
        RunSummary(
            run_id=run_id,
            # summarize_statuses depends only on which statuses occur, not on how often
            overall_status=summarize_statuses(sorted(seen[run_id])),
            case_status_counts=counts[run_id],
            metric_summaries=[t.summary() for t in tallies[run_id].values()],
        )
        for run_id in sorted(counts)
    ]


def _case_counts(groups: CaseGroups) -> StatusCounts:
    counts = StatusCounts()
    for code in groups.status:
        counts.add(_STATUSES[code])
    return counts


def summarize_rows(
    rows: RowTable | Iterable[CaseRow],
    *,
    case_ids: Sequence[str],
    num_runs: int,
    rule: CaseStatusRule = DEFAULT_CASE_STATUS,
    saved: Mapping[str, EvalStatus] | None = None,
) -> RowSummary:
    """The multi-run summary of compact case rows (see :class:`RowSummary`): each case's status decided by
    ``rule``, or taken from ``saved`` (a saved result's own statuses) where it names the case."""
    table = rows if isinstance(rows, RowTable) else RowTable(rows)
    groups = group_rows(table, case_ids)
    total = len(table)
    runs_of = _TableRuns(table)
    saved = saved or {}
    for group, eval_id in enumerate(groups.ids):
        status = saved.get(eval_id) if saved else None
        if status is None:
            runs_of.rows = groups.rows_of(group, total)
            status = decide_case_status(rule, runs_of)
        groups.status.append(_CODES[status])
    runs = _run_summaries(table)
    run_counts = StatusCounts()
    for run in runs:
        run_counts.add(run.overall_status)
    case_run_counts = StatusCounts()
    for run in runs:  # every case run is counted in its run
        for name in StatusCounts.model_fields:
            setattr(case_run_counts, name, getattr(case_run_counts, name) + getattr(run.case_status_counts, name))
    head = EvalSetResultSummary(
        overall_status=summarize_statuses(_STATUSES[code] for code in set(groups.status)),
        num_runs=num_runs,
        run_status_counts=run_counts,
        case_status_counts=_case_counts(groups),
        case_status_rule=rule,
        case_run_status_counts=case_run_counts,
        run_summaries=runs,
    )
    return RowSummary(head, table, groups, rule)
