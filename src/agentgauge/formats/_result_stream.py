"""Reading a result file one case result at a time (the counterpart of :mod:`._result_writer`).

The file is read in chunks as :mod:`._stream` reads eval sets: the top-level object key by key and the
``evalCaseResults`` array element by element, each element converted (native or ADK shape) and validated on its own,
so only one case result's raw tree is alive at a time. Anything this fast path does not handle -- ADK's legacy
string-wrapped documents, syntax errors, duplicate keys, a case that fails to convert -- makes :func:`stream_result`
return ``None`` (or raise :class:`NotStreamable` mid-way); the caller then reads the file whole, which reports any
error exactly (file, line/column or JSON path).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from ..model import EvalCaseResult, EvalCaseSummary, EvalSetResult, EvalStatus
from ._jsonio import MAX_DEPTH, validation_error
from ._keys import snake_key
from ._results import _case_result, result_from_document
from ._stream import _file_members, _Input, _NotStreamable

__all__ = ["NotStreamable", "ResultStream", "stream_result"]

_CASES_KEY = "eval_case_results"
NotStreamable = _NotStreamable


def _case(raw: Any, source: str, index: int) -> EvalCaseResult:
    path = f"evalCaseResults[{index}]"
    try:
        return EvalCaseResult.model_validate(_case_result(raw, source, path))
    except ValidationError as exc:
        raise validation_error(exc, source, path) from None


class ResultStream:
    """A result file read case by case. Iterate :meth:`cases` (as often as needed).

    After a full pass, :attr:`header` is the result without its case results and without the summary's per-case
    entries (ids, eval set id, run summaries, timestamp, ``interrupted``), and :attr:`case_status` maps each case
    of the summary to its overall status; :meth:`case_summaries` reads the per-case entries again one at a time.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.header: EvalSetResult | None = None
        self.case_status: dict[str, EvalStatus] = {}

    def cases(self) -> Iterator[EvalCaseResult]:
        """Every case result in file order; sets :attr:`header` and :attr:`case_status` when the document ends.

        Raises :class:`NotStreamable` when the document is not a plain result object and :class:`InputError` when
        a case result is invalid (callers fall back to the whole-document reader for the exact message).
        """
        for kind, item in self._walk(want_cases=True, want_summaries=False):
            if kind == "case":
                yield item

    def case_summaries(self) -> Iterator[EvalCaseSummary]:
        """The summary's ``evalCaseSummaries`` entries, read from the file one at a time (case results skipped)."""
        for kind, item in self._walk(want_cases=False, want_summaries=True):
            if kind == "summary":
                yield item

    def _walk(self, *, want_cases: bool, want_summaries: bool) -> Iterator[tuple[str, Any]]:
        top: dict[str, Any] = {}
        status: dict[str, EvalStatus] = {}
        seen_cases = False
        for key, reader in _file_members(self.path):
            name = snake_key(key)
            if name == _CASES_KEY:
                if seen_cases:
                    raise _NotStreamable
                seen_cases = True
                # A case result is two levels down: {"evalCaseResults": [{...}]}.
                for index, raw in enumerate(_elements(reader, MAX_DEPTH - 2)):
                    if want_cases:
                        yield "case", _case(raw, self.path, index)
            elif name == "summary" and reader.peek() == ord("{"):
                top[key] = _summary_top(reader, status, self.path) if not want_summaries else None
                if want_summaries:
                    yield from (("summary", s) for s in _summary_entries(reader, self.path))
            else:
                top[key] = reader.value(MAX_DEPTH - 1)
        if want_cases:
            top["evalCaseResults"] = []
            self.header = result_from_document({k: v for k, v in top.items() if v is not None}, self.path)
            self.case_status = status


def _elements(reader: _Input, max_depth: int) -> Iterator[Any]:
    """The raw values of the JSON array that starts at the reader, one at a time (each at most ``max_depth`` deep)."""
    reader.expect(ord("["))
    if reader.peek() == ord("]"):
        reader.expect(ord("]"))
        return
    while True:
        yield reader.value(max_depth)
        if reader.expect(ord(","), ord("]")) == ord("]"):
            return


def _summary_fields(reader: _Input) -> Iterator[tuple[str, Any]]:
    """The summary object key by key; the per-case entries come as ``("eval_case_summaries", iterator)``."""
    reader.expect(ord("{"))
    if reader.peek() == ord("}"):
        reader.expect(ord("}"))
        return
    while True:
        key = reader.value(MAX_DEPTH)
        reader.expect(ord(":"))
        if type(key) is not str:
            raise _NotStreamable
        if snake_key(key) == "eval_case_summaries" and reader.peek() == ord("["):
            yield "eval_case_summaries", _elements(reader, MAX_DEPTH - 3)
        else:
            yield key, reader.value(MAX_DEPTH - 2)
        if reader.expect(ord(","), ord("}")) == ord("}"):
            return


def _case_summary(raw: Any, source: str, index: int) -> EvalCaseSummary:
    try:
        return EvalCaseSummary.model_validate(raw)
    except ValidationError as exc:
        raise validation_error(exc, source, f"summary.evalCaseSummaries[{index}]") from None


def _summary_top(reader: _Input, status: dict[str, EvalStatus], source: str) -> dict[str, Any]:
    """The summary without its per-case entries, whose statuses go into ``status`` (each entry is validated)."""
    out: dict[str, Any] = {}
    for key, value in _summary_fields(reader):
        if key == "eval_case_summaries":
            for index, raw in enumerate(value):
                entry = _case_summary(raw, source, index)
                status[entry.eval_id] = entry.overall_status
        elif key in out:
            raise _NotStreamable
        else:
            out[key] = value
    return out


def _summary_entries(reader: _Input, source: str) -> Iterator[EvalCaseSummary]:
    for key, value in _summary_fields(reader):
        if key == "eval_case_summaries":
            for index, raw in enumerate(value):
                yield _case_summary(raw, source, index)


def stream_result(path: str | os.PathLike[str]) -> ResultStream | None:
    """A :class:`ResultStream` for ``path`` when it starts like a result object, else ``None``."""
    try:
        with open(path, "rb") as handle:
            start = handle.read(64).lstrip()
    except OSError:
        return None
    if not start.startswith(b"{"):
        return None
    return ResultStream(path)
