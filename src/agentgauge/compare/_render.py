"""A :class:`Comparison` as Markdown and a small self-contained HTML page, and the lines shared with the terminal."""

from __future__ import annotations

import html

from ._divergence import divergence_lines
from ._model import CaseChange, ChangeKind, Comparison, MetricDelta, ResultRef

__all__ = [
    "LABEL",
    "ORDER",
    "estimate_lines",
    "gate_lines",
    "headline",
    "metric_groups",
    "not_run_lines",
    "render_html",
    "render_html_section",
    "render_markdown",
    "side_text",
]

LABEL = {
    ChangeKind.BROKEN: "broken",
    ChangeKind.FIXED: "fixed",
    ChangeKind.WITHIN_NOISE: "within noise",
    ChangeKind.STILL_FAILING: "still failing",
    ChangeKind.STILL_PASSING: "still passing",
    ChangeKind.NEW: "new",
    ChangeKind.REMOVED: "removed",
    ChangeKind.NOT_RUN: "not run",
}
# Most important first: what a reader must act on leads the table.
ORDER = [
    ChangeKind.BROKEN,
    ChangeKind.FIXED,
    ChangeKind.WITHIN_NOISE,
    ChangeKind.STILL_FAILING,
    ChangeKind.NEW,
    ChangeKind.REMOVED,
    ChangeKind.STILL_PASSING,
]


