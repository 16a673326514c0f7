"""One evaluation of eval sets: :class:`AgentEvaluator` (``_evaluator``) drives the run engine
(:mod:`agentgauge.service`) over the sets' cases -- the set-level callbacks around the runs (``_sets``), the (case,
run) pipelines handed to an executor and their results recorded as they finish (``_loop``, ``_collector``), the
result saved and returned as an :class:`EvaluationResult` (``_finish``, ``_result``) -- and resumes an interrupted
run (``_resume``).
"""

from ._evaluator import (
    DEFAULT_MAX_RESULTS_IN_MEMORY,
    AgentEvaluator,
    EvaluationResult,
    MetricSource,
    ProgressFn,
    ResultSink,
)
from ._resume import PROGRESS_SUFFIX, ResumeState, load_resume

__all__ = [
    "DEFAULT_MAX_RESULTS_IN_MEMORY",
    "PROGRESS_SUFFIX",
    "AgentEvaluator",
    "EvaluationResult",
    "MetricSource",
    "ProgressFn",
    "ResultSink",
    "ResumeState",
    "load_resume",
]
