"""The HTML report's page: title, summary cards (cases and, apart, case runs), the metric and measurement tables,
intervals, the sortable case table and the case toolbar; each case's block is :func:`~._html.html_case`."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

from ..model import EvalSetResult, EvalStatus, UsageTotals
from ..summary._reasons import format_score, one_line
from ..summary._usage import format_cost, format_duration, format_tokens
from ._html import RANK, html_case, html_status, sort_key
from ._html_assets import CSS, JS
from ._intervals import intervals_html
from ._links import case_link
from ._transcript import TRANSCRIPT_CSS
from ._view import ResultView, build_view, latency_cards

__all__ = ["HTML_TAIL", "html_head", "render_html"]


def _usage_cards(usage: UsageTotals) -> list[tuple[str, str, str]]:
    cards = []
    if usage.duration is not None:
        cards.append(("Agent time", format_duration(usage.duration), ""))
    if usage.total_tokens is not None:
        cards.append(("Tokens", format_tokens(usage.total_tokens), ""))
    if usage.cost is not None:
        cards.append(("Cost", format_cost(usage.cost, usage.cost_missing), ""))
    return cards


def _cases_table(view: ResultView) -> str:
    """Every case once (its runs grouped), sortable by any column."""
    usage_cols = [
        (name, attr)
        for name, attr in (("Duration", "duration"), ("Tokens", "total_tokens"), ("Cost", "cost"))
        if any(getattr(c.usage, attr) is not None for c in view.cases)
    ]
    head = "<tr><th>Case</th><th>Status</th>" + ("<th class=num>Runs passed</th>" if view.multi_run else "")
    head += "".join(f"<th class=num>{name}</th>" for name, _ in usage_cols) + "<th>First reason</th></tr>"
    rows = []
    for case in view.cases:
        cells = f'<td><a href="#c{case.index}r{case.reason_run or case.first_run}">{escape(case.eval_id)}</a>'
        link = None if case.passed else case_link(view.result, case.eval_id, case.reason_run)
        if link:  # the case's replay in the web UI (eval --ui-url; the server's own report links into its page)
            cells += f' <a class="replay-link" href="{escape(link)}" target="_top">replay</a>'
        cells += "</td>"
        rule = case.status_text.removeprefix(case.status.value)  # with several runs: runs passed and the rule
        rule_html = f' <span class="muted rule">{escape(rule.strip())}</span>' if rule else ""
        cells += f'<td data-sort="{RANK[case.status]}">{html_status(case.status)}{rule_html}</td>'
        if view.multi_run:
            share = case.runs_passed / max(case.runs, 1)
            cells += f'<td class=num data-sort="{share!r}">{case.runs_passed}/{case.runs}</td>'
        for _, attr in usage_cols:
            value = getattr(case.usage, attr)
            shown = {"duration": format_duration, "total_tokens": format_tokens}.get(attr)
            text = shown(value) if shown else format_cost(value, case.usage.cost_missing)
            cells += f'<td class=num data-sort="{sort_key(value)}">{escape(text)}</td>'
        reason = one_line(case.reason) if case.reason else ""
        if reason and view.multi_run and case.reason_run is not None:
            reason = f"run {case.reason_run}: {reason}"
        cells += f'<td class="reason">{escape(reason)}</td>'
        rows.append(f"<tr>{cells}</tr>")
    return f'<h2>Cases</h2><table class="sortable cases">{head}{"".join(rows)}</table>'


def _case_run_cards(view: ResultView) -> list[tuple[str, str, str]]:
    """With several runs: the case runs passed and failed, labelled apart from the cases."""
    if not view.multi_run:
        return []
    runs = view.case_runs
    return [
        ("Case runs passed", f"{runs.passed} / {view.total_case_runs}", "passed"),
        ("Case runs failed", str(runs.failed), "failed" if runs.failed else ""),
    ]


def _metric_tables(view: ResultView) -> str:
    """The metric table (counts over case runs) and, apart, the measurements (no threshold, no verdict)."""
    html = ""
    scores = view.scores
    if scores:
        errors = any(r.errors for r in scores)  # the column shows only when a metric could not be scored
        rows = "".join(
            f"<tr><td>{escape(r.name)}</td><td class=num>{format_score(r.average)}</td>"
            f"<td class=num>{format_score(r.threshold)}</td><td>{html_status(r.status)}</td>"
            f"<td class=num>{r.counts.passed}</td><td class=num>{r.counts.failed}</td>"
            f"{f'<td class=num>{r.counts.error}</td>' if errors else ''}"
            f"<td class=num>{r.counts.not_evaluated}</td></tr>"
            for r in scores
        )
        over = f" (over {view.total_case_runs} case runs)" if view.multi_run else ""
        html += (
            f'<h2>Metrics{over}</h2><table class="sortable"><tr><th>Metric</th><th class=num>Mean score</th>'
            "<th class=num>Threshold</th><th>Status</th><th class=num>Passed</th><th class=num>Failed</th>"
            f"{'<th class=num>Error</th>' if errors else ''}<th class=num>Not evaluated</th></tr>{rows}</table>"
        )
    if view.measurements:
        rows = "".join(
            f"<tr><td>{escape(m.name)}</td><td class=num>{format_score(m.average)}</td>"
            f"<td class=num>{len(m.scores)}</td></tr>"
            for m in view.measurements
        )
        html += (
            '<h2>Measurements</h2><div class="muted">Informational: no threshold, never a pass or a failure.</div>'
            '<table class="sortable measurements"><tr><th>Metric</th><th class=num>Mean</th>'
            f"<th class=num>Measured</th></tr>{rows}</table>"
        )
    return html


def _summary(view: ResultView) -> str:
    cards = [
        ("Cases", str(len(view.cases)), ""),
        ("Passed", str(view.count(EvalStatus.PASSED)), "passed"),
        ("Failed", str(view.count(EvalStatus.FAILED)), "failed"),
        ("Error", str(view.count(EvalStatus.ERROR)), "errored" if view.count(EvalStatus.ERROR) else ""),
        ("Not evaluated", str(view.count(EvalStatus.NOT_EVALUATED)), "not_evaluated"),
        ("Runs", str(view.num_runs), ""),
        *_case_run_cards(view),
        *_usage_cards(view.usage),
        *latency_cards(view),
    ]
    html = '<div class="cards">' + "".join(
        f'<div class="card"><span class="muted">{name}</span><b class="{css}">{escape(value)}</b></div>'
        for name, value, css in cards
    )
    html += "".join(
        f'<div class="card"><span class="muted">pass@{p.k} / pass^{p.k}</span>'
        f"<b>{format_score(p.pass_at_k)} / {format_score(p.pass_hat_k)}</b></div>"
        for p in view.pass_k
    )
    html += "</div>"
    if view.multi_run:
        html += f'<div class="muted rule">Case status over {view.num_runs} runs: {escape(view.rule_text)}.</div>'
    return html + _metric_tables(view) + intervals_html(view) + (_cases_table(view) if view.cases else "")


def html_head(view: ResultView) -> str:
    """The page up to the first case: title, summary cards, metric means, the case table and the case toolbar."""
    result = view.result
    title = f"agentgauge · {result.eval_set_id}"
    stamp = ""
    if result.creation_timestamp is not None:
        created = datetime.fromtimestamp(result.creation_timestamp, tz=UTC)
        stamp = f" · {created.strftime('%Y-%m-%d %H:%M:%S UTC')}"
    result_id = f" · result {escape(result.eval_set_result_id)}" if result.eval_set_result_id else ""
    note = (
        '<div class="error">Cancelled: only the cases that finished before the run was cancelled are included.</div>'
        if result.cancelled
        else '<div class="error">Interrupted: only the cases that finished before the run was stopped are included.'
        "</div>"
        if result.interrupted
        else ""
    )
    not_run = view.not_run_text()
    if not_run is not None:  # cases of the set the run could not run: apart from the counted cases
        note += f'<div class="error" id="not-run">{escape(not_run)}.</div>'
    sort = "".join(
        f'<option value="{key}">{label}</option>'
        for key, label in (
            ("order", "run order"),
            ("status", "status (failed first)"),
            ("id", "case id"),
            ("duration", "duration (longest first)"),
            ("tokens", "tokens (most first)"),
            ("cost", "cost (highest first)"),
        )
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}{TRANSCRIPT_CSS}</style></head><body>"
        f"<h1>Eval set {escape(result.eval_set_id)} {html_status(view.overall_status)}</h1>"
        f'<div class="muted">agentgauge report{result_id}{escape(stamp)}</div>{note}'
        f"{_summary(view)}<h2>Case details</h2>"
        '<div class="toolbar"><label><input type="checkbox" id="only-failed"> Show only failed cases</label>'
        '<input type="search" id="case-search" placeholder="Filter by case id">'
        f'<label>Sort by <select id="case-sort">{sort}</select></label>'
        '<button type="button" id="expand-all">Expand all</button></div><div id="case-list">'
    )


HTML_TAIL = f"</div><script>{JS}</script></body></html>\n"
"""The end of the page (its script)."""


def render_html(result: EvalSetResult) -> str:
    """The result as one self-contained HTML page: summary, metric means, a sortable table of cases (runs grouped,
    durations, tokens, cost, first reason), filters, and per case and invocation expected vs actual tool calls (with
    their results) and final responses side by side, differences marked where a failed metric looked."""
    view = build_view(result)
    cases = "".join(html_case(c, view, i) for i, c in enumerate(result.eval_case_results))
    return html_head(view) + cases + HTML_TAIL