def score_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def delta_text(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def runs_text(passed: int, runs: int, present: bool) -> str:
    return f"{passed}/{runs}" if present else "-"


_LISTED = 20  # not-run case ids shown before "and N more"


def side_text(ref: ResultRef) -> str:
    """``6/6 cases passed`` and, with several runs, the case runs apart and the rule that decided the statuses:
    ``3/6 cases passed; 17/30 case runs passed; case status: mean of runs ≥ threshold``."""
    text = f"{ref.passed_cases}/{ref.cases} cases passed"
    if ref.num_runs > 1:
        text += f"; {ref.passed_case_runs}/{ref.case_runs} case runs passed"
        if ref.case_status_rule:
            text += f"; case status: {ref.case_status_rule}"
    return text


def metric_groups(comparison: Comparison) -> list[tuple[str, list[MetricDelta]]]:
    """The metric deltas to show, under their titles: the scored metrics, then the measurements apart (their
    deltas, labelled as measurements: no verdict)."""
    groups = [
        ("Metric means (cases on both sides)", [m for m in comparison.metrics if not m.measurement]),
        ("Measurements (informational, cases on both sides)", [m for m in comparison.metrics if m.measurement]),
    ]
    return [(title, metrics) for title, metrics in groups if metrics]


def sorted_cases(comparison: Comparison) -> list[CaseChange]:
    """The compared cases, most important first; cases not run on one side are listed apart (:func:`not_run_lines`)."""
    rank = {kind: i for i, kind in enumerate(ORDER)}
    compared = [c for c in comparison.cases if c.change is not ChangeKind.NOT_RUN]
    return sorted(compared, key=lambda c: rank[c.change])  # stable: file order within a kind


def headline(comparison: Comparison) -> str:
    """One line: counts per kind of change, and whether anything regressed (cases not run are counted apart)."""
    parts = [f"{comparison.count(kind)} {LABEL[kind]}" for kind in ORDER if comparison.count(kind)]
    verdict = "REGRESSED" if comparison.regressed else "no regression"
    not_run = comparison.count(ChangeKind.NOT_RUN)
    tail = f" ({not_run} not run)" if not_run else ""
    return f"{verdict}: " + (", ".join(parts) if parts else "no cases compared" if not_run else "no cases") + tail


def gate_verdict(comparison: Comparison) -> str:
    """``Gate: FAILED (--fail-on broken, alpha 0.05)`` (empty when the comparison was not judged)."""
    gate = comparison.gate
    if gate is None:
        return ""
    return f"Gate: {'FAILED' if gate.failed else 'passed'} (--fail-on {gate.fail_on}, alpha {gate.alpha:g})"


def gate_lines(comparison: Comparison) -> list[str]:
    """``Gate: FAILED (--fail-on broken, alpha 0.05): <the rule>`` and what failed it (when the comparison was
    judged), then the cases whose status flipped within noise with their runs passed."""
    lines = []
    gate = comparison.gate
    if gate is not None:
        lines.append(f"{gate_verdict(comparison)}: {gate.rule}")
        lines += [f"  {finding}" for finding in gate.findings]
    noise = [case for case in comparison.cases if case.change is ChangeKind.WITHIN_NOISE]
    if noise:
        shown = ", ".join(
            f"{c.eval_id} ({c.base_status.value if c.base_status else '-'} -> "
            f"{c.new_status.value if c.new_status else '-'}, {c.base_passed_runs}/{c.base_runs} -> "
            f"{c.new_passed_runs}/{c.new_runs})"
            for c in noise[:_LISTED]
        )
        more = f" and {len(noise) - _LISTED} more" if len(noise) > _LISTED else ""
        lines.append(
            f"Within noise: {len(noise)} case{'' if len(noise) == 1 else 's'} (the status flipped, but the pass "
            f"rate's change may be chance at {comparison.alpha:g}; never broken): {shown}{more}"
        )
    return lines


def not_run_lines(comparison: Comparison) -> list[str]:
    """``Not run in new: a, b, c`` (and for base): the cases one side ran and the other did not select."""
    lines = []
    for side in ("new", "base"):
        ids = comparison.not_run(side)
        if ids:
            shown = ", ".join(ids[:_LISTED]) + (f" and {len(ids) - _LISTED} more" if len(ids) > _LISTED else "")
            lines.append(f"Not run in {side} ({len(ids)}, not compared): {shown}")
    return lines


def runs_cell(case: CaseChange, arrow: str) -> str:
    """``5/5 -> 3/5 (flaky in new)``: runs passed on each side, and whether a side that did not pass every run is
    flaky (some runs passed) or broken (none did)."""
    text = (
        f"{runs_text(case.base_passed_runs, case.base_runs, case.base_status is not None)} {arrow} "
        f"{runs_text(case.new_passed_runs, case.new_runs, case.new_status is not None)}"
    )
    states = [
        f"{state.split(' ')[0]} in {side}"
        for side, state in (("base", case.base_runs_state), ("new", case.new_runs_state))
        if state
    ]
    return f"{text} ({', '.join(states)})" if states else text


def significance_lines(comparison: Comparison) -> list[str]:
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


def estimate_lines(comparison: Comparison, *, narrow: bool = False) -> list[str]:
    """The pass rate's and each metric's change with its paired bootstrap interval, and for a change the interval
    does not tell from chance, the cases needed to detect it (``narrow``: on a line of its own)."""
    shown = [e for e in comparison.estimates if e.delta is not None]
    if not shown:
        return []
    with_interval = [e for e in shown if e.low is not None]
    head = "Changes (new - base)"
    if with_interval:
        first = with_interval[0]
        head += f" with 95% intervals (paired bootstrap over {first.cases} cases, {first.resamples} resamples)"
    lines = [head + ":"]
    width = max(len(e.name) for e in shown)
    for e in shown:
        line = f"  {e.name.ljust(width)}  {score_text(e.base)} -> {score_text(e.new)}  {e.delta:+.2f}"
        verdict = ""
        if e.low is not None and e.high is not None:
            line += f" [{e.low:+.2f}, {e.high:+.2f}]"
            verdict = "significant" if e.significant else "not significant"
        if e.measurement:
            verdict = "measurement (informational: no verdict)"
        if e.cases_needed is not None and e.delta is not None:
            verdict += (
                f"; cases needed to detect a change of {abs(e.delta):.2f} (alpha 0.05, power 0.8, same cases on "
                f"both sides): {e.cases_needed}"
            )
        if narrow and verdict:  # the verdict on a line of its own, under the numbers it judges
            lines += [line, "    " + verdict]
        else:
            lines.append(line + ("  " + verdict if verdict else ""))
    return lines


def _md(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _md_gate(comparison: Comparison) -> list[str]:
    """The gate's lines: its verdict as a paragraph, what failed it and the flips within noise as a list."""
    lines = gate_lines(comparison)
    out = []
    if comparison.gate is not None:
        out += [f"**{_md(gate_verdict(comparison))}**: {_md(comparison.gate.rule)}", ""]
        lines.pop(0)
    return out + [f"- {_md(line.strip())}" for line in lines] + ([""] if lines else [])


def render_markdown(comparison: Comparison, *, title: str = "Comparison", level: int = 1) -> str:
    """The comparison as a Markdown document (GitHub-flavoured tables) headed ``title`` at heading ``level`` (2 for
    a section of another document, e.g. the report of ``eval --baseline``)."""
    base, new = comparison.base, comparison.new
    lines = [
        f"{'#' * level} {_md(title)}",
        "",
        f"**{headline(comparison)}**",
        "",
        f"- Base: `{_md(base.source)}`: {_md(side_text(base))}",
        f"- New: `{_md(new.source)}`: {_md(side_text(new))}",
        "",
        *_md_gate(comparison),
        "| Case | Change | Base | New | Runs passed | Reason (new) |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for case in sorted_cases(comparison):
        runs = runs_cell(case, "→")
        lines.append(
            f"| {_md(case.eval_id)} | {LABEL[case.change]} | {case.base_status.value if case.base_status else '-'} "
            f"| {case.new_status.value if case.new_status else '-'} | {runs} | {_md(case.reason or '')} |"
        )
    for line in not_run_lines(comparison):
        lines += ["", _md(line)]
    divergences = divergence_lines(sorted_cases(comparison))
    if divergences:
        lines += ["", _md(divergences[0]), ""] + [f"- {_md(line.strip())}" for line in divergences[1:]]
    for title, metrics in metric_groups(comparison):
        lines += ["", f"*{title}*", "", "| Metric | Base | New | Delta |", "| --- | ---: | ---: | ---: |"]
        lines += [
            f"| {_md(m.metric_name)} | {score_text(m.base_mean)} | {score_text(m.new_mean)} | {delta_text(m.delta)} |"
            for m in metrics
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
    estimates = estimate_lines(comparison)
    if estimates:
        lines += ["", _md(estimates[0]), ""] + [f"- {_md(line.strip())}" for line in estimates[1:]]
    extra = significance_lines(comparison) + [f"Note: {n}" for n in comparison.notes]
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
.comparison .within_noise{color:#666;font-style:italic}
.comparison .new{color:#006b8f}.comparison .removed{color:#7a1f7a}.comparison .not_run{color:#666}
.comparison .neg{color:#b00020}.comparison .pos{color:#1b7f1b}
.comparison .verdict{font-size:1.2em;font-weight:bold}
.comparison .regressed{color:#b00020}.comparison .ok{color:#1b7f1b}
"""


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def _html_gate(comparison: Comparison) -> list[str]:
    lines = gate_lines(comparison)
    gate = comparison.gate
    out = []
    if gate is not None:
        state = "regressed" if gate.failed else "ok"
        out.append(f'<p class="gate {state}" data-failed="{str(gate.failed).lower()}">{_h(lines.pop(0))}</p>')
    if lines:
        out += ['<ul class="gate-findings">', *(f"<li>{_h(line.strip())}</li>" for line in lines), "</ul>"]
    return out


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
        *_html_gate(comparison),
        "<ul>",
        f"<li>Base: <code>{_h(base.source)}</code>: {_h(side_text(base))}</li>",
        f"<li>New: <code>{_h(new.source)}</code>: {_h(side_text(new))}</li>",
        "</ul>",
        f"<{sub}>Cases</{sub}>",
        "<table><thead><tr><th>Case</th><th>Change</th><th>Base</th><th>New</th><th>Runs passed</th>"
        "<th>Reason (new)</th></tr></thead><tbody>",
    ]
    for case in sorted_cases(comparison):
        runs = runs_cell(case, "→")
        out.append(
            f'<tr><td>{_h(case.eval_id)}</td><td class="{case.change.value}">{_h(LABEL[case.change])}</td>'
            f"<td>{_h(case.base_status.value if case.base_status else '-')}</td>"
            f"<td>{_h(case.new_status.value if case.new_status else '-')}</td>"
            f'<td class="num">{_h(runs)}</td><td>{_h(case.reason or "")}</td></tr>'
        )
    out.append("</tbody></table>")
    out += [f'<p class="not_run">{_h(line)}</p>' for line in not_run_lines(comparison)]
    divergences = divergence_lines(sorted_cases(comparison))
    if divergences:
        out.append(f'<{sub}>{_h(divergences[0].rstrip(":"))}</{sub}><ul class="divergences">')
        out += [f'<li class="divergence">{_h(line.strip())}</li>' for line in divergences[1:]]
        out.append("</ul>")
    for title, metrics in metric_groups(comparison):
        out.append(f"<{sub}>{_h(title)}</{sub}>")
        out.append("<table><thead><tr><th>Metric</th><th>Base</th><th>New</th><th>Delta</th></tr></thead><tbody>")
        for m in metrics:
            moved = "neg" if m.delta is not None and m.delta < 0 else "pos" if m.delta else ""
            sign = "" if m.measurement else moved  # a measurement's change is neither good nor bad
            out.append(
                f'<tr><td>{_h(m.metric_name)}</td><td class="num">{score_text(m.base_mean)}</td>'
                f'<td class="num">{score_text(m.new_mean)}</td><td class="num {sign}">{delta_text(m.delta)}</td></tr>'
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
    estimates = estimate_lines(comparison)
    if estimates:
        out.append(f"<{sub}>{_h(estimates[0].rstrip(':'))}</{sub}><ul>")
        out += [f'<li class="estimate">{_h(line.strip())}</li>' for line in estimates[1:]]
        out.append("</ul>")
    extra = significance_lines(comparison) + [f"Note: {n}" for n in comparison.notes]
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
