"""Evaluators: score actual invocations against expected ones for one metric, and the registry that maps metric
names to them (``tool_trajectory_avg_score``, ``final_response_avg_score``, ``response_match_score``, plus the
LLM-judge metrics)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ._assertions import TrajectoryAssertionEvaluator
from ._base import EvaluateResult, Evaluator, EvaluatorError, PerInvocationResult
from ._dialects import ScoringDialect, scoring_dialect
from ._registry import MetricInfo, Registry
from ._replay_fidelity import REPLAY_FIDELITY_METRIC, ReplayFidelityEvaluator, replay_summary
from ._response_match import ResponseMatchEvaluator
from ._tool_parameter_match import ToolParameterMatchEvaluator
from ._trajectory import ToolTrajectoryEvaluator

if TYPE_CHECKING:
    from ._agentevals_code import AgentevalsCodeEvaluator
    from ._final_response import FinalResponseEvaluator

__all__ = [
    "REPLAY_FIDELITY_METRIC",
    "AgentevalsCodeEvaluator",
    "EvaluateResult",
    "Evaluator",
    "EvaluatorError",
    "FinalResponseEvaluator",
    "MetricInfo",
    "PerInvocationResult",
    "Registry",
    "ReplayFidelityEvaluator",
    "ResponseMatchEvaluator",
    "ScoringDialect",
    "ToolParameterMatchEvaluator",
    "ToolTrajectoryEvaluator",
    "TrajectoryAssertionEvaluator",
    "replay_summary",
    "scoring_dialect",
]


# Loaded on first use, like the criteria it parses (see agentgauge.criteria).
__getattr__, __dir__ = lazy_exports(
    __name__,
    {"AgentevalsCodeEvaluator": "._agentevals_code", "FinalResponseEvaluator": "._final_response"},
    __all__,
)
