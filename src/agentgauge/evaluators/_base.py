"""The evaluator contract: what an evaluator receives and returns."""

from __future__ import annotations

from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..model import ConversationScenario, EvalCase, EvalMetric, EvalStatus, Invocation, RubricScore, ScoreValue

__all__ = [
    "CURRENT_CASE",
    "FINAL_RESPONSE_DESCRIPTION",
    "FINAL_RESPONSE_METRIC",
    "EvaluateResult",
    "Evaluator",
    "EvaluatorError",
    "NamedEvaluator",
    "PerInvocationResult",
    "current_scenario",
]

FINAL_RESPONSE_METRIC = "final_response_avg_score"
FINAL_RESPONSE_DESCRIPTION = (
    "Final response matches the expected one by text/JSON/ROUGE rules (1/0 per invocation, mean)."
)

CURRENT_CASE: ContextVar[EvalCase | None] = ContextVar("agentgauge_current_case", default=None)
"""The eval case being scored (set by the run engine while its metrics run)."""


def current_scenario() -> ConversationScenario | None:
    """The ``conversationScenario`` of the case being scored, for metrics that judge a simulated user."""
    case = CURRENT_CASE.get()
    return case.conversation_scenario if case is not None else None


class EvaluatorError(Exception):
    """An evaluator could not score (missing criterion, count mismatch, judge failure after retries, ...).

    The service records it as the case's ``errorMessage`` (the case fails); the rest of the set still runs.
    """


class NamedEvaluator:
    """Base of an evaluator whose metric name and description are given when it is made (one class, many
    metrics), read back through the :class:`Evaluator` properties."""

    def __init__(self, name: str, description: str) -> None:
        self._name = name
        self._description = description

    @property
    def name(self) -> str:
        """The metric name."""
        return self._name

    @property
    def description(self) -> str:
        """What the metric reports."""
        return self._description


@dataclass(slots=True)
class PerInvocationResult:
    """One invocation's score for one metric, with the reason that reproduces it.

    ``token_usage_details`` / ``duration_details`` are the breakdowns of ADK's efficiency metrics; ``value`` is the
    typed value behind the score (a judge's number, boolean verdict or category), where the metric knows it.
    """

    actual_invocation: Invocation
    expected_invocation: Invocation | None
    score: float | None
    status: EvalStatus
    reason: str = ""
    rubric_scores: list[RubricScore] = field(default_factory=list)
    token_usage_details: dict[str, Any] | None = None
    duration_details: dict[str, Any] | None = None
    value: ScoreValue | None = None


@dataclass(slots=True)
class EvaluateResult:
    """A metric over all invocations of a case: overall score and status plus the per-invocation results."""

    overall_score: float | None
    overall_status: EvalStatus
    per_invocation_results: list[PerInvocationResult] = field(default_factory=list)
    reason: str = ""
    rubric_scores: list[RubricScore] = field(default_factory=list)
    token_usage_details: dict[str, Any] | None = None
    duration_details: dict[str, Any] | None = None


@runtime_checkable
class Evaluator(Protocol):
    """Scores actual invocations against expected ones for one metric.

    ``expecteds`` has the same length as ``actuals``; an entry may carry only ``user_content`` when the case
    has no expectations (trace mode, scenarios). Raise :class:`EvaluatorError` when scoring is impossible.
    """

    @property
    def name(self) -> str:
        """The metric name this evaluator is registered under by default."""
        ...

    @property
    def description(self) -> str:
        """One line saying what the metric measures."""
        ...

    async def evaluate(
        self,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        metric: EvalMetric,
    ) -> EvaluateResult:
        """Score ``actuals`` against ``expecteds`` under ``metric``."""
        ...
