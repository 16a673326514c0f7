"""``agentgauge eval --baseline``: compare the new result with an earlier one, in the terminal summary and in the
``--html`` / ``--markdown`` reports (rendered by :mod:`agentgauge.compare`), and ``--fail-on-regression``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..compare import Comparison
    from ..model import EvalSetResult
    from ..run._result import EvaluationResult

__all__ = ["Baseline", "insert_before_body_end", "load_baseline"]

_COPY_CHUNK = 1 << 20
_BODY_END = b"</body>"


@dataclass
class Baseline:
    """The result of ``--baseline`` and the comparisons made with it during this command."""

    result: EvalSetResult
    source: str
    """How the baseline was named: its file, or its id in the store."""
    fail_on_regression: bool = False
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The baseline's result id (its file when it has none)."""
        return self.result.eval_set_result_id or self.source

    @property
    def regressed(self) -> bool:
        """True when a case that passed in the baseline does not pass in a new result."""
        return any(c.regressed for c in self.comparisons)

    def applies_to(self, outcome: EvaluationResult, several: bool) -> bool:
        """One eval set: always compared (a different set gets a note); several: only the baseline's eval set."""
        return not several or outcome.eval_set_id == self.result.eval_set_id

    def add(
        self, outcome: EvaluationResult, reports: list[tuple[Path, str]], console: Console, *, several: bool
    ) -> None:
        """Compare ``outcome`` with the baseline: print the short block and add the section to the reports."""
        from ..compare import compare_results

        if not self.applies_to(outcome, several):
            return
        new = outcome.eval_set_result
        comparison = compare_results(
            self.result, new, base_source=self.source, new_source=new.eval_set_result_id or outcome.eval_set_id
        )
        self.comparisons.append(comparison)
        print_block(comparison, self.label, console)
        for path, fmt in reports:
            add_to_report(comparison, self.label, path, fmt)


def load_baseline(spec: str, output_dir: Path, result_store: Any, *, fail_on_regression: bool) -> Baseline:
    """Read the baseline before anything runs: a result file, a result id in ``result_store`` (``--store``) or a
    result id saved under ``output_dir``. Bad input raises :class:`~agentgauge.errors.InputError` (exit 2)."""
    from ._targets import load_result_spec

    result, source = load_result_spec(spec, output_dir, results=result_store)
    return Baseline(result, source, fail_on_regression)


def print_block(comparison: Comparison, label: str, console: Console) -> None:
    """``Compared with <id>: N fixed, M broken`` and one line per broken case with its reason."""
    from ..compare import ChangeKind

    fixed, broken = comparison.count(ChangeKind.FIXED), comparison.count(ChangeKind.BROKEN)
    not_run = comparison.count(ChangeKind.NOT_RUN)  # a run of selected cases: the others are no regression
    style = "bold red" if broken else "bold green"
    tail = f" ({not_run} not run)" if not_run else ""
    print_line(console, f"Compared with {label}: {fixed} fixed, {broken} broken{tail}", style=style)
    for case in comparison.cases:
        if case.change is ChangeKind.BROKEN:
            reason = f": {case.reason}" if case.reason else ""
            console.print(f"  broken: {case.eval_id}{reason}", highlight=False, soft_wrap=True, markup=False)
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
