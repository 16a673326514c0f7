"""Kept for imports written before the run engine got its package: everything here lives in :mod:`agentgauge.run`."""

from .run import (
    DEFAULT_MAX_RESULTS_IN_MEMORY,
    AgentEvaluator,
    EvaluationResult,
    MetricSource,
    ProgressFn,
    ResultSink,
)

__all__ = [
    "DEFAULT_MAX_RESULTS_IN_MEMORY",
    "AgentEvaluator",
    "EvaluationResult",
    "MetricSource",
    "ProgressFn",
    "ResultSink",
]
