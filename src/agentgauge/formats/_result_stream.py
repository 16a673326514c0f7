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

from ..model import EvalCaseResult, EvalSetResult
from ._jsonio import validation_error
from ._keys import snake_key
from ._results import _case_result, result_from_document
from ._stream import _Input, _NotStreamable

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
    """A result file read case by case. Iterate :meth:`cases` (as often as needed); :attr:`header` is the result
    without its case results (id, eval set id, summary, timestamp, ``interrupted``), known after the first pass."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.header: EvalSetResult | None = None

    def cases(self) -> Iterator[EvalCaseResult]:
        """Every case result in file order; sets :attr:`header` when the document ends.

        Raises :class:`NotStreamable` when the document is not a plain result object and :class:`InputError` when
        a case result is invalid (callers fall back to the whole-document reader for the exact message).
        """
        top: dict[str, Any] = {}
        seen_cases = False
        with open(self.path, "rb") as handle:
            reader = _Input(handle.read)
            reader.expect(ord("{"))
            if reader.peek() != ord("}"):
                while True:
                    key = reader.value()
                    reader.expect(ord(":"))
                    if type(key) is not str or key in top:
                        raise _NotStreamable
                    if snake_key(key) == _CASES_KEY:
                        if seen_cases:
                            raise _NotStreamable
                        seen_cases = True
                        yield from self._array(reader)
                    else:
                        top[key] = reader.value()
                    if reader.expect(ord(","), ord("}")) == ord("}"):
                        break
            else:
                reader.expect(ord("}"))
            if reader.peek() != -1:
                raise _NotStreamable
        top["evalCaseResults"] = []
        self.header = result_from_document(top, self.path)

    def _array(self, reader: _Input) -> Iterator[EvalCaseResult]:
        reader.expect(ord("["))
        if reader.peek() == ord("]"):
            reader.expect(ord("]"))
            return
        index = 0
        while True:
            yield _case(reader.value(), self.path, index)
            index += 1
            if reader.expect(ord(","), ord("]")) == ord("]"):
                return


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
