"""``tool_trajectory_avg_score``: 1/0 per invocation by tool calls, mean overall; trpc, ADK or ADK-TS semantics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..criteria import (
    AdkToolTrajectoryCriterion,
    CompareRegistry,
    MatchResult,
    ToolTrajectoryCriterion,
    match_adk_ts_tools,
)
from ..model import EvalMetric, Invocation
from ._base import EvaluateResult
from ._common import InvocationMatcher, ParsedCache, score_matches
from ._dialects import check_adk_ts_criterion, scoring_dialect

__all__ = ["ToolTrajectoryEvaluator"]


class _AdkTsTrajectory:
    """ADK-TS's rule (EXACT, arguments under ``JSON.stringify``); see :mod:`agentgauge.criteria._adk_ts`."""

    def match(self, actual: Invocation, expected: Invocation) -> MatchResult:
        """Compare the tool calls of two invocations position by position."""
        return match_adk_ts_tools(actual.tools, expected.tools)


_ADK_TS = _AdkTsTrajectory()


class ToolTrajectoryEvaluator:
    """Scores each invocation 1 when its tool calls satisfy the criterion, else 0; the metric is the mean.

    Dialect: ``criterion.toolTrajectory`` → trpc semantics (:class:`ToolTrajectoryCriterion`); an ADK criterion
    (``criterion.adk``, from ``test_config.json``) → ADK semantics (:class:`AdkToolTrajectoryCriterion`,
    ``match_type``/``ignore_args``), or ADK-TS's when that block says ``"dialect": "adk-ts"`` (EXACT only,
    arguments compared as ``JSON.stringify`` does); no criterion → trpc's built-in default (names, arguments and
    results exact).
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

    def matcher(self, metric: EvalMetric) -> InvocationMatcher:
        """The criterion this metric uses (raises :class:`CriterionError` for an invalid one)."""
        crit = metric.criterion
        live = crit.criterion_object("tool_trajectory") if crit is not None else None
        if isinstance(live, ToolTrajectoryCriterion):
            return live.resolve(self._compares)  # a Python object keeps its compare functions
        if crit is not None and crit.tool_trajectory is not None:
            return self._native.get(crit.tool_trajectory)
        if crit is not None and crit.adk is not None:
            if scoring_dialect(metric) == "adk-ts":
                check_adk_ts_criterion(crit.adk)
                return _ADK_TS
            return self._adk.get(crit.adk)
        return self._default

    def validate_metric(self, metric: EvalMetric) -> None:
        """Parse the metric's criterion now so configuration errors surface before a run."""
        self.matcher(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair; see the class docstring for the dialect rules."""
        out = score_matches(
            self.name, lambda: self.matcher(metric), actuals, expecteds, metric, "tool trajectory mismatch"
        )
        per = out.per_invocation_results
        if per:
            matched = sum(1 for r in per if r.score == 1.0)
            out.reason = f"{matched}/{len(per)} invocations matched the expected tool trajectory"
        return out
