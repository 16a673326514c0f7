"""Self-contained HTML report: one file, inline CSS/JS, expected vs actual trajectories side by side."""

from __future__ import annotations

import difflib
import re
from datetime import UTC, datetime
from html import escape

from ..model import EvalCaseResult, EvalMetricResult, EvalMetricResultPerInvocation, EvalSetResult, EvalStatus
from ._html_assets import CSS, JS
from ._view import ResultView, build_view, case_label, format_score, format_tool_call, message_text

__all__ = ["HTML_TAIL", "html_case", "html_head", "render_html"]

_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")


def _status(status: EvalStatus) -> str:
    return f'<span class="status {status.value}">{escape(status.value.replace("_", " "))}</span>'


def _word_diff(expected: str, actual: str) -> tuple[str, str]:
    """Both texts as HTML with the words only one side has wrapped in ``<del>`` (expected) / ``<ins>`` (actual)."""
    a, b = _TOKENS.findall(expected), _TOKENS.findall(actual)
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old, new = escape("".join(a[i1:i2])), escape("".join(b[j1:j2]))
        if op == "equal":
            left.append(old)
            right.append(new)
            continue
        if old:
            left.append(f"<del>{old}</del>")
        if new:
            right.append(f"<ins>{new}</ins>")
    return "".join(left), "".join(right)


def _calls_diff(expected: list[str], actual: list[str]) -> tuple[list[str], list[str]]:
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, expected, actual, autojunk=False).get_opcodes():
        css = "same" if op == "equal" else "diff"
        left += [f'<span class="call {css}">{escape(c)}</span>' for c in expected[i1:i2]]
        right += [f'<span class="call {css}">{escape(c)}</span>' for c in actual[j1:j2]]
    return left, right


def _pane(title: str, calls: list[str], response: str | None) -> str:
    calls_html = "".join(calls) if calls else '<span class="muted">(none)</span>'
    response_html = response if response is not None else '<span class="muted">(none)</span>'
    return (
        f'<div class="pane"><h4>{title}</h4><div class="muted">Tool calls</div><pre>{calls_html}</pre>'
        f'<div class="muted">Final response</div><pre>{response_html}</pre></div>'
    )


def _metrics_table(results: list[EvalMetricResult]) -> str:
    rows = []
    for m in results:
        reason = (m.details.reason or "") if m.details else ""
        rubrics = [
            f"{r.id}: {format_score(r.score)} {r.reason}" for r in (m.details.rubric_scores if m.details else [])
        ]
        detail = "\n".join([reason, *rubrics]).strip()
        rows.append(
            f"<tr><td>{escape(m.metric_name)}</td><td class=num>{format_score(m.score)}</td>"
            f"<td class=num>{format_score(m.threshold)}</td><td>{_status(m.eval_status)}</td>"
            f'<td class="reason">{escape(detail)}</td></tr>'
        )
    head = "<tr><th>Metric</th><th class=num>Score</th><th class=num>Threshold</th><th>Status</th><th>Reason</th></tr>"
    return f"<table>{head}{''.join(rows)}</table>"


def _invocation(index: int, per_inv: EvalMetricResultPerInvocation) -> str:
    actual, expected = per_inv.actual_invocation, per_inv.expected_invocation
    actual_calls = [format_tool_call(t) for t in actual.tools]
    actual_text = message_text(actual.final_response)
    if expected is None:
        left = '<div class="pane"><h4>Expected</h4><span class="muted">(no expected invocation)</span></div>'
        right = _pane("Actual", [f'<span class="call">{escape(c)}</span>' for c in actual_calls],
                      None if actual_text is None else escape(actual_text))  # fmt: skip
    else:
        exp_calls, act_calls = _calls_diff([format_tool_call(t) for t in expected.tools], actual_calls)
        expected_text = message_text(expected.final_response)
        exp_html: str | None
        act_html: str | None
        if expected_text is not None and actual_text is not None and expected_text != actual_text:
            exp_html, act_html = _word_diff(expected_text, actual_text)
        else:
            exp_html = None if expected_text is None else escape(expected_text)
            act_html = None if actual_text is None else escape(actual_text)
        left, right = _pane("Expected", exp_calls, exp_html), _pane("Actual", act_calls, act_html)
    user = message_text(actual.user_content) or (message_text(expected.user_content) if expected else "") or ""
    return (
        f'<div class="inv"><b>Invocation {index + 1}</b>'
        f'<div class="user"><span class="muted">User</span><pre>{escape(user)}</pre></div>'
        f'<div class="side">{left}{right}</div>{_metrics_table(per_inv.eval_metric_results)}</div>'
    )


