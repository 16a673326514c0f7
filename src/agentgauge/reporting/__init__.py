"""Reports of evaluation results: terminal summary (rich), JSON, JUnit XML, Markdown and self-contained HTML.

``print_summary`` writes to a rich console; ``render`` returns a document as a string and ``write_report`` writes it
to a file atomically. All formats are built from the same aggregation, so their numbers agree.
"""

from ..summary._reasons import (
    Mismatch,
    case_failure_text,
    case_mismatches,
    format_tool_call,
    group_mismatches,
    mismatch_text,
)
from ._links import case_link, replay_link, ui_links
from ._render import FORMATS, ReportFormat, render, write_report
from ._terminal import print_summary
from ._view import ResultView, build_view, view_from_rows

__all__ = [
    "FORMATS",
    "Mismatch",
    "ReportFormat",
    "ResultView",
    "build_view",
    "case_failure_text",
    "case_link",
    "case_mismatches",
    "format_tool_call",
    "group_mismatches",
    "mismatch_text",
    "print_summary",
    "render",
    "replay_link",
    "ui_links",
    "view_from_rows",
    "write_report",
]
