"""Reports of results too large to hold: case results are read one at a time and every report is written as they
pass, so memory holds only the aggregated view (per-case statuses and per-metric scores).

:func:`scan_result_file` reads a result file once, checking every case and building the :class:`ResultView`;
:func:`stream_reports` then reads it again and fans each case out to the detailed terminal view and to the JUnit,
Markdown and HTML writers. JUnit spools its ``<testcase>`` elements to a temporary file (its counts come first in
the document); Markdown and HTML write their summary first from the view, then each case as it comes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, BinaryIO, Protocol

from .._util.fileio import AtomicFile
from ..errors import InputError
from ..model import EvalCaseResult, EvalCaseSummary, EvalSetResult
from ._html import html_case
from ._html_page import HTML_TAIL, html_head
from ._junit import JUnitWriter
from ._markdown import markdown_case, markdown_head, markdown_tail
from ._terminal import print_case
from ._view import ResultView

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..formats._result_stream import ResultStream

__all__ = ["scan_result_file", "stream_json", "stream_reports"]


class _TextTarget:
    """A report file written in pieces (see :class:`~agentgauge._util.fileio.AtomicFile`: through symbolic links, never
    onto a FIFO or device, secrets masked, renamed into place at the end)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self._file = AtomicFile(path)  # NotARegularFileError (an OSError) for a FIFO, device, ...: exit 2 in the CLI
        self.path = self._file.path

    def write(self, text: str) -> None:
        self._file.write(text.encode("utf-8"))

    def commit(self) -> None:
        self._file.commit()

    def abort(self) -> None:
        self._file.abort()


class _Sink(Protocol):
    """Where streamed case results go (a report being written)."""

    def add(self, case: EvalCaseResult) -> None:
        """Take one case result."""
        ...

    def finish(self) -> None:
        """Complete the report."""
        ...

    def abort(self) -> None:
        """Drop the unfinished report."""
        ...


class _MarkdownSink(_Sink):
    def __init__(self, target: _TextTarget, view: ResultView) -> None:
        self.target, self.view = target, view
        # Every piece ends with a newline; the document ends without the last one (as render_markdown's).
        self._pending = markdown_head(view)

    def _put(self, text: str) -> None:
        if text:
            self.target.write(self._pending)
            self._pending = text

    def add(self, case: EvalCaseResult) -> None:
        self._put(markdown_case(case, self.view))

    def finish(self) -> None:
        self._put(markdown_tail(self.view))
        self.target.write(self._pending[:-1])
        self.target.commit()

    def abort(self) -> None:
        self.target.abort()


class _HtmlSink(_Sink):
    def __init__(self, target: _TextTarget, view: ResultView) -> None:
        self.target, self.view = target, view
        self.order = 0
        target.write(html_head(view))

    def add(self, case: EvalCaseResult) -> None:
        self.target.write(html_case(case, self.view, self.order))
        self.order += 1

    def finish(self) -> None:
        self.target.write(HTML_TAIL)
        self.target.commit()

    def abort(self) -> None:
        self.target.abort()


class _JUnitSink(_Sink):
    def __init__(self, target: _TextTarget, view: ResultView, *, per_run: bool = False) -> None:
        self.target = target
        self.writer = JUnitWriter(view.result, view, per_run=per_run)

    def add(self, case: EvalCaseResult) -> None:
        self.writer.add(case)

    def finish(self) -> None:
        for chunk in self.writer.chunks():
            self.target.write(chunk)
        self.target.commit()

    def abort(self) -> None:
        self.target.abort()


_SINKS: dict[str, Callable[[_TextTarget, ResultView], _Sink]] = {
    "markdown": _MarkdownSink,
    "html": _HtmlSink,
    "junit": _JUnitSink,
}


def stream_reports(
    view: ResultView,
    cases: Iterable[EvalCaseResult],
    reports: Iterable[tuple[str | os.PathLike[str], str]] = (),
    *,
    console: Console | None = None,
    junit_runs: bool = False,
) -> None:
    """Pass ``cases`` once, printing each in detail to ``console`` (when given) and adding it to every report of
    ``reports`` (``(path, format)``, format ``junit``, ``markdown`` or ``html``), each written atomically at the end;
    ``junit_runs``: one JUnit ``<testcase>`` per case run instead of per case.
    """
    sinks: list[_Sink] = []
    try:
        for path, fmt in reports:
            if fmt not in _SINKS:
                raise InputError(f"unknown report format {fmt!r}: expected one of {', '.join(_SINKS)}")
            target = _TextTarget(path)
            sinks.append(_JUnitSink(target, view, per_run=junit_runs) if fmt == "junit" else _SINKS[fmt](target, view))
        for case in cases:
            if console is not None:
                print_case(case, view.multi_run, console)
                console.print()
            for sink in sinks:
                sink.add(case)
        for sink in sinks:
            sink.finish()
    except BaseException:
        for sink in sinks:
            sink.abort()
        raise


def scan_result_file(path: str | os.PathLike[str]) -> tuple[ResultStream, ResultView] | None:
    """Read a result file case by case, checking each, and return the stream (to read it again) and its view.

    Each case result leaves only its compact row (see :class:`~agentgauge.summary.RowTable`), so the view of a
    million-case file costs a few hundred bytes per case. ``None`` when the file is not a plain result object or a
    case does not convert: read it whole instead (that reports any error exactly).
    """
    from ..formats._result_stream import NotStreamable, stream_result
    from ..model import DEFAULT_CASE_STATUS
    from ..summary import RowTable, case_row, summarize_rows
    from ._view import view_from_rows

    stream = stream_result(path)
    if stream is None:
        return None
    table = RowTable()
    try:
        for case in stream.cases():
            table.append(case_row(case))
    except (NotStreamable, InputError, OSError):
        return None
    header = stream.header
    assert header is not None
    # Cases in file order; a case's status is the file summary's when it has one, else decided by the file's rule
    # (as result_summary decides for a result held whole).
    saved = header.summary
    num_runs = saved.num_runs if saved else 1
    rule = (saved.case_status_rule if saved else None) or DEFAULT_CASE_STATUS
    summary = summarize_rows(table, case_ids=table.eval_ids, num_runs=num_runs, rule=rule, saved=stream.case_status)
    return stream, view_from_rows(header, summary)


def stream_json(
    header: EvalSetResult,
    cases: Iterable[EvalCaseResult],
    out: BinaryIO,
    case_summaries: Iterable[EvalCaseSummary] = (),
    view: ResultView | None = None,
) -> None:
    """Write the result as JSON to ``out`` case by case (the layout of a saved result file); ``case_summaries``
    are appended to the header summary's own per-case entries. With the result's ``view`` the summary gets
    ``statistics`` (intervals, flaky cases), as :func:`~agentgauge.reporting.render` gives it."""
    from ..formats._result_writer import ResultEncoder, ResultEnding

    encoder = ResultEncoder(
        out.write,
        eval_set_id=header.eval_set_id,
        eval_set_result_id=header.eval_set_result_id,
        eval_set_result_name=header.eval_set_result_name,
    )
    for case in cases:
        encoder.add(case)
    summary = header.summary
    if summary is not None and view is not None and len(view.cases):
        from ._intervals import intervals_document

        summary = summary.model_copy()
        setattr(summary, "statistics", intervals_document(view))  # noqa: B010 - an extra key, before per-case entries
    encoder.finish(
        ResultEnding(
            summary=summary,
            case_summaries=case_summaries,
            creation_timestamp=header.creation_timestamp,
            interrupted=header.interrupted,
            cancelled=header.cancelled,
        )
    )
