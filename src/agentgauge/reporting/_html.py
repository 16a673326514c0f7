"""Self-contained HTML report: one file, inline CSS/JS, expected vs actual trajectories side by side.

Differences are marked only in the parts of an invocation a failed metric compares (see :mod:`._diff`); tool
results are shown under their calls, a result that differs from the expected call's is flagged without counting as
a failure. Errored cases show their traceback and the turns finished before the error.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from html import escape
from typing import Any

from ..model import (
    Criterion,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
    Invocation,
    RubricScore,
    Tool,
    UsageTotals,
)
from ..summary._reasons import case_label, format_score, format_tool_call
from ..summary._usage import case_usage, usage_text
from ._diff import RESPONSE, TOOLS, Part, Segment, failed_parts, response_strategy, strategy_phrase, word_diff
from ._transcript import html_transcript
from ._view import ResultView

__all__ = ["RANK", "html_case", "html_status", "rubric_texts", "sort_key"]

_ORDER = (EvalStatus.FAILED, EvalStatus.ERROR, EvalStatus.NOT_EVALUATED, EvalStatus.INFORMATIONAL, EvalStatus.PASSED)
RANK = {status: rank for rank, status in enumerate(_ORDER)}  # the status sort key: failed first
_NONE = '<span class="muted">(none)</span>'
_CSS = {EvalStatus.ERROR: "errored"}  # "error" is the class of an error message box


def html_status(status: EvalStatus) -> str:
    """A status as the report's coloured badge."""
    css = _CSS.get(status, status.value)
    return f'<span class="status {css}">{escape(status.value.replace("_", " "))}</span>'


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _segments_html(segments: Iterable[Segment]) -> str:
    tags = {"=": ("", ""), "-": ("<del>", "</del>"), "+": ("<ins>", "</ins>")}
    return "".join(tags[op][0] + escape(text) + tags[op][1] for op, text in segments)


def rubric_texts(criterion: Criterion | None) -> dict[str, str]:
    """Rubric id → rubric text, from a metric's judge criterion (native ``llmJudge.rubrics`` or ADK ``rubrics``,
    case rubrics included once attached)."""
    found: dict[str, str] = {}
    if criterion is None:
        return found
    for block in (criterion.llm_judge, criterion.adk):
        for entry in (block or {}).get("rubrics") or []:
            if not isinstance(entry, dict):
                continue
            rubric_id = entry.get("id", entry.get("rubric_id", entry.get("rubricId")))
            content = entry.get("content", entry.get("rubric_content", entry.get("rubricContent")))
            text = content
            if isinstance(content, dict):
                text = content.get("text", content.get("text_property", content.get("textProperty")))
            text = text or entry.get("description")
            if isinstance(rubric_id, str) and isinstance(text, str) and text:
                found[rubric_id] = text
    return found


def _rubric_item(score: RubricScore, texts: dict[str, str]) -> str:
    text = texts.get(score.id)
    about = f' <span class="rubric-text">{escape(text)}</span>' if text else ""
    reason = f" — {escape(score.reason)}" if score.reason else ""
    return f"<li><b>{escape(score.id or '?')}</b>{about} — score {format_score(score.score)}{reason}</li>"


def _detail(metric: EvalMetricResult, hide_reasons: set[str], hide_rubrics: set[tuple[str, str, Any]]) -> str:
    details = metric.details
    if details is None:
        return ""
    texts = rubric_texts(metric.criterion)
    reason = details.reason or ""
    html = ""
    if reason and reason not in hide_reasons:
        html += f'<div class="reason">{escape(reason)}</div>'
    rubrics = [r for r in details.rubric_scores if (r.id, r.reason, r.score) not in hide_rubrics]
    if rubrics:
        html += '<ul class="rubrics">' + "".join(_rubric_item(r, texts) for r in rubrics) + "</ul>"
    return html


