"""An agentgauge plug-in: a metric and a named compare, registered without any runner script.

Use it with ``--plugin examples.plugins.length_plugin`` (from the repository root) or list it under
``[tool.agentgauge] plugins`` in your ``pyproject.toml``.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentgauge.evaluators import EvaluateResult, PerInvocationResult, Registry
from agentgauge.model import EvalMetric, EvalStatus, Invocation, status_for_score


class AnswerLengthEvaluator:
    """``answer_length``: 1 when the final answer has at most ``extension.maxChars`` characters (default 200)."""

    name = "answer_length"
    description = "1 when the final answer is at most extension.maxChars characters (default 200), mean"
    needs_expected = False

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score each invocation 1/0 by the length of its final answer; the metric is the mean."""
        limit = int((metric.extension or {}).get("maxChars", 200))
        results = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            text = actual.final_response.content if actual.final_response else ""
            score = 1.0 if len(text) <= limit else 0.0
            reason = f"{len(text)} characters (limit {limit})"
            results.append(
                PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold), reason)
            )
        if not results:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        mean = sum(r.score or 0.0 for r in results) / len(results)
        return EvaluateResult(mean, status_for_score(mean, metric.threshold), results)


def same_first_word(actual: str, expected: str) -> bool:
    """A text compare: both texts start with the same word (case-insensitive)."""
    return actual.lower().split()[:1] == expected.lower().split()[:1]


def register(registry: Registry) -> None:
    """Called by agentgauge when the plug-in is loaded."""
    registry.register(AnswerLengthEvaluator())
    registry.compares.register_text("same_first_word", same_first_word)
