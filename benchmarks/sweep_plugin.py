"""Evaluators that other frameworks' sample metrics files name but register in their own code.

``benchmarks/sweep_seed_files.py`` loads this module with ``--plugin`` (as a user would load theirs):

- ``support_response_policy`` (trpc-agent-go ``examples/evaluation/metricextension``, whose Go program registers
  it): 1 when the final answer contains ``extension.requiredPhrase`` (letter case ignored), per invocation; the
  metric is the mean.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentgauge.evaluators import EvaluateResult, PerInvocationResult, Registry
from agentgauge.model import EvalMetric, EvalStatus, Invocation, status_for_score


class ResponsePolicyEvaluator:
    """``support_response_policy``: the final answer must contain ``extension.requiredPhrase``."""

    name = "support_response_policy"
    description = "1 when the final answer contains extension.requiredPhrase (case-insensitive), mean"
    needs_expected = False

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score each invocation 1/0; a missing ``requiredPhrase`` is a broken configuration."""
        phrase = (metric.extension or {}).get("requiredPhrase")
        if not isinstance(phrase, str) or not phrase:
            raise ValueError("extension.requiredPhrase must be a non-empty string")
        results = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            text = actual.final_response.content if actual.final_response else ""
            score = 1.0 if phrase.lower() in text.lower() else 0.0
            results.append(PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold)))
        if not results:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        mean = sum(r.score or 0.0 for r in results) / len(results)
        return EvaluateResult(mean, status_for_score(mean, metric.threshold), results)


def register(registry: Registry) -> None:
    """Called by agentgauge when the plug-in is loaded."""
    registry.register(ResponsePolicyEvaluator())