def _metrics_table(results: list[EvalMetricResult], shown_below: Iterable[EvalMetricResult] = ()) -> str:
    """A metric table; reasons and rubric verdicts already shown per invocation (``shown_below``) are left out,
    as is an overall reason that only joins those of the invocations."""
    below_reasons: dict[str, list[str]] = {}
    below_rubrics: set[tuple[str, str, Any]] = set()
    for item in shown_below:
        if item.details is not None:
            if item.details.reason:
                below_reasons.setdefault(item.metric_name, []).append(item.details.reason)
            below_rubrics |= {(r.id, r.reason, r.score) for r in item.details.rubric_scores}
    rows = []
    for m in results:
        seen = below_reasons.get(m.metric_name, [])
        hide = {*seen, ";".join(seen), "; ".join(seen)} if seen else set()
        rows.append(
            f"<tr><td>{escape(m.metric_name)}</td><td class=num>{format_score(m.score)}</td>"
            f"<td class=num>{format_score(m.threshold)}</td><td>{html_status(m.eval_status)}</td>"
            f"<td>{_detail(m, hide, below_rubrics)}</td></tr>"
        )
    head = "<tr><th>Metric</th><th class=num>Score</th><th class=num>Threshold</th><th>Status</th><th>Reason</th></tr>"
    return f'<table class="metrics">{head}{"".join(rows)}</table>'


def _result_html(tool: Tool, differs: bool) -> str:
    if tool.result is None:
        return ""
    css, note = ("result rdiff", " <small>(differs from the expected result)</small>") if differs else ("result", "")
    return f'<div class="{css}">→ {escape(_json(tool.result))}{note}</div>'


def _tool_lists(expected: Invocation | None, actual: Invocation, mark: bool) -> tuple[str, str]:
    """The expected and actual tool calls with their results; calls marked changed only when ``mark``."""
    act_calls = [format_tool_call(t) for t in actual.tools]
    if expected is None:
        only = "".join(
            f'<div class="call"><code>{escape(c)}</code>{_result_html(t, False)}</div>'
            for c, t in zip(act_calls, actual.tools, strict=True)
        )
        return "", only or _NONE
    exp_calls = [format_tool_call(t) for t in expected.tools]
    left: list[str] = []
    right: list[str] = []

    def add(side: list[str], css: str, code: str, tool: Tool, differs: bool = False) -> None:
        side.append(f'<div class="{css}"><code>{code}</code>{_result_html(tool, differs)}</div>')

    def differ(a: Tool, b: Tool) -> bool:
        return a.result is not None and b.result is not None and a.result != b.result

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, exp_calls, act_calls, autojunk=False).get_opcodes():
        old = list(zip(exp_calls[i1:i2], expected.tools[i1:i2], strict=True))
        new = list(zip(act_calls[j1:j2], actual.tools[j1:j2], strict=True))
        if op == "equal" or not mark:
            css = "call same" if op == "equal" and mark else "call"
            for call, tool in old:
                add(left, css, escape(call), tool)
            for k, (call, tool) in enumerate(new):
                add(right, css, escape(call), tool, op == "equal" and differ(old[k][1], tool))
            continue
        paired = min(len(old), len(new)) if op == "replace" else 0
        for (e_call, e_tool), (a_call, a_tool) in zip(old[:paired], new[:paired], strict=True):
            segments = word_diff(e_call, a_call)
            add(left, "call diff", _segments_html(s for s in segments if s[0] != "+"), e_tool)
            add(right, "call diff", _segments_html(s for s in segments if s[0] != "-"), a_tool, differ(e_tool, a_tool))
        for call, tool in old[paired:]:
            add(left, "call diff", f"<del>{escape(call)}</del>", tool)
        for call, tool in new[paired:]:
            add(right, "call diff", f"<ins>{escape(call)}</ins>", tool)
    return "".join(left) or _NONE, "".join(right) or _NONE


def _response_pair(
    expected: Invocation | None, actual: Invocation, mark: bool, strategy: str | None = None
) -> tuple[str, str]:
    act = actual.final_response.content if actual.final_response is not None else None
    exp = expected.final_response.content if expected is not None and expected.final_response is not None else None
    if mark and strategy is not None and exp is not None:
        # contains / regex: the expected text is what the answer lacked, not a version to diff against.
        note = f'<span class="muted">{strategy_phrase(strategy)}:</span> '
        return note + f"<del>{escape(exp)}</del>", (_NONE if act is None else escape(act))
    if mark and exp is not None and act is not None and exp != act:
        segments = word_diff(exp, act)
        left = _segments_html((op, text) for op, text in segments if op != "+")
        right = _segments_html((op, text) for op, text in segments if op != "-")
        return left, right
    return (_NONE if exp is None else escape(exp)), (_NONE if act is None else escape(act))


