"""Shared scoring loop of the deterministic evaluators: count check, per-invocation status, mean."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from ..criteria import CriterionError, MatchResult
from ..model import EvalMetric, EvalStatus, Invocation, status_for_score
from ._base import EvaluateResult, EvaluatorError, PerInvocationResult

__all__ = ["InvocationMatcher", "ParsedCache", "check_counts", "criterion_error", "score_matches", "summarize"]

T = TypeVar("T")


def check_counts(name: str, actuals: Sequence[Invocation], expecteds: Sequence[Invocation]) -> None:
    """Raise :class:`EvaluatorError` when the two lists differ in length."""
    if len(actuals) != len(expecteds):
        raise EvaluatorError(
            f"{name}: actual invocations ({len(actuals)}) and expected invocations ({len(expecteds)}) count mismatch"
        )


def criterion_error(metric: EvalMetric, exc: CriterionError) -> EvaluatorError:
    """The evaluator error for a criterion that cannot be used (bad configuration, invalid regex, ...)."""
    return EvaluatorError(f"{metric.metric_name}: invalid criterion: {exc}")


class InvocationMatcher(Protocol):
    """Anything that decides whether an actual invocation matches the expected one."""

    def match(self, actual: Invocation, expected: Invocation) -> MatchResult:
        """Match ``actual`` against ``expected``."""
        ...


def score_matches(
    name: str,
    matcher: Callable[[], InvocationMatcher],
    actuals: Sequence[Invocation],
    expecteds: Sequence[Invocation],
    metric: EvalMetric,
    mismatch: str,
) -> EvaluateResult:
    """Score each invocation pair 1 when ``matcher()`` accepts it, else 0 with ``"<mismatch>: <reason>"``.

    ``matcher`` is called inside the loop's error handling so an unusable criterion becomes an
    :class:`EvaluatorError` naming the metric.
    """
    check_counts(name, actuals, expecteds)
    try:
        criterion = matcher()
        per: list[PerInvocationResult] = []
        for actual, expected in zip(actuals, expecteds, strict=True):
            result = criterion.match(actual, expected)
            score = 1.0 if result.ok else 0.0
            reason = "" if result.ok else f"{mismatch}: {result.reason or 'no detail'}"
            per.append(PerInvocationResult(actual, expected, score, status_for_score(score, metric.threshold), reason))
    except CriterionError as exc:
        raise criterion_error(metric, exc) from None
    return summarize(per, metric.threshold)


def summarize(per: list[PerInvocationResult], threshold: float) -> EvaluateResult:
    """Mean of the per-invocation scores; ``not_evaluated`` with no score when there is nothing to score."""
    if not per:
        return EvaluateResult(overall_score=None, overall_status=EvalStatus.NOT_EVALUATED)
    total = 0.0
    for r in per:
        total += r.score if r.score is not None else 0.0
    overall = total / len(per)
    return EvaluateResult(
        overall_score=overall, overall_status=status_for_score(overall, threshold), per_invocation_results=per
    )


class ParsedCache(Generic[T]):
    """Parsed criteria keyed by their source dict, so a metric's criterion is parsed once per run, not per case.

    An entry is reused only while the source is the same object with the same content (metrics are mutable).
    """

    def __init__(self, parse: Callable[[Any], T], size: int = 64) -> None:
        self._parse = parse
        self._size = size
        self._entries: dict[int, tuple[Any, Any, T]] = {}

    def get(self, source: Any) -> T:
        """The parsed form of ``source`` (parsed now if unseen or changed)."""
        hit = self._entries.get(id(source))
        if hit is not None and hit[0] is source and hit[1] == source:
            return hit[2]
        parsed = self._parse(source)
        if len(self._entries) >= self._size:
            self._entries.clear()
        self._entries[id(source)] = (source, copy.deepcopy(source), parsed)
        return parsed
