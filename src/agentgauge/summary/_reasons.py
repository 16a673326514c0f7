"""Why a case failed, as text: each metric that did not pass with its reason, the invocation it judged, the expected
side, and the one-line first reason shown in case lists and summaries.

Part of the summary layer (imports only :mod:`agentgauge.model`): the run engine stores the first reason in a case's
compact row as the case finishes, and every report renders the same texts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..model import (
    Criterion,
    EvalCaseResult,
    EvalMetricResult,
    EvalStatus,
    Invocation,
    Message,
    Tool,
)

__all__ = [
    "Mismatch",
    "case_failure_text",
    "case_label",
    "case_mismatches",
    "first_reason",
    "format_score",
    "format_tool_call",
    "group_mismatches",
    "message_text",
    "mismatch_text",
    "one_line",
    "short_reason",
]


def format_score(score: float | None) -> str:
    """A score with up to four significant decimals, or ``-`` when there is none."""
    if score is None:
        return "-"
    text = f"{score:.4f}".rstrip("0").rstrip(".")
    return text or "0"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def format_tool_call(tool: Tool) -> str:
    """``name({"a": 1})``: a tool call with its arguments as compact JSON (key order kept); ``name()`` for a call
    recorded without arguments (``None``), which is not the same call as ``name({})``."""
    args = tool.arguments
    return f"{tool.name}({_json(args) if args is not None else ''})"


def message_text(message: Message | None) -> str | None:
    """The text of a message, or ``None`` when there is no message."""
    return None if message is None else message.content


def case_label(case: EvalCaseResult, multi_run: bool) -> str:
    """The case id, suffixed with ``[run N]`` when a result holds several runs."""
    return f"{case.eval_id} [run {case.run_id}]" if multi_run else case.eval_id


@dataclass(frozen=True)
class Mismatch:
    """One failed metric with what was expected and what the agent did.

    ``invocation_index`` is ``None`` for a case-level (overall) failure without per-invocation detail.
    """

    metric_name: str
    score: float | None
    threshold: float
    reason: str
    invocation_index: int | None
    expected: Invocation | None
    actual: Invocation | None
    rubric_reasons: tuple[str, ...] = ()
    criterion: Criterion | None = None

    @property
    def headline(self) -> str:
        """One line: metric, score vs threshold, and which invocation."""
        where = "" if self.invocation_index is None else f" (invocation {self.invocation_index + 1})"
        return f"{self.metric_name}{where}: score {format_score(self.score)} < threshold {format_score(self.threshold)}"


def _reason(result: EvalMetricResult) -> str:
    return (result.details.reason or "") if result.details else ""


def _rubric_reasons(result: EvalMetricResult) -> tuple[str, ...]:
    if not result.details:
        return ()
    return tuple(
        f"{r.id or '?'} scored {format_score(r.score)}" + (f": {r.reason}" if r.reason else "")
        for r in result.details.rubric_scores
    )


def case_mismatches(case: EvalCaseResult) -> list[Mismatch]:
    """Every failed metric of a case: per invocation where available, else the overall metric result."""
    return list(_mismatches(case))


def _mismatches(case: EvalCaseResult) -> Iterator[Mismatch]:
    # One at a time, so the first (a case's reason in the summary) is found without building the others.
    covered: set[str] = set()
    for index, per_inv in enumerate(case.eval_metric_result_per_invocation):
        for metric in per_inv.eval_metric_results:
            if metric.eval_status is not EvalStatus.FAILED:
                continue
            covered.add(metric.metric_name)
            yield (
                Mismatch(
                    metric_name=metric.metric_name,
                    score=metric.score,
                    threshold=metric.threshold,
                    reason=_reason(metric),
                    invocation_index=index,
                    expected=per_inv.expected_invocation,
                    actual=per_inv.actual_invocation,
                    rubric_reasons=_rubric_reasons(metric),
                    criterion=metric.criterion,
                )
            )
    for metric in case.overall_eval_metric_results:
        if metric.eval_status is EvalStatus.FAILED and metric.metric_name not in covered:
            yield (
                Mismatch(
                    metric_name=metric.metric_name,
                    score=metric.score,
                    threshold=metric.threshold,
                    reason=_reason(metric),
                    invocation_index=None,
                    expected=None,
                    actual=None,
                    rubric_reasons=_rubric_reasons(metric),
                    criterion=metric.criterion,
                )
            )


def _invocation_lines(invocation: Invocation | None, indent: str) -> list[str]:
    if invocation is None:
        return [f"{indent}(no invocation)"]
    calls = [format_tool_call(t) for t in invocation.tools]
    response = message_text(invocation.final_response)
    return [
        f"{indent}tool calls: {', '.join(calls) if calls else '(none)'}",
        f"{indent}final response: {_json(response) if response is not None else '(none)'}",
    ]


def group_mismatches(mismatches: list[Mismatch]) -> list[list[Mismatch]]:
    """Mismatches grouped by invocation (case-level ones last), so each Expected / Actual block is shown once."""
    groups: dict[int | None, list[Mismatch]] = {}
    for mismatch in mismatches:
        groups.setdefault(mismatch.invocation_index, []).append(mismatch)
    return [groups[k] for k in sorted(groups, key=lambda i: (i is None, i or 0))]


def mismatch_text(mismatches: Mismatch | list[Mismatch]) -> str:
    """The plain-text block of the failed metrics of one invocation: one headline per metric, the Expected /
    Actual tool calls and final responses, then each metric's reason (used by every report and by pytest)."""
    group = [mismatches] if isinstance(mismatches, Mismatch) else mismatches
    if not group:
        return ""
    first = group[0]
    lines = [m.headline for m in group]
    if first.invocation_index is not None:
        user = message_text(first.actual.user_content) if first.actual else None
        if user is not None:
            lines.append(f"  User: {_json(user)}")
        lines.append("  Expected:")
        lines.extend(_invocation_lines(first.expected, "    "))
        lines.append("  Actual:")
        lines.extend(_invocation_lines(first.actual, "    "))
    for m in group:
        if m.reason:
            lines.append(f"  {m.metric_name}: {m.reason}")
        lines.extend(f"    rubric {r}" for r in m.rubric_reasons)
    return "\n".join(lines)


