"""Rendering a result in a named format and writing it to a file atomically."""

from __future__ import annotations

import os
from typing import Literal, get_args

from ..errors import InputError
from ..model import EvalSetResult

__all__ = ["FORMATS", "ReportFormat", "render", "write_report"]

ReportFormat = Literal["json", "junit", "markdown", "html"]
"""The file formats :func:`render` and :func:`write_report` produce."""

FORMATS: tuple[str, ...] = get_args(ReportFormat)


def render(result: EvalSetResult, fmt: ReportFormat, *, junit_runs: bool = False) -> str:
    """``result`` as a document in ``fmt``: ``json`` (the EvalSetResult itself, camelCase, secrets blanked),
    ``junit`` (JUnit XML: one ``<testcase>`` per eval case, or per case run with ``junit_runs``), ``markdown`` or
    ``html`` (one self-contained page).

    An unknown format raises :class:`~agentgauge.errors.InputError` listing the valid ones.
    """
    # Each renderer is imported when asked for: most runs write no report file (~10 ms of imports saved).
    if fmt == "json":
        return _json_report(result)
    if fmt == "junit":
        from ._junit import render_junit

        return render_junit(result, per_run=junit_runs)
    if fmt == "markdown":
        from ._markdown import render_markdown

        return render_markdown(result)
    if fmt == "html":
        from ._html_page import render_html

        return render_html(result)
    raise InputError(f"unknown report format {fmt!r}: expected one of {', '.join(FORMATS)}")


def _json_report(result: EvalSetResult) -> str:
    """The result as JSON, its summary extended with ``statistics`` (intervals and flaky cases)."""
    import json

    from ._intervals import intervals_document
    from ._view import build_view

    document = result.model_dump(mode="json")
    summary = document.get("summary")
    if summary is not None and result.eval_case_results:
        # Before the per-case entries, where the streamed JSON of a large result puts it too (stream_json).
        cases = summary.pop("evalCaseSummaries", [])
        summary["statistics"] = intervals_document(build_view(result))
        summary["evalCaseSummaries"] = cases
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_report(
    result: EvalSetResult, path: str | os.PathLike[str], fmt: ReportFormat, *, junit_runs: bool = False
) -> None:
    """Render ``result`` in ``fmt`` and write it to ``path`` atomically (parent directories are created)."""
    from .._util.fileio import atomic_write

    atomic_write(path, render(result, fmt, junit_runs=junit_runs).encode("utf-8"))
