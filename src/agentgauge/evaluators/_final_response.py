"""``final_response_avg_score``: the final answer compared as JSON/text/ROUGE, 1/0 per invocation, mean."""

from __future__ import annotations

from collections.abc import Sequence

from ..criteria import CompareRegistry, FinalResponseCriterion
from ..model import EvalMetric, Invocation
from ._base import FINAL_RESPONSE_DESCRIPTION, FINAL_RESPONSE_METRIC, EvaluateResult, EvaluatorError
from ._common import ParsedCache, score_matches

__all__ = ["FinalResponseEvaluator"]


class FinalResponseEvaluator:
    """Scores each invocation 1 when its final response satisfies ``criterion.finalResponse``, else 0."""

    name = FINAL_RESPONSE_METRIC
    description = FINAL_RESPONSE_DESCRIPTION

    def __init__(self, compares: CompareRegistry | None = None) -> None:
        self._compares = compares if compares is not None else CompareRegistry()
        self._cache = ParsedCache(lambda d: FinalResponseCriterion.model_validate(d).resolve(self._compares))

    def criterion(self, metric: EvalMetric) -> FinalResponseCriterion:
        """The metric's parsed criterion; :class:`EvaluatorError` when ``finalResponse`` is not configured."""
        crit = metric.criterion
        if crit is None or crit.final_response is None:
            raise EvaluatorError(f"{self.name}: finalResponse criterion not configured for metric {metric.metric_name}")
        live = crit.criterion_object("final_response")
        if isinstance(live, FinalResponseCriterion):
            return live.resolve(self._compares)  # a Python object keeps its compare functions
        return self._cache.get(crit.final_response)

    def validate_metric(self, metric: EvalMetric) -> None:
        """Parse the metric's criterion now so configuration errors surface before a run."""
        self.criterion(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair with the configured final-response criterion."""
        return score_matches(
            self.name, lambda: self.criterion(metric), actuals, expecteds, metric, "final response mismatch"
        )
