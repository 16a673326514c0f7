"""One evaluation of eval sets: :class:`AgentEvaluator` drives the run engine (:mod:`agentgauge.service`) over the
sets' cases, collects finished cases into rows and the result file as they finish (``_collector``), resumes an
interrupted run (``_resume``) and returns an :class:`EvaluationResult`.
"""

from ._evaluator import (
    DEFAULT_MAX_RESULTS_IN_MEMORY,
    AgentEvaluator,
    EvaluationCaseResult,
    EvaluationResult,
    MetricSource,
    ProgressFn,
    ResultSink,
)

__all__ = [
    "DEFAULT_MAX_RESULTS_IN_MEMORY",
    "AgentEvaluator",
    "EvaluationCaseResult",
    "EvaluationResult",
    "MetricSource",
    "ProgressFn",
    "ResultSink",
]
