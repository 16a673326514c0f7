"""A :class:`Comparison` as terminal output (rich), Markdown and a small self-contained HTML page."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from ._model import CaseChange, ChangeKind, Comparison

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

__all__ = ["headline", "not_run_lines", "print_comparison", "render_html", "render_html_section", "render_markdown"]

_LABEL = {
    ChangeKind.BROKEN: "broken",
    ChangeKind.FIXED: "fixed",
    ChangeKind.STILL_FAILING: "still failing",
    ChangeKind.STILL_PASSING: "still passing",
    ChangeKind.NEW: "new",
    ChangeKind.REMOVED: "removed",
    ChangeKind.NOT_RUN: "not run",
}
_STYLE = {
    ChangeKind.BROKEN: "bold red",
    ChangeKind.FIXED: "bold green",
    ChangeKind.STILL_FAILING: "yellow",
    ChangeKind.STILL_PASSING: "green",
    ChangeKind.NEW: "cyan",
    ChangeKind.REMOVED: "magenta",
    ChangeKind.NOT_RUN: "dim",
}
# Most important first: what a reader must act on leads the table.
_ORDER = [
    ChangeKind.BROKEN,
    ChangeKind.FIXED,
    ChangeKind.STILL_FAILING,
    ChangeKind.NEW,
    ChangeKind.REMOVED,
    ChangeKind.STILL_PASSING,
]


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _delta(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def _runs(passed: int, runs: int, present: bool) -> str:
    return f"{passed}/{runs}" if present else "-"


_LISTED = 20  # not-run case ids shown before "and N more"


def _sorted(comparison: Comparison) -> list[CaseChange]:
    """The compared cases, most important first; cases not run on one side are listed apart (:func:`not_run_lines`)."""
    rank = {kind: i for i, kind in enumerate(_ORDER)}
    compared = [c for c in comparison.cases if c.change is not ChangeKind.NOT_RUN]
    return sorted(compared, key=lambda c: rank[c.change])  # stable: file order within a kind


def headline(comparison: Comparison) -> str:
    """One line: counts per kind of change, and whether anything regressed (cases not run are counted apart)."""
    parts = [f"{comparison.count(kind)} {_LABEL[kind]}" for kind in _ORDER if comparison.count(kind)]
    verdict = "REGRESSED" if comparison.regressed else "no regression"
    not_run = comparison.count(ChangeKind.NOT_RUN)
    tail = f" ({not_run} not run)" if not_run else ""
    return f"{verdict}: " + (", ".join(parts) if parts else "no cases compared" if not_run else "no cases") + tail


def not_run_lines(comparison: Comparison) -> list[str]:
    """``Not run in new: a, b, c`` (and for base): the cases one side ran and the other did not select."""
    lines = []
    for side in ("new", "base"):
        ids = comparison.not_run(side)
        if ids:
            shown = ", ".join(ids[:_LISTED]) + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")
            lines.append(f"Not run in {side} ({len(ids)}, not compared): {shown}")
    return lines


def _significance_lines(comparison: Comparison) -> list[str]:
    lines = []
    if comparison.significance is not None:
        s = comparison.significance
        lines.append(f"Significance (exact McNemar test, cases): p = {s.p_value:.3g}, {s.note}")
    for case in comparison.cases:
        same_rate = case.base_passed_runs * case.new_runs == case.new_passed_runs * case.base_runs
        if case.significance is not None and not same_rate:  # only the cases whose pass rate moved
            s = case.significance
            lines.append(f"  {case.eval_id} (Fisher exact test, runs): p = {s.p_value:.3g}, {s.note}")
    return lines


def print_comparison(comparison: Comparison, console: Console) -> None:
    """The comparison on a rich console: sides, a case table (regressions first), metric deltas, pass@k, notes."""
    from rich.table import Table

    base, new = comparison.base, comparison.new
    console.print(
        f"Base: {base.source} ({base.passed_cases}/{base.cases} cases passed)", highlight=False, soft_wrap=True
    )
    console.print(f"New:  {new.source} ({new.passed_cases}/{new.cases} cases passed)", highlight=False, soft_wrap=True)
    multi = max(base.num_runs, new.num_runs) > 1
    table = Table(title="Cases", title_justify="left")
    # An id is kept whole where it fits (it is what the reader searches for); the reason column wraps instead.
    longest = max((len(c.eval_id) for c in comparison.cases), default=4)
    table.add_column("Case", overflow="fold", min_width=min(longest, 40))
    table.add_column("Change", no_wrap=True)
    table.add_column("Base")
    table.add_column("New")
    if multi:
        table.add_column("Runs passed")
    table.add_column("Reason (new)", overflow="fold")
    for case in _sorted(comparison):
        row = [
            case.eval_id,
            f"[{_STYLE[case.change]}]{_LABEL[case.change]}[/]",
            case.base_status.value if case.base_status else "-",
            case.new_status.value if case.new_status else "-",
        ]
        if multi:
            row.append(
                f"{_runs(case.base_passed_runs, case.base_runs, case.base_status is not None)} -> "
                f"{_runs(case.new_passed_runs, case.new_runs, case.new_status is not None)}"
            )
        row.append(case.reason or "")
        table.add_row(*row)
    console.print(table)
    for line in not_run_lines(comparison):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    if comparison.metrics:
        metrics = Table(title="Metric means (cases on both sides)", title_justify="left")
        for column in ("Metric", "Base", "New", "Delta"):
            metrics.add_column(column, justify="left" if column == "Metric" else "right")
        for m in comparison.metrics:
            style = "red" if m.delta is not None and m.delta < 0 else "green" if m.delta else ""
            metrics.add_row(
                m.metric_name,
                _score(m.base_mean),
                _score(m.new_mean),
                f"[{style}]{_delta(m.delta)}[/]" if style else _delta(m.delta),
            )
        console.print(metrics)
    for p in comparison.pass_at_k:
        console.print(
            f"pass@{p.k}: {p.base_pass_at_k:.3f} -> {p.new_pass_at_k:.3f}   "
            f"pass^{p.k}: {p.base_pass_hat_k:.3f} -> {p.new_pass_hat_k:.3f}",
            highlight=False,
        )
    for line in _significance_lines(comparison):
        console.print(line, highlight=False, soft_wrap=True)
    for note in comparison.notes:
        console.print(f"Note: {note}", highlight=False, soft_wrap=True)
    style = "bold red" if comparison.regressed else "bold green"
    console.print(f"[{style}]{headline(comparison)}[/]", highlight=False)


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(comparison: Comparison, *, title: str = "Comparison", level: int = 1) -> str:
    """The comparison as a Markdown document (GitHub-flavoured tables) headed ``title`` at heading ``level`` (2 for
    a section of another document, e.g. the report of ``eval --baseline``)."""
    base, new = comparison.base, comparison.new
    lines = [
        f"{'#' * level} {_md(title)}",
        "",
        f"**{headline(comparison)}**",
        "",
        f"- Base: `{_md(base.source)}`: {base.passed_cases}/{base.cases} cases passed",
        f"- New: `{_md(new.source)}`: {new.passed_cases}/{new.cases} cases passed",
        "",
        "| Case | Change | Base | New | Runs passed | Reason (new) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for case in _sorted(comparison):
        runs = (
            f"{_runs(case.base_passed_runs, case.base_runs, case.base_status is not None)} → "
            f"{_runs(case.new_passed_runs, case.new_runs, case.new_status is not None)}"
        )
        lines.append(
            f"| {_md(case.eval_id)} | {_LABEL[case.change]} | {case.base_status.value if case.base_status else '-'} "
            f"| {case.new_status.value if case.new_status else '-'} | {runs} | {_md(case.reason or '')} |"
        )
    for line in not_run_lines(comparison):
        lines += ["", _md(line)]
    if comparison.metrics:
        lines += ["", "| Metric | Base | New | Delta |", "| --- | ---: | ---: | ---: |"]
        lines += [
            f"| {_md(m.metric_name)} | {_score(m.base_mean)} | {_score(m.new_mean)} | {_delta(m.delta)} |"
            for m in comparison.metrics
        ]
    if comparison.pass_at_k:
        lines += [
            "",
            "| k | pass@k base | pass@k new | pass^k base | pass^k new |",
            "| ---: | ---: | ---: | ---: | ---: |",
        ]
        lines += [
            f"| {p.k} | {p.base_pass_at_k:.3f} | {p.new_pass_at_k:.3f} "
            f"| {p.base_pass_hat_k:.3f} | {p.new_pass_hat_k:.3f} |"
            for p in comparison.pass_at_k
        ]
    extra = _significance_lines(comparison) + [f"Note: {n}" for n in comparison.notes]
    if extra:
        lines.append("")
        lines += [f"- {_md(line.strip())}" for line in extra]
    return "\n".join(lines) + "\n"


_PAGE_CSS = "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
# Scoped to the section, so it can sit inside another page (the HTML report of `eval --baseline`) without
# restyling that page.
_CSS = """
.comparison table{border-collapse:collapse;margin:1em 0}
.comparison th,.comparison td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.comparison th{background:#f3f3f3}
.comparison td.num{text-align:right;font-variant-numeric:tabular-nums}
.comparison .broken{color:#b00020;font-weight:bold}.comparison .fixed{color:#1b7f1b;font-weight:bold}
.comparison .still_failing{color:#a66b00}.comparison .still_passing{color:#1b7f1b}
.comparison .new{color:#006b8f}.comparison .removed{color:#7a1f7a}.comparison .not_run{color:#666}
.comparison .neg{color:#b00020}.comparison .pos{color:#1b7f1b}
.comparison .verdict{font-size:1.2em;font-weight:bold}
.comparison .regressed{color:#b00020}.comparison .ok{color:#1b7f1b}
"""


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def render_html_section(comparison: Comparison, *, title: str = "Comparison", level: int = 2) -> str:
    """The comparison as one ``<section class="comparison">`` with its own scoped style (no script, every value
    escaped), headed ``title`` at heading ``level``: for embedding in another page."""
    base, new = comparison.base, comparison.new
    verdict_class = "regressed" if comparison.regressed else "ok"
    h, sub = f"h{level}", f"h{min(level + 1, 6)}"
    out = [
        f'<section class="comparison" id="comparison"><style>{_CSS}</style>',
        f"<{h}>{_h(title)}</{h}>",
        f'<p class="verdict {verdict_class}">{_h(headline(comparison))}</p>',
        "<ul>",
        f"<li>Base: <code>{_h(base.source)}</code>: {base.passed_cases}/{base.cases} cases passed</li>",
        f"<li>New: <code>{_h(new.source)}</code>: {new.passed_cases}/{new.cases} cases passed</li>",
        "</ul>",
        f"<{sub}>Cases</{sub}>",
        "<table><thead><tr><th>Case</th><th>Change</th><th>Base</th><th>New</th><th>Runs passed</th>"
        "<th>Reason (new)</th></tr></thead><tbody>",
    ]
    for case in _sorted(comparison):
        runs = (
            f"{_runs(case.base_passed_runs, case.base_runs, case.base_status is not None)} → "
            f"{_runs(case.new_passed_runs, case.new_runs, case.new_status is not None)}"
        )
        out.append(
            f'<tr><td>{_h(case.eval_id)}</td><td class="{case.change.value}">{_h(_LABEL[case.change])}</td>'
            f"<td>{_h(case.base_status.value if case.base_status else '-')}</td>"
            f"<td>{_h(case.new_status.value if case.new_status else '-')}</td>"
            f'<td class="num">{_h(runs)}</td><td>{_h(case.reason or "")}</td></tr>'
        )
    out.append("</tbody></table>")
    out += [f'<p class="not_run">{_h(line)}</p>' for line in not_run_lines(comparison)]
    if comparison.metrics:
        out.append(f"<{sub}>Metric means (cases on both sides)</{sub}>")
        out.append("<table><thead><tr><th>Metric</th><th>Base</th><th>New</th><th>Delta</th></tr></thead><tbody>")
        for m in comparison.metrics:
            sign = "neg" if m.delta is not None and m.delta < 0 else "pos" if m.delta else ""
            out.append(
                f'<tr><td>{_h(m.metric_name)}</td><td class="num">{_score(m.base_mean)}</td>'
                f'<td class="num">{_score(m.new_mean)}</td><td class="num {sign}">{_delta(m.delta)}</td></tr>'
            )
        out.append("</tbody></table>")
    if comparison.pass_at_k:
        out.append(f"<{sub}>pass@k</{sub}><table><thead><tr><th>k</th><th>pass@k base</th><th>pass@k new</th>")
        out.append("<th>pass^k base</th><th>pass^k new</th></tr></thead><tbody>")
        out += [
            f'<tr><td class="num">{p.k}</td><td class="num">{p.base_pass_at_k:.3f}</td>'
            f'<td class="num">{p.new_pass_at_k:.3f}</td><td class="num">{p.base_pass_hat_k:.3f}</td>'
            f'<td class="num">{p.new_pass_hat_k:.3f}</td></tr>'
            for p in comparison.pass_at_k
        ]
        out.append("</tbody></table>")
    extra = _significance_lines(comparison) + [f"Note: {n}" for n in comparison.notes]
    if extra:
        out.append(f"<{sub}>Significance and notes</{sub}><ul>")
        out += [f"<li>{_h(line.strip())}</li>" for line in extra]
        out.append("</ul>")
    out.append("</section>")
    return "\n".join(out) + "\n"


def render_html(comparison: Comparison) -> str:
    """The comparison as one self-contained HTML page (inline CSS, no script, every value escaped)."""
    base, new = comparison.base, comparison.new
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>Comparison: {_h(base.eval_set_id)} → {_h(new.eval_set_id)}</title>\n"
        f"<style>{_PAGE_CSS}</style></head><body>\n"
        f"{render_html_section(comparison, level=1)}</body></html>\n"
    )
