"""Evaluators: score actual invocations against expected ones for one metric, and the registry that maps metric
names to them (``tool_trajectory_avg_score``, ``final_response_avg_score``, ``response_match_score``, plus the
LLM-judge metrics)."""

from ._base import EvaluateResult, Evaluator, EvaluatorError, PerInvocationResult
from ._final_response import FinalResponseEvaluator
from ._registry import MetricInfo, Registry
from ._response_match import ResponseMatchEvaluator
from ._trajectory import ToolTrajectoryEvaluator

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
