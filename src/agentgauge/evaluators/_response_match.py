"""``response_match_score``: Google ADK's ROUGE-1 F-measure of the final response, reproduced bit for bit."""

from __future__ import annotations

from collections.abc import Sequence

from ..criteria import adk_rouge1
from ..model import EvalMetric, Invocation, status_for_score
from ._base import EvaluateResult, PerInvocationResult
from ._common import check_counts, summarize

__all__ = ["ResponseMatchEvaluator"]


def _text(inv: Invocation) -> str:
    return inv.final_response.content if inv.final_response is not None else ""


class ResponseMatchEvaluator:
    """ROUGE-1 F of the actual final response against the expected one, per invocation; the metric is the mean.

    Tokenization is ADK's Unicode-aware one (NFKC, lowercase, CJK per character, Thai/Lao/Khmer/Myanmar
    clusters, non-ASCII words whole, ASCII words Porter-stemmed when longer than 3 characters). Passes when the
    mean is ``>= metric.threshold``.
    """

    name = "response_match_score"
    description = "ROUGE-1 F-measure of the final response against the expected one (ADK-exact), mean."

    def validate_metric(self, metric: EvalMetric) -> None:
        """Nothing to parse: only the threshold is used."""

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair."""
        check_counts(self.name, actuals, expecteds)
        threshold = metric.threshold
        per: list[PerInvocationResult] = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            s = adk_rouge1(_text(actual), _text(expected))
            reason = f"rouge1 f1={s.fmeasure:.6f} precision={s.precision:.6f} recall={s.recall:.6f}"
            per.append(
                PerInvocationResult(actual, expected, s.fmeasure, status_for_score(s.fmeasure, threshold), reason)
            )
        return summarize(per, threshold)
