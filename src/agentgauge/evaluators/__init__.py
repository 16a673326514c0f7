"""Evaluators: score actual invocations against expected ones for one metric, and the registry that maps metric
names to them (``tool_trajectory_avg_score``, ``final_response_avg_score``, ``response_match_score``, plus the
LLM-judge metrics)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
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


# Loaded on first use, like the criteria it parses (see agentgauge.criteria).
__getattr__, __dir__ = lazy_exports(__name__, {"FinalResponseEvaluator": "._final_response"}, __all__)
