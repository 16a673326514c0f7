"""Writing an EvalSetResult file incrementally: case results as they finish, the summary at the end.

A run of many cases never holds its whole result: every case result is serialised and appended to a temporary file
in the target directory as soon as it is handed over, and :meth:`ResultWriter.commit` writes the summary, fsyncs and
renames the file into place, so a reader only ever sees no file or a complete one. The bytes are exactly those
``save_result`` writes for the same :class:`~agentgauge.model.EvalSetResult` (2-space indented camelCase JSON), so
the streamed file and a whole-document save are interchangeable.

The writer is deliberately independent of the evaluator: anything that produces case results one by one (a resumed
run, a million-case run) can use it.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import orjson

from .._util.fileio import AtomicFile
from ..model import EvalCaseResult, EvalCaseSummary, EvalSetResultSummary, RunMetadata
from ._jsonexact import dumps

__all__ = ["ResultEncoder", "ResultEnding", "ResultWriter", "StreamingResultWriter", "case_json"]

_INDENT = orjson.OPT_INDENT_2
_FLUSH_BYTES = 1 << 20  # buffered bytes written to the file at a time


def _nested(value: Any, depth: int) -> bytes:
    """``value`` as indented JSON placed ``depth`` levels deep in the document (what a whole-document dump gives)."""
    pad = b"\n" + b"  " * depth
    return dumps(value, option=_INDENT).replace(b"\n", pad)  # integers beyond 64 bits exact


def case_json(document: dict[str, Any]) -> bytes:
    """One case result's ``model_dump(mode="json")`` as :meth:`ResultEncoder.add_json` takes it: 2-space indented
    JSON placed where case results sit in the document (what a remote worker sends; any JSON parser reads it)."""
    return _nested(document, 2)


def _key(name: str) -> bytes:
    return orjson.dumps(name)


@dataclass(frozen=True)
class ResultEnding:
    """How a streamed result ends: its summary (with per-case entries to append), creation time and final state."""

    summary: EvalSetResultSummary | None = None
    case_summaries: Iterable[EvalCaseSummary | dict[str, Any]] = ()
    creation_timestamp: float | None = None
    interrupted: bool = False
    cancelled: bool = False
    run_metadata: RunMetadata | None = None

    @property
    def status(self) -> str:
        """``cancelled``, ``interrupted`` or ``completed``."""
        return "cancelled" if self.cancelled else "interrupted" if self.interrupted else "completed"


class ResultEncoder:
    """The bytes of an EvalSetResult document, produced piece by piece and handed to ``write``.

    ``start`` is implied by the constructor; then :meth:`add` per case result and :meth:`finish` once.
    """

    def __init__(
        self, write: Callable[[bytes], object], *, eval_set_id: str, eval_set_result_id: str, eval_set_result_name: str
    ) -> None:
        self._out = write
        self.count = 0
        head = [
            b"{",
            b"  " + _key("evalSetResultId") + b": " + orjson.dumps(eval_set_result_id) + b",",
            b"  " + _key("evalSetResultName") + b": " + orjson.dumps(eval_set_result_name) + b",",
            b"  " + _key("evalSetId") + b": " + orjson.dumps(eval_set_id) + b",",
            b"  " + _key("evalCaseResults") + b": [",
        ]
        self._out(b"\n".join(head))

    def add(self, case: EvalCaseResult, dumped: dict[str, Any] | None = None) -> None:
        """Append one case result (``dumped``: its ``model_dump(mode="json")`` when the caller has it already)."""
        self.add_json(case_json(case.model_dump(mode="json") if dumped is None else dumped))

    def add_json(self, placed: bytes) -> None:
        """Append one case result given as :func:`case_json` makes it (e.g. by a remote worker, or earlier, as the
        case finished, while the results before it in the document were still running)."""
        self._out((b",\n    " if self.count else b"\n    ") + placed)
        self.count += 1

    def finish(self, ending: ResultEnding) -> None:
        """Write the rest of the document (see :meth:`StreamingResultWriter.commit`)."""
        self._out(b"\n  ]" if self.count else b"]")
        if ending.summary is not None:
            self._summary(ending.summary, ending.case_summaries)
        if ending.creation_timestamp is not None:
            self._out(b",\n  " + _key("creationTimestamp") + b": " + orjson.dumps(ending.creation_timestamp))
        if ending.interrupted:
            self._out(b",\n  " + _key("interrupted") + b": true")
        if ending.cancelled:
            self._out(b",\n  " + _key("cancelled") + b": true")
        metadata = ending.run_metadata.model_dump(mode="json") if ending.run_metadata is not None else None
        if metadata:  # after ``cancelled``, as EvalSetResult declares it, so the bytes equal save_result's
            self._out(b",\n  " + _key("runMetadata") + b": " + _nested(metadata, 1))
        self._out(b"\n}\n")

    def _summary(
        self, summary: EvalSetResultSummary, case_summaries: Iterable[EvalCaseSummary | dict[str, Any]]
    ) -> None:
        doc = summary.model_dump(mode="json")
        listed = doc.pop("evalCaseSummaries", [])
        self._out(b",\n  " + _key("summary") + b": " + _nested(doc, 1)[: -len(b"\n  }")])
        count = 0
        for item in listed:
            self._summary_item(orjson.dumps(item, option=_INDENT), count)
            count += 1
        for case in case_summaries:
            document = case if isinstance(case, dict) else case.model_dump(mode="json")
            self._summary_item(orjson.dumps(document, option=_INDENT), count)
            count += 1
        if count:
            self._out(b"\n    ]\n  }")
        else:
            self._out(b",\n    " + _key("evalCaseSummaries") + b": []\n  }")

    def _summary_item(self, raw: bytes, index: int) -> None:
        lead = b",\n    " + _key("evalCaseSummaries") + b": [\n      " if index == 0 else b",\n      "
        self._out(lead + raw.replace(b"\n", b"\n      "))


CommitT = TypeVar("CommitT")


class StreamingResultWriter(ABC, Generic[CommitT]):
    """A result written while it is produced: :meth:`add` per case result, then :meth:`commit` once, or
    :meth:`abort`; leaving a ``with`` block without a commit aborts. What :class:`ResultWriter` (a file) and the SQL
    store's writer share."""

    @property
    @abstractmethod
    def closed(self) -> bool:
        """True once the result was committed or aborted."""

    @abstractmethod
    def add(self, case: EvalCaseResult) -> None:
        """Write one case result."""

    def commit(
        self,
        *,
        summary: EvalSetResultSummary | None = None,
        case_summaries: Iterable[EvalCaseSummary | dict[str, Any]] = (),
        creation_timestamp: float | None = None,
        interrupted: bool = False,
        cancelled: bool = False,
        run_metadata: RunMetadata | None = None,
    ) -> CommitT:
        """Finish the result.

        ``summary`` is written with ``case_summaries`` (models, or their ``model_dump(mode="json")``) appended to its
        ``evalCaseSummaries`` one by one (so they need not exist together). ``interrupted`` marks a run stopped before
        every case finished, ``cancelled`` one a user cancelled; ``run_metadata`` holds the run's labels and
        provenance.
        """
        return self._end(
            ResultEnding(summary, case_summaries, creation_timestamp, interrupted, cancelled, run_metadata)
        )

    @abstractmethod
    def _end(self, ending: ResultEnding) -> CommitT:
        """Write what :meth:`commit` was given and close."""

    @abstractmethod
    def abort(self) -> None:
        """Stop writing without a commit. Safe to call more than once."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if not self.closed:
            self.abort()


class ResultWriter(StreamingResultWriter[Path]):
    """An EvalSetResult document written to ``path`` piece by piece.

    ``add`` appends one case result, ``commit`` writes the summary and the remaining keys and atomically replaces
    ``path``; ``abort`` (or leaving the ``with`` block without a commit) deletes the temporary file and leaves
    ``path`` untouched. ``durable=False`` skips the fsyncs (the rename is still atomic).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        eval_set_id: str,
        eval_set_result_id: str,
        eval_set_result_name: str = "",
        durable: bool = True,
    ) -> None:
        self._file = AtomicFile(path, durable=durable)
        self.path = self._file.path
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._encoder = ResultEncoder(
            self._write,
            eval_set_id=eval_set_id,
            eval_set_result_id=eval_set_result_id,
            eval_set_result_name=eval_set_result_name,
        )

    def _write(self, data: bytes) -> None:
        self._buffer.append(data)
        self._buffered += len(data)
        if self._buffered >= _FLUSH_BYTES:
            self._flush()

    def _flush(self) -> None:
        self._file.write(b"".join(self._buffer))
        self._buffer.clear()
        self._buffered = 0

    @property
    def count(self) -> int:
        """How many case results were added."""
        return self._encoder.count

    @property
    def closed(self) -> bool:
        """True once the document was committed or aborted."""
        return self._file.closed

    def add(self, case: EvalCaseResult, dumped: dict[str, Any] | None = None) -> None:
        """Append one case result to the document (``dumped``: see :meth:`ResultEncoder.add`)."""
        self._encoder.add(case, dumped)

    def add_json(self, placed: bytes) -> None:
        """Append one case result given as :func:`case_json` makes it (see :meth:`ResultEncoder.add_json`)."""
        self._encoder.add_json(placed)

    def _end(self, ending: ResultEnding) -> Path:
        """Finish the document and move it into place; return the path (``interrupted`` adds ``"interrupted":
        true``, ``cancelled`` ``"cancelled": true``)."""
        try:
            self._encoder.finish(ending)
            self._flush()
        except BaseException:
            self.abort()
            raise
        return self._file.commit()

    def abort(self) -> None:
        """Drop the temporary file (``path`` is left as it was). Safe to call more than once."""
        self._buffer.clear()
        self._file.abort()

    def __repr__(self) -> str:
        return f"ResultWriter({os.fspath(self.path)!r}, cases={self.count})"
