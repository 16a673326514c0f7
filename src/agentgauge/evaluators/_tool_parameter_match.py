"""``tool_parameter_match``: per-argument partial credit for the expected tool calls, as Google ADK's
``_ToolParameterMatchEvaluator`` (added on ADK's main branch after the 2.13 release) scores it.

Per invocation: each expected call is aligned with the next actual call of the same name (searching forward from
the call after the previous match; an expected call with no such call scores 0 and consumes nothing). A matched
call scores the fraction of its expected arguments the actual call has with an equal value (Python ``==``: ``1 ==
1.0 == True``); an expected call without arguments scores 1. The invocation scores the mean over its expected calls;
an invocation without expected calls is not evaluated. The metric is the mean over the evaluated invocations.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..criteria._show import show
from ..model import EvalMetric, EvalStatus, Invocation, Tool, status_for_score
from ._base import EvaluateResult, PerInvocationResult
from ._common import check_counts

__all__ = ["ToolParameterMatchEvaluator", "score_tool_parameters"]


def _call_score(actual: Tool, expected: Tool) -> tuple[float, str]:
    """The fraction of ``expected``'s arguments ``actual`` matches, and the arguments that differ."""
    wanted = expected.arguments or {}
    if not wanted:
        return 1.0, ""
    if not isinstance(wanted, dict):  # not an ADK shape (genai args are objects): the whole value must be equal
        return (
            (1.0, "")
            if actual.arguments == wanted
            else (0.0, f"actual {show(actual.arguments)} != expected {show(wanted)}")
        )
    given: Any = actual.arguments if isinstance(actual.arguments, dict) else {}
    misses = []
    for name, value in wanted.items():
        if name not in given:
            misses.append(f"{name}: missing in actual, expected {show(value)}")
        elif given[name] != value:
            misses.append(f"{name}: actual {show(given[name])} != expected {show(value)}")
    return (len(wanted) - len(misses)) / len(wanted), "; ".join(misses)


def score_tool_parameters(actual: Sequence[Tool], expected: Sequence[Tool]) -> tuple[float | None, str]:
    """One invocation's score (``None`` without expected calls) and a reason listing each expected call's credit."""
    if not expected:
        return None, "no expected tool calls: not evaluated"
    scores: list[float] = []
    notes: list[str] = []
    start = 0
    for k, call in enumerate(expected):
        index = next((i for i in range(start, len(actual)) if actual[i].name == call.name), None)
        if index is None:
            scores.append(0.0)
            notes.append(f"expected call {k} ({call.name}): no actual call named {call.name!r} from call {start} on: 0")
            continue
        start = index + 1
        score, misses = _call_score(actual[index], call)
        scores.append(score)
        detail = f" ({misses})" if misses else ""
        notes.append(f"expected call {k} ({call.name}) ~ actual call {index}: {score:.6g}{detail}")
    return sum(scores) / len(scores), "; ".join(notes)  # sum() as ADK's evaluator does


class ToolParameterMatchEvaluator:
    """Partial credit per expected argument, calls aligned by name in order (ADK main branch, after 2.13)."""

    name = "tool_parameter_match"
    description = "Partial credit per expected tool argument, calls aligned by name in order (ADK main branch)."

    def validate_metric(self, metric: EvalMetric) -> None:
        """Nothing to parse: only the threshold is used."""

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair; the metric is the mean over those with expected calls."""
        check_counts(self.name, actuals, expecteds)
        per: list[PerInvocationResult] = []
        scored: list[float] = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            score, reason = score_tool_parameters(actual.tools, expected.tools)
            per.append(PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold), reason))
            if score is not None:
                scored.append(score)
        if not scored:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED, per, "no invocation has expected tool calls")
        overall = sum(scored) / len(scored)
        return EvaluateResult(overall, status_for_score(overall, metric.threshold), per)
