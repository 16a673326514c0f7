"""``tool_trajectory_avg_score``: 1/0 per invocation by tool calls, mean overall; trpc or ADK semantics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ..criteria import AdkToolTrajectoryCriterion, CompareRegistry, CriterionError, MatchResult, ToolTrajectoryCriterion
from ..model import EvalMetric, Invocation, status_for_score
from ._base import EvaluateResult, PerInvocationResult
from ._common import ParsedCache, check_counts, criterion_error, summarize

__all__ = ["ToolTrajectoryEvaluator"]


class _InvocationMatcher(Protocol):
    def match(self, actual: Invocation, expected: Invocation) -> MatchResult: ...


class ToolTrajectoryEvaluator:
    """Scores each invocation 1 when its tool calls satisfy the criterion, else 0; the metric is the mean.

    Dialect: ``criterion.toolTrajectory`` → trpc semantics (:class:`ToolTrajectoryCriterion`); an ADK criterion
    (``criterion.adk``, from ``test_config.json``) → ADK semantics (:class:`AdkToolTrajectoryCriterion`,
    ``match_type``/``ignore_args``); no criterion → trpc's built-in default (names, arguments and results exact).
    """

    name = "tool_trajectory_avg_score"
    description = "Tool calls match the expected trajectory (1/0 per invocation, mean)."

    def __init__(self, compares: CompareRegistry | None = None) -> None:
        self._compares = compares if compares is not None else CompareRegistry()
        self._native = ParsedCache(self._parse_native)
        self._adk = ParsedCache(AdkToolTrajectoryCriterion.model_validate)
        self._default = ToolTrajectoryCriterion()

    def _parse_native(self, data: Any) -> ToolTrajectoryCriterion:
        return ToolTrajectoryCriterion.model_validate(data).resolve(self._compares)

    def matcher(self, metric: EvalMetric) -> _InvocationMatcher:
        """The criterion this metric uses (raises :class:`CriterionError` for an invalid one)."""
        crit = metric.criterion
        if crit is not None and crit.tool_trajectory is not None:
            return self._native.get(crit.tool_trajectory)
        if crit is not None and crit.adk is not None:
            return self._adk.get(crit.adk)
        return self._default

    def validate_metric(self, metric: EvalMetric) -> None:
        """Parse the metric's criterion now so configuration errors surface before a run."""
        self.matcher(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair; see the class docstring for the dialect rules."""
        check_counts(self.name, actuals, expecteds)
        try:
            matcher = self.matcher(metric)
            per: list[PerInvocationResult] = []
            for actual, expected in zip(actuals, expecteds, strict=True):
                result = matcher.match(actual, expected)
                score = 1.0 if result.ok else 0.0
                reason = "" if result.ok else f"tool trajectory mismatch: {result.reason}"
                per.append(
                    PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold), reason)
                )
        except CriterionError as exc:
            raise criterion_error(metric, exc) from None
        out = summarize(per, metric.threshold)
        if per:
            matched = sum(1 for r in per if r.score == 1.0)
            out.reason = f"{matched}/{len(per)} invocations matched the expected tool trajectory"
        return out