def case_failure_text(case: EvalCaseResult) -> str:
    """Everything that went wrong in one case result: its error message and one block per failing invocation."""
    parts = [f"error: {case.error_message}"] if case.error_message else []
    parts += [mismatch_text(group) for group in group_mismatches(case_mismatches(case))]
    return "\n\n".join(parts)


def first_reason(case: EvalCaseResult) -> str | None:
    """Why a case result did not pass, in one phrase: its error, else its first failed metric (headline and
    reason), else its status; ``None`` for a case that passed."""
    if case.error_message:
        return f"error: {case.error_message}"
    first = next(_mismatches(case), None)
    if first is not None:
        return first.headline + (f": {first.reason}" if first.reason else "")
    if case.final_eval_status is EvalStatus.FAILED:
        return "failed"
    if case.final_eval_status is EvalStatus.ERROR:
        return "error"
    if case.final_eval_status is EvalStatus.NOT_EVALUATED:
        return "not evaluated: no metric produced a score"
    return None


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line (whitespace runs collapsed), cut to ``limit`` characters with ``…``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


SHORT_REASON = 120
"""Characters of a reason :func:`short_reason` leaves whole."""

_HEADLINE = re.compile(r"(?P<head>.+?): score \S+ < threshold [^\s:]+(?:: (?P<body>.*))?")
_LABEL = 30  # a clause naming the difference ("result mismatch", "arguments") is kept when this short


def _label(part: str, start: int) -> str:
    """The short clause right before ``part[start:]`` (``result mismatch`` of ``...: result mismatch: actual``)."""
    if not part[:start].endswith(": "):
        return ""
    before = part[: start - 2]
    label = before[before.rfind(": ") + 2 :] if ": " in before else before
    return label if len(label) <= _LABEL else ""


def _innermost(body: str) -> str | None:
    """The innermost clause of a metric's reason that says what differs: the first ``actual X != expected Y``
    comparison (``b: 7 != 8``: with its short label), else what follows the last ``mismatch:``; ``None`` when the
    reason has no such clause (a judge's prose) or that clause is the whole reason."""
    part = next((p for p in body.split("; ") if " != " in p), None)
    if part is not None:
        at = part.index(" != ")
        start = part.rfind("actual ", 0, at)
        if start < 0:  # "b: 7 != 8": the clause after the last colon before the comparison
            colon = part.rfind(": ", 0, at)
            start = colon + 2 if colon >= 0 else 0
    elif "mismatch: " in body:
        part = body
        start = body.rfind("mismatch: ") + len("mismatch: ")
    else:
        return None
    if start == 0:
        return None
    clause = part[start:]
    label = "" if clause.startswith("actual ") else _label(part, start)  # "actual" says which side: enough
    return (f"{label}: " if label else "") + clause


def short_reason(reason: str, limit: int = SHORT_REASON) -> str:
    """``reason`` for one line (a case list's row): whole when it is at most ``limit`` characters, else the metric
    headline (metric and invocation) and the innermost clause that says what differs, the middle left out
    (``tool_trajectory_avg_score (invocation 1): … actual 'add' != expected 'mul' at $.operation``); a reason
    without such a clause (an error, a judge's verdict) is cut at its end. The full reason stays in the detail and
    the row's title."""
    flat = " ".join(reason.split())
    if len(flat) <= limit:
        return flat
    found = _HEADLINE.fullmatch(flat)
    tail = _innermost(found["body"]) if found is not None and found["body"] else None
    if found is None or tail is None:
        return one_line(flat, limit)
    return f"{found['head']}: … {one_line(tail, limit)}"
