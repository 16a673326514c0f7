"""The run engine's service layer: inference (agent or trace), evaluation with a registry of evaluators,
callbacks at eight points, and the multi-run summary.
"""

from ._callbacks import (
    POINTS,
    AfterEvaluateCaseArgs,
    AfterEvaluateSetArgs,
    AfterInferenceCaseArgs,
    AfterInferenceSetArgs,
    BeforeEvaluateCaseArgs,
    BeforeEvaluateSetArgs,
    BeforeInferenceCaseArgs,
    BeforeInferenceSetArgs,
    Callback,
    CallbackContext,
    CallbackError,
    CallbackFn,
    CallbackResult,
    Callbacks,
)
from ._evaluate import EvaluatorSource, evaluate_case, metric_results
from ._inference import DEFAULT_USER_ID, case_problem, expected_invocations, infer_case, trace_invocations, user_only
from ._local import EvalSetSource, LocalService, select_cases
from ._multirun import CaseAggregate, aggregate_case, case_order, metric_summaries, summarize_runs
from ._pool import bounded_map
from ._rubrics import RubricError, merge_case_rubrics
from ._types import EvalSetRunResult, EvaluateConfig, EvaluateRequest, InferenceRequest, InferenceResult

__all__ = [
    "DEFAULT_USER_ID",
    "POINTS",
    "AfterEvaluateCaseArgs",
    "AfterEvaluateSetArgs",
    "AfterInferenceCaseArgs",
    "AfterInferenceSetArgs",
    "BeforeEvaluateCaseArgs",
    "BeforeEvaluateSetArgs",
    "BeforeInferenceCaseArgs",
    "BeforeInferenceSetArgs",
    "Callback",
    "CallbackContext",
    "CallbackError",
    "CallbackFn",
    "CallbackResult",
    "Callbacks",
    "CaseAggregate",
    "EvalSetRunResult",
    "EvalSetSource",
    "EvaluateConfig",
    "EvaluateRequest",
    "EvaluatorSource",
    "InferenceRequest",
    "InferenceResult",
    "LocalService",
    "RubricError",
    "aggregate_case",
    "bounded_map",
    "case_order",
    "case_problem",
    "evaluate_case",
    "expected_invocations",
    "infer_case",
    "merge_case_rubrics",
    "metric_results",
    "metric_summaries",
    "select_cases",
    "summarize_runs",
    "trace_invocations",
    "user_only",
]
