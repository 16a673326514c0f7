"""Trajectory assertions as metrics (``trajectory_tool_used``, ``trajectory_tool_not_used``,
``trajectory_tool_sequence``, ``trajectory_step_count``, ``trajectory_no_loops``, ``trajectory_budget``): each
checks the whole case once, deterministically, and passes when its score reaches the threshold."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..criteria import ASSERTION_KINDS, CriterionError, TrajectoryAssertion
from ..model import EvalMetric, EvalStatus, Invocation, status_for_score
from ._base import EvaluateResult, NamedEvaluator, PerInvocationResult
from ._common import ParsedCache, criterion_error

__all__ = ["ASSERTION_DESCRIPTIONS", "TrajectoryAssertionEvaluator", "assertion_evaluators"]

ASSERTION_DESCRIPTIONS = {
    "trajectory_tool_used": "Assertion: the listed tools are each called minCalls..maxCalls times in the case "
    "(fraction of tools that are).",
    "trajectory_tool_not_used": "Assertion: none of the listed tools is called in the case (fraction never called).",
    "trajectory_tool_sequence": "Assertion: the listed tools are called in this order "
    "(fraction found in order, or exact 1/0).",
    "trajectory_step_count": "Assertion: the case's tool calls, model calls or turns are within min..max (1/0).",
    "trajectory_no_loops": "Assertion: no identical call (name + arguments) repeats more than maxRepeats times (1/0).",
    "trajectory_budget": "Assertion: the case's tokens and/or cost are at most maxTokens / maxCost (1/0).",
}

_NOT_CONFIG = frozenset({"threshold", "dialect"})  # keys of an ADK criterion block that belong to the metric


def _config(metric: EvalMetric) -> Any:
    """The assertion's settings: ``criterion.assertion`` (metrics file) or the ``test_config.json`` criterion."""
    crit = metric.criterion
    if crit is not None and crit.adk is not None:
        return {k: v for k, v in crit.adk.items() if k not in _NOT_CONFIG}
    block = (crit.model_extra or {}).get("assertion") if crit is not None else None
    if block is None:
        raise CriterionError('needs its settings in "criterion": {"assertion": {...}} (see docs/metrics.md)')
    return block


class TrajectoryAssertionEvaluator(NamedEvaluator):
    """One trajectory assertion as a metric. Earlier turns are ``not_evaluated``; the last turn carries the case's
    score and reason, which are also the overall ones (no score when what it measures was not recorded)."""

    needs_expected = False

    def __init__(self, name: str, kind: type[TrajectoryAssertion]) -> None:
        super().__init__(name, ASSERTION_DESCRIPTIONS[name])
        self._parsed: ParsedCache[TrajectoryAssertion] = ParsedCache(kind.model_validate)

    def assertion(self, metric: EvalMetric) -> TrajectoryAssertion:
        """The metric's assertion (raises :class:`CriterionError` when its settings are missing or invalid)."""
        return self._parsed.get(_config(metric))

    def validate_metric(self, metric: EvalMetric) -> None:
        """Parse the settings now, so a mistake is reported before a run."""
        self.assertion(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Check the assertion over every actual invocation of the case."""
        try:
            assertion = self.assertion(metric)
        except CriterionError as exc:
            raise criterion_error(metric, exc) from None
        if not actuals:
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED)
        outcome = assertion.check(actuals)
        status = status_for_score(outcome.score, metric.threshold)
        pairs = list(zip(actuals, [*expecteds, *[None] * (len(actuals) - len(expecteds))], strict=True))
        per = [PerInvocationResult(a, e, None, EvalStatus.NOT_EVALUATED) for a, e in pairs[:-1]]
        per.append(PerInvocationResult(pairs[-1][0], pairs[-1][1], outcome.score, status, outcome.reason))
        return EvaluateResult(outcome.score, status, per, outcome.reason)


def assertion_evaluators() -> list[TrajectoryAssertionEvaluator]:
    """One evaluator per trajectory assertion metric."""
    return [TrajectoryAssertionEvaluator(name, kind) for name, kind in ASSERTION_KINDS.items()]
