"""The compact rows of a run, held column by column.

A run of a million cases keeps one :class:`~agentgauge.summary.CaseRow` per case run for its summary and reports.
As Python objects those cost ~400 bytes each (the row, its metric tuple and rows, usage totals, the reason string);
:class:`RowTable` keeps the same data in arrays -- about 40 bytes per row plus its id and the UTF-8 of its reason --
and rebuilds a :class:`CaseRow` whenever one is read.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from ..model import EvalStatus, UsageTotals
from ._case_row import CaseRow, metric_row

__all__ = ["RowTable", "SparseText"]

_STATUSES = tuple(EvalStatus)
_CODES = {status: code for code, status in enumerate(_STATUSES)}
_NO_SCORE = 0x80  # flag in a metric's status byte: the score is None
_NO_INT = -1  # an integer usage figure that was not recorded
_FLOAT_FIELDS = ("duration", "model_duration", "tool_duration", "cost")
_INT_FIELDS = ("invocations", "input_tokens", "output_tokens", "total_tokens", "model_calls", "cost_missing")


class SparseText:
    """Texts attached to a few of many rows (reasons, error messages): UTF-8 in one buffer, located by row.

    Rows must be added in increasing order; :meth:`get` finds a row by binary search.
    """

    def __init__(self) -> None:
        self._rows = array("q")
        self._ends = array("q")
        self._text = bytearray()

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, row: int, text: str) -> None:
        """Attach ``text`` to ``row`` (a row after every row added so far)."""
        self._text += text.encode("utf-8", "surrogatepass")
        self._rows.append(row)
        self._ends.append(len(self._text))

    def get(self, row: int) -> str | None:
        """The text of ``row``, or ``None``."""
        at = bisect_left(self._rows, row)
        if at == len(self._rows) or self._rows[at] != row:
            return None
        start = self._ends[at - 1] if at else 0
        return self._text[start : self._ends[at]].decode("utf-8", "surrogatepass")


class RowTable:
    """Compact case rows in the order they were added (see the module docstring); iterating gives
    :class:`~agentgauge.summary.CaseRow` objects equal to those added."""

    def __init__(self, rows: Iterable[CaseRow] = ()) -> None:
        self._ids: list[str] = []
        self._runs = array("q")
        self._status = bytearray()
        self._layout = array("I")  # per row: index into _layouts
        self._layouts: list[tuple[tuple[str, float], ...]] = []  # (metric name, threshold) of each metric
        self._layout_reducers: list[dict[str, str] | None] = []  # metric name -> reducer, per layout (None: none)
        self._layout_index: dict[tuple[tuple[str, float, str | None], ...], int] = {}
        self._start = array("q")  # per row: its first entry in _scores / _metric_status
        self._scores = array("d")
        self._metric_status = bytearray()
        self._errors = SparseText()
        self._reasons = SparseText()
        # float and integer usage columns, created by the first row with known usage
        self._usage: tuple[dict[str, array[float]], dict[str, array[int]]] | None = None
        self._models: list[tuple[str, ...]] = [()]
        self._model_index: dict[tuple[str, ...], int] = {(): 0}
        for row in rows:
            self.append(row)

    def __len__(self) -> int:
        return len(self._ids)

    def __iter__(self) -> Iterator[CaseRow]:
        for index in range(len(self._ids)):
            yield self.row(index)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RowTable):
            return list(self) == list(other)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def append(self, row: CaseRow, *, eval_id: str | None = None) -> None:
        """Add one row; ``eval_id``, if given, is a string equal to ``row.eval_id`` to keep instead of the row's."""
        index = len(self._ids)
        self._ids.append(row.eval_id if eval_id is None else eval_id)
        self._runs.append(row.run_id)
        self._status.append(_CODES[row.final_eval_status])
        shape = tuple((m.metric_name, m.threshold, m.reducer) for m in row.metrics)
        layout = self._layout_index.get(shape)
        if layout is None:
            layout = self._layout_index[shape] = len(self._layouts)
            self._layouts.append(tuple((name, threshold) for name, threshold, _ in shape))
            reducers = {name: reducer for name, _, reducer in shape if reducer}
            self._layout_reducers.append(reducers or None)
        self._layout.append(layout)
        self._start.append(len(self._scores))
        for metric in row.metrics:
            none = metric.score is None
            self._scores.append(0.0 if none else metric.score)  # type: ignore[arg-type]
            self._metric_status.append(_CODES[metric.eval_status] | (_NO_SCORE if none else 0))
        if row.error_message is not None:
            self._errors.add(index, row.error_message)
        if row.reason is not None:
            self._reasons.add(index, row.reason)
        if row.usage is not None or self._usage is not None:
            self._add_usage(index, row.usage)

    def _add_usage(self, index: int, usage: UsageTotals | None) -> None:
        if self._usage is None:  # the first row with usage: earlier rows had none
            self._usage = (
                {name: array("d", [math.nan]) * index for name in _FLOAT_FIELDS},
                {name: array("q", [_NO_INT]) * index for name in (*_INT_FIELDS, "models")},
            )
        floats, ints = self._usage
        if usage is None:
            for name in _FLOAT_FIELDS:
                floats[name].append(math.nan)
            for name in _INT_FIELDS:
                ints[name].append(_NO_INT)
            ints["models"].append(0)
            return
        for name in _FLOAT_FIELDS:
            value = getattr(usage, name)
            floats[name].append(math.nan if value is None else value)
        for name in _INT_FIELDS:
            value = getattr(usage, name)
            ints[name].append(_NO_INT if value is None else value)
        models = tuple(usage.models)
        code = self._model_index.get(models)
        if code is None:
            code = self._model_index[models] = len(self._models)
            self._models.append(models)
        ints["models"].append(code)

    def models_seen(self) -> list[str]:
        """The model names of every row's usage, in order of first appearance."""
        return list(dict.fromkeys(name for models in self._models for name in models))

    def eval_id(self, index: int) -> str:
        """The case id of row ``index``."""
        return self._ids[index]

    @property
    def eval_ids(self) -> list[str]:
        """The case id of every row, in order (the table's own list: do not change it)."""
        return self._ids

    def run_id(self, index: int) -> int:
        """The run id of row ``index``."""
        return self._runs[index]

    def status(self, index: int) -> EvalStatus:
        """The final status of row ``index``."""
        return _STATUSES[self._status[index]]

    def error_message(self, index: int) -> str | None:
        """The error message of row ``index`` (``None`` when it had none)."""
        return self._errors.get(index) if len(self._errors) else None

    def reason(self, index: int) -> str | None:
        """The first reason row ``index`` did not pass (``None`` when it passed)."""
        return self._reasons.get(index) if len(self._reasons) else None

    def usage(self, index: int) -> UsageTotals | None:
        """The usage totals of row ``index`` (``None`` when nothing was recorded)."""
        if self._usage is None:
            return None
        floats, ints = self._usage
        if ints["invocations"][index] == _NO_INT:
            return None
        totals = UsageTotals()
        for name in _FLOAT_FIELDS:
            value = floats[name][index]
            setattr(totals, name, None if math.isnan(value) else value)
        for name in _INT_FIELDS:
            number = ints[name][index]
            setattr(totals, name, None if number == _NO_INT else number)
        totals.models = list(self._models[ints["models"][index]])
        return totals

    def metrics(self, index: int) -> Iterator[tuple[str, float | None, EvalStatus, float]]:
        """(name, score, status, threshold) of each metric of row ``index``."""
        start = self._start[index]
        for offset, (name, threshold) in enumerate(self._layouts[self._layout[index]]):
            code = self._metric_status[start + offset]
            score = None if code & _NO_SCORE else self._scores[start + offset]
            yield name, score, _STATUSES[code & ~_NO_SCORE], threshold

    def reducers(self, index: int) -> dict[str, str] | None:
        """The reducer of each metric of row ``index`` that has one, by metric name (``None``: none has)."""
        return self._layout_reducers[self._layout[index]]

    def row(self, index: int) -> CaseRow:
        """Row ``index`` as a :class:`~agentgauge.summary.CaseRow`."""
        reducers = self.reducers(index) or {}
        return CaseRow(
            self._ids[index],
            self._runs[index],
            _STATUSES[self._status[index]],
            self.error_message(index),
            tuple(metric_row(*metric, reducers.get(metric[0])) for metric in self.metrics(index)),
            self.usage(index),
            self.reason(index),
        )
