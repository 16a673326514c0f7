"""``agentgauge eval --baseline``: compare the new result with an earlier one, in the terminal summary and in the
``--html`` / ``--markdown`` reports (rendered by :mod:`agentgauge.compare`), and with ``--fail-on`` (or its older
spelling ``--fail-on-regression``) let the comparison's gate set the exit code."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import print_line

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..compare import Comparison
    from ..run._result import EvaluationResult
    from ..storage import FoundResult, ResultCatalog, ResultSelector

__all__ = ["Baseline", "check_gate_options", "insert_before_body_end", "load_baseline"]

_COPY_CHUNK = 1 << 20
_BODY_END = b"</body>"


def check_gate_options(baseline: str | None, fail_on: str | None, fail_on_regression: bool, alpha: float) -> None:
    """Refuse, before anything runs, gate options without ``--baseline``, a rule ``--fail-on`` does not know, an
    ``--alpha`` that is no significance level and ``--fail-on-regression`` with another ``--fail-on`` rule."""
    from ..compare import FailOn, check_alpha, fail_on_rule
    from ..errors import InputError

    for given, name in ((fail_on_regression, "--fail-on-regression"), (fail_on is not None, "--fail-on")):
        if given and baseline is None:
            raise InputError(f"{name} needs --baseline RESULT_ID_OR_FILE")
    if fail_on is not None:
        fail_on_rule(fail_on)
        if fail_on_regression and fail_on != FailOn.BROKEN:
            raise InputError(f"--fail-on-regression is --fail-on broken: it cannot be given with --fail-on {fail_on}")
    check_alpha(alpha)


@dataclass
class Baseline:
    """The result of ``--baseline`` (named by a file or an id: read before the run; by ``label:`` or ``latest``:
    picked for each eval set after its run, among the results of that eval set), the gate rule (``None``: the exit
    code stays the cases') and the comparisons made with it during this command."""

    selector: ResultSelector
    catalog: ResultCatalog
    found: FoundResult | None = None
    """The baseline named by a file or an id (``None`` for ``label:`` and ``latest``)."""
    fail_on: str | None = None
    alpha: float = 0.05
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def gated(self) -> bool:
        """Whether the comparisons' gate sets the exit code (``--fail-on`` or ``--fail-on-regression``)."""
        return self.fail_on is not None

    @property
    def failed(self) -> bool:
        """True when a comparison fails its gate (by default: a case that passed in the baseline broke)."""
        return any(c.gate is not None and c.gate.failed for c in self.comparisons)

    def applies_to(self, outcome: EvaluationResult, several: bool) -> bool:
        """A named baseline: with one eval set always compared (a different set gets a note), with several only
        its own eval set; a picked one (``label:``, ``latest``): every eval set, each with its own."""
        if self.found is None or not several:
            return True
        return outcome.eval_set_id == self.found.load().eval_set_id

    def _against(self, outcome: EvaluationResult, console: Console) -> FoundResult | None:
        """The result to compare ``outcome`` with: the named one, or the newest of its eval set before it."""
        if self.found is not None:
            return self.found
        from ..errors import InputError, NotFoundError
        from ..storage import resolve_result

        new_id = outcome.eval_set_result.eval_set_result_id
        try:
            return resolve_result(self.selector, self.catalog, eval_set_id=outcome.eval_set_id, exclude=[new_id])
        except (InputError, NotFoundError) as exc:
            print_line(console, f"Not compared with --baseline {exc}", style="yellow")
            return None

    def add(
        self, outcome: EvaluationResult, reports: list[tuple[Path, str]], console: Console, *, several: bool
    ) -> None:
        """Compare ``outcome`` with the baseline: print the short block and add the section to the reports."""
        from ..compare import compare_results

        if not self.applies_to(outcome, several):
            return
        against = self._against(outcome, console)
        if against is None:
            return
        new = outcome.eval_set_result
        before = against.load()
        comparison = compare_results(
            before,
            new,
            base_source=against.source,
            new_source=new.eval_set_result_id or outcome.eval_set_id,
            alpha=self.alpha,
            fail_on=self.fail_on,
        )
        self.comparisons.append(comparison)
        label = before.eval_set_result_id or against.source
        print_block(comparison, label, console)
        for path, fmt in reports:
            add_to_report(comparison, label, path, fmt)


def load_baseline(
    spec: str,
    output_dir: Path,
    result_store: Any,
    *,
    app_name: str | None = None,
    fail_on: str | None = None,
    fail_on_regression: bool = False,
    alpha: float = 0.05,
) -> Baseline:
    """The baseline, checked before anything runs: a file or an id is read now; a ``label:`` or ``latest``
    selector must match some result now (the newest of each eval set run is picked after its run). Bad input
    raises :class:`~agentgauge.errors.InputError` / :class:`~agentgauge.errors.NotFoundError` (exit 2).
    ``--fail-on-regression`` is ``--fail-on broken``."""
    from ..compare import FailOn
    from ..storage import parse_result_selector, resolve_result
    from ._selectors import result_catalog

    selector = parse_result_selector(spec)
    catalog = result_catalog([spec], output_dir, None, app_name, results=result_store)
    found = resolve_result(selector, catalog)  # a picked one is only checked here: it is picked again per set
    rule = FailOn.BROKEN.value if fail_on_regression and fail_on is None else fail_on
    if not selector.picks_newest:
        found.load()  # an invalid file is refused now, not after the run
    return Baseline(selector, catalog, None if selector.picks_newest else found, rule, alpha)


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