def _case(case: EvalCaseResult, multi_run: bool) -> str:
    label = case_label(case, multi_run)
    status = case.final_eval_status
    body = []
    if case.error_message:
        body.append(f'<div class="error">{escape(case.error_message)}</div>')
    if case.overall_eval_metric_results:
        body.append(_metrics_table(case.overall_eval_metric_results))
    body += [_invocation(i, p) for i, p in enumerate(case.eval_metric_result_per_invocation)]
    css = f"case st-{status.value}" + (" has-error" if case.error_message else "")
    opened = " open" if status is EvalStatus.FAILED or case.error_message else ""
    return (
        f'<details class="{css}" data-case-id="{escape(case.eval_id)}"{opened}>'
        f"<summary>{escape(label)} {_status(status)}</summary>{''.join(body)}</details>"
    )


def _summary(view: ResultView) -> str:
    cards = [
        ("Cases", len(view.cases), ""),
        ("Passed", view.count(EvalStatus.PASSED), "passed"),
        ("Failed", view.count(EvalStatus.FAILED), "failed"),
        ("Not evaluated", view.count(EvalStatus.NOT_EVALUATED), "not_evaluated"),
        ("Errors", view.errored, "failed" if view.errored else ""),
        ("Runs", view.num_runs, ""),
    ]
    html = '<div class="cards">' + "".join(
        f'<div class="card"><span class="muted">{name}</span><b class="{css}">{value}</b></div>'
        for name, value, css in cards
    )
    html += "".join(
        f'<div class="card"><span class="muted">pass@{p.k} / pass^{p.k}</span>'
        f"<b>{format_score(p.pass_at_k)} / {format_score(p.pass_hat_k)}</b></div>"
        for p in view.pass_k
    )
    html += "</div>"
    if view.metrics:
        rows = "".join(
            f"<tr><td>{escape(r.metric_name)}</td><td class=num>{format_score(r.mean)}</td>"
            f"<td class=num>{format_score(r.threshold)}</td><td>{_status(r.status)}</td><td class=num>{r.passed}</td>"
            f"<td class=num>{r.failed}</td><td class=num>{r.not_evaluated}</td></tr>"
            for r in view.metrics
        )
        html += (
            "<h2>Metrics</h2><table><tr><th>Metric</th><th class=num>Mean score</th><th class=num>Threshold</th>"
            "<th>Status</th><th class=num>Passed</th><th class=num>Failed</th><th class=num>Not evaluated</th></tr>"
            f"{rows}</table>"
        )
    return html


def html_head(view: ResultView) -> str:
    """The page up to the first case: title, summary cards, metric means and the case toolbar."""
    result = view.result
    title = f"agentgauge · {result.eval_set_id}"
    stamp = ""
    if result.creation_timestamp is not None:
        created = datetime.fromtimestamp(result.creation_timestamp, tz=UTC)
        stamp = f" · {created.strftime('%Y-%m-%d %H:%M:%S UTC')}"
    result_id = f" · result {escape(result.eval_set_result_id)}" if result.eval_set_result_id else ""
    note = (
        '<div class="error">Interrupted: only the cases that finished before the run was stopped are included.</div>'
        if result.interrupted
        else ""
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f"<h1>Eval set {escape(result.eval_set_id)} {_status(view.overall_status)}</h1>"
        f'<div class="muted">agentgauge report{result_id}{escape(stamp)}</div>{note}'
        f"{_summary(view)}<h2>Cases</h2>"
        '<div class="toolbar"><label><input type="checkbox" id="only-failed"> Show only failed cases</label>'
        '<input type="search" id="case-search" placeholder="Filter by case id">'
        '<button type="button" id="expand-all">Expand all</button></div>'
    )


def html_case(case: EvalCaseResult, multi_run: bool) -> str:
    """One case result as a collapsible block."""
    return _case(case, multi_run)


HTML_TAIL = f"<script>{JS}</script></body></html>\n"
"""The end of the page (its script)."""


def render_html(result: EvalSetResult) -> str:
    """The result as one self-contained HTML page: summary, metric means, a failed-only filter and, per case and
    invocation, expected vs actual tool calls and final responses side by side with the differences marked."""
    view = build_view(result)
    cases = "".join(_case(c, view.multi_run) for c in result.eval_case_results)
    return html_head(view) + cases + HTML_TAIL
