"""Sample aggregators (majority votes) and invocation aggregators (averages) for judge metrics."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...model import EvalStatus, RubricScore, status_for_score
from .._base import EvaluateResult, PerInvocationResult
from ._sample import Sample

__all__ = [
    "average_invocations",
    "majority_vote",
    "mean_of_evaluated",
    "mean_samples",
    "pooled_rubric_mean",
    "rubric_majority_vote",
]


def majority_vote(samples: Sequence[Sample], positive: Callable[[Sample], bool]) -> Sample:
    """The first sample of the winning side, unchanged (no averaging).

    Samples without a score are skipped; the rest split into positive and negative. More positives → the first
    positive; a tie or more negatives → the first negative; nothing scored → the first sample.
    """
    if not samples:
        raise ValueError("majority vote over no samples")
    scored = [s for s in samples if s.score is not None]
    pos = [s for s in scored if positive(s)]
    neg = [s for s in scored if not positive(s)]
    if len(pos) > len(neg):
        return pos[0]
    if neg:
        return neg[0]
    return samples[0]


def mean_samples(samples: Sequence[Sample]) -> Sample:
    """Mean score of the scored samples (for graded 1–5 scores, where a vote makes no sense)."""
    scored = [s for s in samples if s.score is not None]
    if not scored:
        return samples[0]
    mean = sum(s.score for s in scored if s.score is not None) / len(scored)
    reasons = [s.reason for s in scored if s.reason]
    return Sample(mean, reasons[0] if len(scored) == 1 and reasons else "\n".join(reasons))


def rubric_majority_vote(samples: Sequence[Sample]) -> Sample:
    """ADK's per-rubric vote: for each rubric, more yes than no → its first yes; tie or more no → its first no;
    no verdicts → an unscored entry. Score = mean of the voted rubric scores."""
    order: list[str] = []
    entries: dict[str, list[RubricScore]] = {}
    for sample in samples:
        for item in sample.rubric_scores:
            if item.id not in entries:
                order.append(item.id)
                entries[item.id] = []
            entries[item.id].append(item)
    voted: list[RubricScore] = []
    for rid in order:
        items = entries[rid]
        yes = [i for i in items if i.score is not None and i.score >= 0.5]
        no = [i for i in items if i.score is not None and i.score < 0.5]
        if len(yes) > len(no):
            voted.append(yes[0])
        elif no:
            voted.append(no[0])
        else:
            voted.append(RubricScore(id=rid, reason=items[0].reason, score=None))
    scores = [v.score for v in voted if v.score is not None]
    if not scores:
        reasons = "; ".join(s.reason for s in samples if s.reason)
        return Sample(None, reasons or "no rubric verdicts", voted)
    reason = "\n".join(f"{v.id}: {v.reason}" for v in voted)
    return Sample(sum(scores) / len(scores), reason, voted)


def _per_rubric_means(results: Sequence[PerInvocationResult]) -> list[RubricScore]:
    order: list[str] = []
    values: dict[str, list[float]] = {}
    for result in results:
        for item in result.rubric_scores:
            if item.id not in values:
                order.append(item.id)
                values[item.id] = []
            if item.score is not None:
                values[item.id].append(item.score)
    return [
        RubricScore(
            id=rid,
            reason=f"mean over {len(values[rid])} invocation(s)",
            score=sum(values[rid]) / len(values[rid]) if values[rid] else None,
        )
        for rid in order
    ]


def _joined_reason(results: Sequence[PerInvocationResult]) -> str:
    if len(results) == 1:
        return results[0].reason
    return "\n".join(f"invocation {i + 1}: {r.reason}" for i, r in enumerate(results) if r.reason)


def average_invocations(results: Sequence[PerInvocationResult], threshold: float) -> EvaluateResult:
    """trpc's average: mean over results that were evaluated; none evaluated → not_evaluated with score 0."""
    evaluated = [r for r in results if r.status is not EvalStatus.NOT_EVALUATED and r.score is not None]
    if not evaluated:
        return EvaluateResult(0.0, EvalStatus.NOT_EVALUATED, list(results), _joined_reason(results))
    mean = sum(r.score for r in evaluated if r.score is not None) / len(evaluated)
    return EvaluateResult(
        mean, status_for_score(mean, threshold), list(results), _joined_reason(results), _per_rubric_means(results)
    )


def mean_of_evaluated(results: Sequence[PerInvocationResult], threshold: float) -> EvaluateResult:
    """ADK's overall: Σ score / #evaluated over results with a score; none → score ``None``, not evaluated."""
    scored = [r.score for r in results if r.score is not None and r.status is not EvalStatus.NOT_EVALUATED]
    reason = _joined_reason(results)
    if not scored:
        return EvaluateResult(None, EvalStatus.NOT_EVALUATED, list(results), reason)
    mean = sum(scored) / len(scored)
    return EvaluateResult(mean, status_for_score(mean, threshold), list(results), reason, _per_rubric_means(results))


def pooled_rubric_mean(results: Sequence[PerInvocationResult], threshold: float) -> EvaluateResult:
    """ADK rubric metrics: the mean of every per-invocation rubric score pooled together (not of invocation
    means); ``rubric_scores`` holds each rubric's mean."""
    pooled = [
        item.score
        for r in results
        if r.status is not EvalStatus.NOT_EVALUATED
        for item in r.rubric_scores
        if item.score is not None
    ]
    reason = _joined_reason(results)
    if not pooled:
        return EvaluateResult(None, EvalStatus.NOT_EVALUATED, list(results), reason)
    mean = sum(pooled) / len(pooled)
    return EvaluateResult(mean, status_for_score(mean, threshold), list(results), reason, _per_rubric_means(results))
