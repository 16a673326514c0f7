"""Evaluators: score actual invocations against expected ones for one metric, and the registry that maps metric
names to them (``tool_trajectory_avg_score``, ``final_response_avg_score``, ``response_match_score``, plus the
LLM-judge metrics)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._base import EvaluateResult, Evaluator, EvaluatorError, PerInvocationResult
from ._registry import MetricInfo, Registry
from ._response_match import ResponseMatchEvaluator
from ._trajectory import ToolTrajectoryEvaluator

if TYPE_CHECKING:
    from ._final_response import FinalResponseEvaluator

__all__ = [
    "EvaluateResult",
    "Evaluator",
    "EvaluatorError",
    "FinalResponseEvaluator",
    "MetricInfo",
    "PerInvocationResult",
    "Registry",
    "ResponseMatchEvaluator",
    "ToolTrajectoryEvaluator",
]


def __getattr__(name: str) -> Any:
    # Loaded on first use, like the criteria it parses (see agentgauge.criteria).
    if name == "FinalResponseEvaluator":
        from ._final_response import FinalResponseEvaluator

        globals()[name] = FinalResponseEvaluator
        return FinalResponseEvaluator
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
