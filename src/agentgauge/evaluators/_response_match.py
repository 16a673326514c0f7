"""``response_match_score``: Google ADK's ROUGE-1 F-measure of the final response, reproduced bit for bit (or
ADK-TS's, in the ``adk-ts`` dialect)."""

from __future__ import annotations

from collections.abc import Sequence

from ..criteria import CriterionError, adk_rouge1, adk_ts_rouge1
from ..model import EvalMetric, EvalStatus, Invocation, status_for_score
from ._base import EvaluateResult, PerInvocationResult
from ._common import check_counts, criterion_error, summarize
from ._dialects import scoring_dialect

__all__ = ["ResponseMatchEvaluator"]


def _text(inv: Invocation) -> str:
    return inv.final_response.content if inv.final_response is not None else ""


class ResponseMatchEvaluator:
    """ROUGE-1 F of the actual final response against the expected one, per invocation; the metric is the mean.

    Tokenization is ADK's Unicode-aware one (NFKC, lowercase, CJK per character, Thai/Lao/Khmer/Myanmar
    clusters, non-ASCII words whole, ASCII words Porter-stemmed when longer than 3 characters). Passes when the
    mean is ``>= metric.threshold``.

    In the ``adk-ts`` dialect the score is ADK-TS's: sets of lowercased ASCII words, no stemming or normalisation,
    and no score (``not_evaluated``) for an invocation whose actual or expected final response is missing; the
    mean is over the scored invocations, and with none scored the metric has no score and fails, as in ADK-TS.
    """

    name = "response_match_score"
    description = "ROUGE-1 F-measure of the final response against the expected one (ADK-exact), mean."

    def validate_metric(self, metric: EvalMetric) -> None:
        """Only the threshold and the dialect are used: check the dialect."""
        scoring_dialect(metric)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Score every invocation pair."""
        check_counts(self.name, actuals, expecteds)
        try:
            dialect = scoring_dialect(metric)
        except CriterionError as exc:
            raise criterion_error(metric, exc) from None
        if dialect == "adk-ts":
            return _adk_ts_scores(actuals, expecteds, metric.threshold)
        threshold = metric.threshold
        per: list[PerInvocationResult] = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            s = adk_rouge1(_text(actual), _text(expected))
            reason = f"rouge1 f1={s.fmeasure:.6f} precision={s.precision:.6f} recall={s.recall:.6f}"
            per.append(
                PerInvocationResult(actual, expected, s.fmeasure, status_for_score(s.fmeasure, threshold), reason)
            )
        return summarize(per, threshold)


def _adk_ts_scores(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], threshold: float) -> EvaluateResult:
    """ADK-TS's ``ResponseEvaluator``: an invocation missing a final response on either side gets no score."""
    per: list[PerInvocationResult] = []
    total, scored = 0.0, 0
    for actual, expected in zip(actuals, expecteds, strict=True):
        if actual.final_response is None or expected.final_response is None:
            side = "actual" if actual.final_response is None else "expected"
            reason = f"no {side} final response: ADK-TS gives no score"
            per.append(PerInvocationResult(actual, expected, None, EvalStatus.NOT_EVALUATED, reason))
            continue
        s = adk_ts_rouge1(actual.final_response.content, expected.final_response.content)
        reason = (
            f"adk-ts rouge1 (ASCII word sets) f1={s.fmeasure:.6f} precision={s.precision:.6f} recall={s.recall:.6f}"
        )
        per.append(PerInvocationResult(actual, expected, s.fmeasure, status_for_score(s.fmeasure, threshold), reason))
        total += s.fmeasure  # summed in order, as ADK-TS's reduce does
        scored += 1
    if not scored:
        # ADK-TS's ResponseEvaluator fails a metric it could not score at all (and its AgentEvaluator fails the case
        # for any metric that did not pass): no score, status failed.
        return EvaluateResult(
            None, EvalStatus.FAILED, per, "no invocation has both final responses: ADK-TS fails the metric"
        )
    overall = total / scored
    return EvaluateResult(overall, status_for_score(overall, threshold), per)
