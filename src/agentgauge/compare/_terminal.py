"""A :class:`Comparison` on a rich console, laid out for the terminal's width.

Where the case table with its reasons fits, one table holds everything; where it does not (an 80-column terminal),
the table keeps the short columns and the reasons follow it as paragraphs (a reason squeezed into a narrow column
wraps mid-word). On a terminal, long lines wrap between words with a hanging indent; piped output keeps them whole
(one line per fact, for grep and logs).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING

from ._divergence import divergence_lines
from ._model import ChangeKind, Comparison, MetricDelta
from ._render import (
    LABEL,
    delta_text,
    estimate_lines,
    gate_lines,
    headline,
    metric_groups,
    not_run_lines,
    runs_cell,
    score_text,
    side_text,
    significance_lines,
    sorted_cases,
)

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

__all__ = ["print_comparison"]

_STYLE = {
    ChangeKind.BROKEN: "bold red",
    ChangeKind.FIXED: "bold green",
    ChangeKind.WITHIN_NOISE: "dim",
    ChangeKind.STILL_FAILING: "yellow",
    ChangeKind.STILL_PASSING: "green",
    ChangeKind.NEW: "cyan",
    ChangeKind.REMOVED: "magenta",
    ChangeKind.NOT_RUN: "dim",
}


def _case_table(comparison: Comparison, *, narrow: bool) -> Table:
    from rich.table import Table

    multi = max(comparison.base.num_runs, comparison.new.num_runs) > 1
    table = Table(title="Cases", title_justify="left")
    # An id is kept whole where it fits (it is what the reader searches for); the reason column wraps instead.
    longest = max((len(c.eval_id) for c in comparison.cases), default=4)
    table.add_column("Case", overflow="fold", min_width=min(longest, 24 if narrow else 40))
    table.add_column("Change", no_wrap=True)
    if narrow:
        table.add_column("Base -> new", overflow="fold")
    else:
        table.add_column("Base")
        table.add_column("New")
        if multi:
            table.add_column("Runs passed")
        table.add_column("Reason (new)", overflow="fold")
    for case in sorted_cases(comparison):
        base = case.base_status.value if case.base_status else "-"
        new = case.new_status.value if case.new_status else "-"
        row = [case.eval_id, f"[{_STYLE[case.change]}]{LABEL[case.change]}[/]"]
        if narrow:  # statuses, and under them the runs passed
            row.append(f"{base} -> {new}" + (f"\n{runs_cell(case, '->')}" if multi else ""))
        else:
            row += [base, new] + ([runs_cell(case, "->")] if multi else []) + [case.reason or ""]
        table.add_row(*row)
    return table


_REASON_WIDTH = 28  # the narrowest reason column that still reads as text


def _wide_table_width(comparison: Comparison) -> int:
    """The columns the one-table layout needs: ids whole (up to 40), the short columns whole, a reason column of at
    least ~28 (rich would clip the table past the edge rather than wrap a reason's words narrower)."""
    cases = sorted_cases(comparison)
    widths = [
        min(max((len(c.eval_id) for c in cases), default=4), 40),
        max((len(LABEL[c.change]) for c in cases), default=6),
        6,
        6,
        _REASON_WIDTH,
    ]
    if max(comparison.base.num_runs, comparison.new.num_runs) > 1:
        widths.append(max((len(runs_cell(c, "->")) for c in cases), default=11))
    return sum(widths) + 3 * len(widths) + 1  # a border and two spaces of padding per column, one closing border


def _print_reasons(comparison: Comparison, line: Callable[..., None]) -> None:
    """Each case's reason (new side) as a paragraph under its id."""
    reasons = [case for case in sorted_cases(comparison) if case.reason]
    if reasons:
        line("Reasons (new):", markup=False)
    for case in reasons:
        line(f"  {case.eval_id}", markup=False)
        line(f"    {case.reason}", markup=False, hang=0)


def _metric_table(title: str, deltas: list[MetricDelta]) -> Table:
    from rich.table import Table

    metrics = Table(title=title, title_justify="left")
    for column in ("Metric", "Base", "New", "Delta"):
        metrics.add_column(column, justify="left" if column == "Metric" else "right", overflow="fold")
    for m in deltas:
        style = "red" if m.delta is not None and m.delta < 0 else "green" if m.delta else ""
        style = "" if m.measurement else style  # a measurement's change is neither good nor bad
        metrics.add_row(
            m.metric_name,
            score_text(m.base_mean),
            score_text(m.new_mean),
            f"[{style}]{delta_text(m.delta)}[/]" if style else delta_text(m.delta),
        )
    return metrics


def print_comparison(comparison: Comparison, console: Console) -> None:
    """The comparison on a rich console: sides, a case table (regressions first), metric deltas, pass@k, notes."""
    narrow = _wide_table_width(comparison) > console.width
    wrap = narrow and console.is_terminal

    def line(text: str, *, markup: bool = True, hang: int = 4) -> None:
        if wrap and len(text) > console.width:  # between words, continuation lines indented under the first
            indent = " " * (len(text) - len(text.lstrip(" ")) + hang)
            text = textwrap.fill(text, width=console.width - 1, subsequent_indent=indent, break_long_words=False)
        console.print(text, highlight=False, soft_wrap=True, markup=markup)

    base, new = comparison.base, comparison.new
    line(f"Base: {base.source} ({side_text(base)})", markup=False)
    line(f"New:  {new.source} ({side_text(new)})", markup=False)
    console.print(_case_table(comparison, narrow=narrow))
    if narrow:
        _print_reasons(comparison, line)
    for text in not_run_lines(comparison):
        line(text, markup=False)
    for text in divergence_lines(sorted_cases(comparison)):
        line(text, markup=False)
    for title, deltas in metric_groups(comparison):
        console.print(_metric_table(title, deltas))
    for p in comparison.pass_at_k:
        console.print(
            f"pass@{p.k}: {p.base_pass_at_k:.3f} -> {p.new_pass_at_k:.3f}   "
            f"pass^{p.k}: {p.base_pass_hat_k:.3f} -> {p.new_pass_hat_k:.3f}",
            highlight=False,
        )
    for text in estimate_lines(comparison, narrow=narrow):
        line(text, markup=False)
    for text in significance_lines(comparison):
        line(text)
    for note in comparison.notes:
        line(f"Note: {note}")
    for text in gate_lines(comparison):
        line(text, markup=False)
    style = "bold red" if comparison.regressed else "bold green"
    console.print(f"[{style}]{headline(comparison)}[/]", highlight=False)
