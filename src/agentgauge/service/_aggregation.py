"""The case-level score of trpc-agent-go (``evalCaseResults[].score``): a case result aggregator turns one case
run's metric results into a score and a status.

The default, :class:`TrpcCaseAggregator`, is trpc's own: the status summarises the metric statuses, the score is 1
for a passed case and 0 otherwise; it scores the cases whose metrics all follow trpc's rules (ADK criteria get no
case score, as ADK has none). Any object with an ``aggregate`` method (:class:`CaseResultAggregator`), given to
:class:`~agentgauge.run.AgentEvaluator` as ``case_aggregator``, replaces it for every case: a weighted score, a
case that passes on most metrics. A case that errored (its agent, a metric's evaluator, a rubric) gets no score.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..model import EvalCase, EvalMetric, EvalMetricResult, EvalStatus, summarize_statuses

__all__ = [
    "CaseAggregationError",
    "CaseResultAggregator",
    "CaseScore",
    "CaseScoreInput",
    "TrpcCaseAggregator",
    "score_case",
]

_CASE_STATUSES = (EvalStatus.PASSED, EvalStatus.FAILED, EvalStatus.NOT_EVALUATED)


@dataclass(frozen=True, slots=True)
class CaseScoreInput:
    """What an aggregator sees of one case run: the app, the eval set id, the case, the metrics it was scored
    with (rubrics of the case merged in) and their overall results in the same order, and the status the metrics
    gave the case (before the aggregator)."""

    app_name: str
    eval_set_id: str
    eval_case: EvalCase
    eval_metrics: Sequence[EvalMetric]
    metric_results: Sequence[EvalMetricResult]
    status: EvalStatus


@dataclass(frozen=True, slots=True)
class CaseScore:
    """An aggregator's answer: a finite ``score`` and a ``status`` (passed, failed or not evaluated)."""

    score: float
    status: EvalStatus


@runtime_checkable
class CaseResultAggregator(Protocol):
    """Turns a case run's metric results into its case score and status (trpc's ``EvalCaseResultAggregator``).

    ``aggregate`` may be a plain or an ``async`` method. An aggregator that raises, or answers a score that is not
    finite or another status, makes the case an ``error`` naming it (the run goes on)."""

    def aggregate(self, data: CaseScoreInput) -> CaseScore | Awaitable[CaseScore]:
        """The case's score and status."""
        ...


class CaseAggregationError(Exception):
    """An aggregator failed or answered something unusable; the message says what."""


class TrpcCaseAggregator:
    """trpc-agent-go's default aggregator: the summary of the metric statuses (failed before passed; none, or
    only not evaluated ones: not evaluated), scored 1 when passed, else 0."""

    def aggregate(self, data: CaseScoreInput) -> CaseScore:
        """Score 1 for a passed case, 0 for a failed or not evaluated one."""
        status = summarize_statuses(m.eval_status for m in data.metric_results)
        if status not in _CASE_STATUSES:
            status = EvalStatus.FAILED
        return CaseScore(1.0 if status is EvalStatus.PASSED else 0.0, status)


_DEFAULT = TrpcCaseAggregator()


def _trpc_scored(metrics: Sequence[EvalMetric]) -> bool:
    """Whether every metric follows trpc's rules (none carries an ADK criterion)."""
    return bool(metrics) and all(m.criterion is None or m.criterion.adk is None for m in metrics)


async def score_case(aggregator: CaseResultAggregator | None, data: CaseScoreInput) -> tuple[float | None, EvalStatus]:
    """The case score and status of ``data``: ``aggregator``'s answer, or (``None``) the default's for a case
    scored by trpc's rules. ``(None, data.status)`` for an errored case and for the default on other cases.

    Raises :class:`CaseAggregationError` when the aggregator raises or answers an unusable value."""
    if data.status is EvalStatus.ERROR:
        return None, data.status
    if aggregator is None:
        if not _trpc_scored(data.eval_metrics):
            return None, data.status
        aggregator = _DEFAULT
    name = type(aggregator).__name__
    try:
        answer = aggregator.aggregate(data)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as exc:
        raise CaseAggregationError(f"case result aggregator {name} failed: {exc or type(exc).__name__}") from None
    if not isinstance(answer, CaseScore):
        raise CaseAggregationError(f"case result aggregator {name} returned {type(answer).__name__}, not CaseScore")
    score, status = answer.score, answer.status
    if isinstance(score, bool) or not isinstance(score, int | float) or not math.isfinite(score):
        raise CaseAggregationError(f"case result aggregator {name}: the score must be a finite number, got {score!r}")
    if status not in _CASE_STATUSES:
        raise CaseAggregationError(
            f"case result aggregator {name}: the status must be passed, failed or not_evaluated, got {status!r}"
        )
    return float(score), EvalStatus(status)
