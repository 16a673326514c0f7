"""What the reflection model reads about one case run: the user's turns, what the agent answered and did, what
was expected, and the metrics' verdicts with their reasons. Long texts are cut so that a reflection prompt stays
bounded however verbose an agent or a judge is."""

from __future__ import annotations

from typing import Any

from ..model import EvalCase, EvalCaseResult, EvalStatus, Invocation

__all__ = ["MAX_FIELD_CHARS", "case_feedback", "case_score"]

MAX_FIELD_CHARS = 2000
"""The most characters of one text (a turn, an answer, a tool result, a reason) a feedback record keeps."""


def _cut(text: str) -> str:
    return text if len(text) <= MAX_FIELD_CHARS else text[:MAX_FIELD_CHARS] + f"… [{len(text) - MAX_FIELD_CHARS} more]"


def _value(value: Any) -> Any:
    if isinstance(value, str):
        return _cut(value)
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= MAX_FIELD_CHARS else _cut(text)


def _turn(invocation: Invocation) -> dict[str, Any]:
    turn: dict[str, Any] = {"response": _cut(invocation.final_response.content if invocation.final_response else "")}
    if invocation.tools:
        turn["tool calls"] = [
            {"name": t.name, "arguments": _value(t.arguments), "result": _value(t.result)} for t in invocation.tools
        ]
    return turn


def case_score(result: EvalCaseResult, metric: str | None = None) -> float:
    """The score an optimiser maximises for one case run: 1.0 when it passed, else 0.0 (as ADK's sampler); with
    ``metric``, that metric's score (0.0 when it has none)."""
    if metric is None:
        return 1.0 if result.final_eval_status is EvalStatus.PASSED else 0.0
    for found in result.overall_eval_metric_results:
        if found.metric_name == metric:
            return found.score if found.score is not None else 0.0
    return 0.0


def _verdicts(result: EvalCaseResult) -> list[str]:
    lines = []
    for metric in result.overall_eval_metric_results:
        if metric.eval_status is EvalStatus.NOT_EVALUATED and metric.score is None:
            continue
        score = "none" if metric.score is None else f"{metric.score:.2f}"
        line = f"{metric.metric_name}: {metric.eval_status.value} (score {score}, threshold {metric.threshold:g})"
        reason = metric.details.reason if metric.details is not None else None
        lines.append(f"{line}: {_cut(reason.strip())}" if reason and reason.strip() else line)
    return lines


def case_feedback(result: EvalCaseResult, case: EvalCase | None) -> dict[str, Any]:
    """The record of one case run for the reflection model (JSON-serialisable, texts bounded)."""
    turns = result.eval_metric_result_per_invocation
    inputs = [_cut(t.actual_invocation.user_content.content) for t in turns]
    if not inputs and case is not None:
        inputs = [_cut(inv.user_content.content) for inv in case.conversation or []]
    record: dict[str, Any] = {"case": result.eval_id, "user turns": inputs}
    record["agent"] = [_turn(t.actual_invocation) for t in turns]
    expected = [_turn(t.expected_invocation) for t in turns if t.expected_invocation is not None]
    if expected:
        record["expected"] = expected
    verdict = "passed" if result.final_eval_status is EvalStatus.PASSED else result.final_eval_status.value
    feedback = [f"case {verdict}"]
    if result.error_message:
        feedback.append(f"error: {_cut(result.error_message.strip())}")
    feedback.extend(_verdicts(result))
    record["feedback"] = "\n".join(feedback)
    return record
