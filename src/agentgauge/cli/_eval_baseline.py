"""``agentgauge eval --baseline``: the comparison of the new result with an earlier one (made by the run, see
:class:`agentgauge.launch.Baseline`) shown in the terminal summary and in the ``--html`` / ``--markdown`` reports
(rendered by :mod:`agentgauge.compare`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ._common import print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..compare import Comparison
    from ..launch import Compared

__all__ = ["insert_before_body_end", "show_comparison"]

_COPY_CHUNK = 1 << 20
_BODY_END = b"</body>"


def show_comparison(compared: Compared, reports: list[tuple[Path, str]], console: Console) -> None:
    """An eval set's comparison with the baseline: the short block after its summary, the section in its reports."""
    print_block(compared.comparison, compared.label, console)
    for path, fmt in reports:
        add_to_report(compared.comparison, compared.label, path, fmt)


def print_block(comparison: Comparison, label: str, console: Console) -> None:
    """``Compared with <id>: N fixed, M broken[, K within noise]``, one line per broken case with its reason, the
    gate's verdict (when it sets the exit code) and the flips within noise."""
    from ..compare import ChangeKind, FailOn, gate_lines

    fixed, broken = comparison.count(ChangeKind.FIXED), comparison.count(ChangeKind.BROKEN)
    noise = comparison.count(ChangeKind.WITHIN_NOISE)
    not_run = comparison.count(ChangeKind.NOT_RUN)  # a run of selected cases: the others are no regression
    style = "bold red" if broken else "bold green"
    counts = f"{fixed} fixed, {broken} broken" + (f", {noise} within noise" if noise else "")
    tail = f" ({not_run} not run)" if not_run else ""
    print_line(console, f"Compared with {label}: {counts}{tail}", style=style)
    for case in comparison.cases:
        if case.change is ChangeKind.BROKEN:
            reason = f": {case.reason}" if case.reason else ""
            console.print(f"  broken: {case.eval_id}{reason}", highlight=False, soft_wrap=True, markup=False)
    listed = comparison.gate is not None and comparison.gate.fail_on == FailOn.BROKEN  # its findings are above
    for line in gate_lines(comparison):
        if not (listed and line.startswith("  ")):
            console.print(f"  {line}", highlight=False, soft_wrap=True, markup=False)
    for note in comparison.notes:
        if not note.startswith("some cases ran once"):  # the full output of `agentgauge compare` has that one
            console.print(f"  Note: {note}", highlight=False, soft_wrap=True, markup=False)


def add_to_report(comparison: Comparison, label: str, path: Path, fmt: str) -> None:
    """Add the comparison section to a written report: at the end of a Markdown file, before ``</body>`` of an
    HTML page (copied piecewise, so a large report is never held in memory). Other formats are left as they are."""
    from ..compare import render_html_section, render_markdown

    title = f"Comparison with {label}"
    if fmt == "markdown":
        insert_before_body_end(path, ("\n" + render_markdown(comparison, title=title, level=3)).encode(), None)
    elif fmt == "html":
        insert_before_body_end(path, render_html_section(comparison, title=title).encode(), _BODY_END)


def _marker_offset(path: Path, marker: bytes | None) -> int:
    """Where ``marker`` last occurs in the file's tail (the file's end when absent or ``None``)."""
    size = path.stat().st_size
    if marker is None:
        return size
    with path.open("rb") as src:
        start = max(0, size - 4096)  # the page ends with its script, then </body></html>
        src.seek(start)
        tail = src.read()
    found = tail.rfind(marker)
    return size if found < 0 else start + found


def insert_before_body_end(path: Path, text: bytes, marker: bytes | None) -> None:
    """Rewrite ``path`` atomically with ``text`` inserted before the last ``marker`` of its end (appended when
    ``marker`` is ``None`` or not found)."""
    from .._util.fileio import AtomicFile

    offset = _marker_offset(path, marker)
    with path.open("rb") as src, AtomicFile(path) as out:
        left = offset
        while left > 0:
            chunk = src.read(min(_COPY_CHUNK, left))
            if not chunk:
                break
            out.write(chunk)
            left -= len(chunk)
        out.write(text)
        while chunk := src.read(_COPY_CHUNK):
            out.write(chunk)
