"""``final_response_avg_score``: the final answer compared as JSON/text/ROUGE, 1/0 per invocation, mean."""

from __future__ import annotations

from collections.abc import Sequence

from ..criteria import CompareRegistry, CriterionError, FinalResponseCriterion
from ..model import EvalMetric, Invocation, status_for_score
from ._base import EvaluateResult, EvaluatorError, PerInvocationResult
from ._common import ParsedCache, check_counts, criterion_error, summarize

__all__ = ["FinalResponseEvaluator"]


class FinalResponseEvaluator:
    """Scores each invocation 1 when its final response satisfies ``criterion.finalResponse``, else 0."""

    name = "final_response_avg_score"
    description = "Final response matches the expected one by text/JSON/ROUGE rules (1/0 per invocation, mean)."

    def __init__(self, compares: CompareRegistry | None = None) -> None:
        self._compares = compares if compares is not None else CompareRegistry()
        self._cache = ParsedCache(lambda d: FinalResponseCriterion.model_validate(d).resolve(self._compares))

    def criterion(self, metric: EvalMetric) -> FinalResponseCriterion:
        """The metric's parsed criterion; :class:`EvaluatorError` when ``finalResponse`` is not configured."""
        crit = metric.criterion
        if crit is None or crit.final_response is None:
            raise EvaluatorError(f"{self.name}: finalResponse criterion not configured for metric {metric.metric_name}")
        return self._cache.get(crit.final_response)

    def validate_metric(self, metric: EvalMetric) -> None:
        """Parse the metric's criterion now so configuration errors surface before a run."""
        self.criterion(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair with the configured final-response criterion."""
        check_counts(self.name, actuals, expecteds)
        try:
            criterion = self.criterion(metric)
            per: list[PerInvocationResult] = []
            for actual, expected in zip(actuals, expecteds, strict=True):
                result = criterion.match(actual, expected)
                score = 1.0 if result.ok else 0.0
                reason = "" if result.ok else f"final response mismatch: {result.reason or 'no detail'}"
                per.append(
                    PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold), reason)
                )
        except CriterionError as exc:
            raise criterion_error(metric, exc) from None
        return summarize(per, metric.threshold)