def _pane(title: str, calls: str, response: str) -> str:
    return (
        f'<div class="pane"><h4>{title}</h4><div class="muted">Tool calls</div><div class="calls">{calls}</div>'
        f'<div class="muted">Final response</div><pre>{response}</pre></div>'
    )


def _invocation(index: int, per_inv: EvalMetricResultPerInvocation) -> str:
    actual, expected = per_inv.actual_invocation, per_inv.expected_invocation
    failed = [m for m in per_inv.eval_metric_results if m.eval_status is EvalStatus.FAILED]
    parts: frozenset[Part] = failed_parts((m.metric_name, m.criterion) for m in failed)
    exp_calls, act_calls = _tool_lists(expected, actual, TOOLS in parts)
    strategy = response_strategy((m.metric_name, m.criterion) for m in failed)
    exp_text, act_text = _response_pair(expected, actual, RESPONSE in parts, strategy)
    if expected is None:
        left = '<div class="pane"><h4>Expected</h4><span class="muted">(no expected invocation)</span></div>'
    else:
        left = _pane("Expected", exp_calls, exp_text)
    right = _pane("Actual", act_calls, act_text)
    user = actual.user_content.content or (expected.user_content.content if expected else "")
    usage = usage_text(UsageTotals.of([actual]))
    usage_html = f' <span class="muted usage">{escape(usage)}</span>' if usage else ""
    table = _metrics_table(per_inv.eval_metric_results) if per_inv.eval_metric_results else ""
    return (
        f'<div class="inv"><b>Invocation {index + 1}</b>{usage_html}'
        f'<div class="user"><span class="muted">User</span><pre>{escape(user)}</pre></div>'
        f'<div class="side">{left}{right}</div>{table}</div>'
    )


def _error(case: EvalCaseResult) -> str:
    html = f'<div class="error">{escape(case.error_message or "")}</div>'
    if case.error_traceback:
        html += (
            f'<details class="traceback" open><summary>Traceback</summary><pre>{escape(case.error_traceback)}</pre>'
            "</details>"
        )
    done = len(case.eval_metric_result_per_invocation)
    if done:
        html += (
            f'<div class="muted partial">Partial trajectory: {done} invocation{"s" if done != 1 else ""} finished '
            "before the error (not scored).</div>"
        )
    return html


def html_case(case: EvalCaseResult, view: ResultView | bool, order: int = 0) -> str:
    """One case result as a collapsible block carrying its sort keys (``view`` gives the runs of its case; a bool
    is the former ``multi_run`` flag)."""
    multi_run = view.multi_run if isinstance(view, ResultView) else view
    outcome = view.outcome(case.eval_id) if isinstance(view, ResultView) else None
    status = case.final_eval_status
    usage = case_usage(case)
    body = [_error(case)] if case.error_message else []
    per_inv = [m for p in case.eval_metric_result_per_invocation for m in p.eval_metric_results]
    if case.overall_eval_metric_results:
        body.append(_metrics_table(case.overall_eval_metric_results, per_inv))
    body.append(html_transcript(case))
    body += [_invocation(i, p) for i, p in enumerate(case.eval_metric_result_per_invocation)]
    css = f"case st-{status.value}" + (" has-error" if case.error_message else "")
    opened = " open" if status is EvalStatus.FAILED or case.error_message else ""
    runs = f' <span class="runs">{escape(outcome.runs_text)}</span>' if multi_run and outcome is not None else ""
    usage_html = f' <span class="muted usage">{escape(usage_text(usage))}</span>' if usage.known else ""
    anchor = f"c{outcome.index}r{case.run_id}" if outcome is not None else f"r{order}"
    keys = (
        f'data-order="{order}" data-status="{RANK[status]}" data-duration="{sort_key(usage.duration)}" '
        f'data-tokens="{sort_key(usage.total_tokens)}" data-cost="{sort_key(usage.cost)}"'
    )
    return (
        f'<details class="{css}" id="{anchor}" data-case-id="{escape(case.eval_id)}" {keys}{opened}>'
        f"<summary>{escape(case_label(case, multi_run))} {html_status(status)}{runs}{usage_html}</summary>"
        f"{''.join(body)}</details>"
    )


def sort_key(value: float | None) -> str:
    """A number as a ``data-sort`` value (empty when unknown)."""
    return "" if value is None else repr(value)
