"""The run engine's service layer: inference (agent or trace), evaluation with a registry of evaluators,
callbacks at eight points, the executor seam (where case pipelines run) and the multi-run summary.
"""

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ..summary import (
    CaseGroups,
    CaseRow,
    CaseSummary,
    MetricRow,
    MetricTally,
    RowSummary,
    RowTable,
    SparseText,
    case_order,
    case_row,
    metric_summaries,
    result_summary,
    summarize_results,
    summarize_rows,
    tally_metrics,
)
from ._agent_cache import AgentResponseCache, agent_identity
from ._aggregation import (
    CaseAggregationError,
    CaseResultAggregator,
    CaseScore,
    CaseScoreInput,
    TrpcCaseAggregator,
    score_case,
)
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
from ._executor import CompactResult, Emit, ExecutionJob, Executor, LocalExecutor, RunPlan, WorkItem
from ._inference import DEFAULT_USER_ID, case_problem, infer_case
from ._local import EvalSetSource, LocalService, select_cases
from ._options import RunOptions
from ._pool import bounded_each, bounded_map
from ._rubrics import RubricError, merge_case_rubrics
from ._selection import MetricSelection, metric_needs_judge
from ._source import STREAM_MIN_BYTES, CaseStream, LoadedEvalSet, StreamedEvalSet, index_stub, open_eval_set
from ._turns import expected_invocations, trace_invocations, turn_mismatches, user_only
from ._types import EvalSetRunResult, EvaluateConfig, EvaluateRequest, InferenceRequest, InferenceResult

if TYPE_CHECKING:
    from ._simulated import SimulatedTurns, infer_simulated

__all__ = [
    "DEFAULT_USER_ID",
    "POINTS",
    "STREAM_MIN_BYTES",
    "AfterEvaluateCaseArgs",
    "AfterEvaluateSetArgs",
    "AfterInferenceCaseArgs",
    "AfterInferenceSetArgs",
    "AgentResponseCache",
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
    "CaseAggregationError",
    "CaseGroups",
    "CaseResultAggregator",
    "CaseRow",
    "CaseScore",
    "CaseScoreInput",
    "CaseStream",
    "CaseSummary",
    "CompactResult",
    "Emit",
    "EvalSetRunResult",
    "EvalSetSource",
    "EvaluateConfig",
    "EvaluateRequest",
    "EvaluatorSource",
    "ExecutionJob",
    "Executor",
    "InferenceRequest",
    "InferenceResult",
    "LoadedEvalSet",
    "LocalExecutor",
    "LocalService",
    "MetricRow",
    "MetricSelection",
    "MetricTally",
    "RowSummary",
    "RowTable",
    "RubricError",
    "RunOptions",
    "RunPlan",
    "SimulatedTurns",
    "SparseText",
    "StreamedEvalSet",
    "TrpcCaseAggregator",
    "WorkItem",
    "agent_identity",
    "bounded_each",
    "bounded_map",
    "case_order",
    "case_problem",
    "case_row",
    "evaluate_case",
    "expected_invocations",
    "index_stub",
    "infer_case",
    "infer_simulated",
    "merge_case_rubrics",
    "metric_needs_judge",
    "metric_results",
    "metric_summaries",
    "open_eval_set",
    "result_summary",
    "score_case",
    "select_cases",
    "summarize_results",
    "summarize_rows",
    "tally_metrics",
    "trace_invocations",
    "turn_mismatches",
    "user_only",
]

# Scenario and expected-runner inference pulls in the user simulators: a plain run never loads it.
__getattr__, __dir__ = lazy_exports(
    __name__, {"SimulatedTurns": "._simulated", "infer_simulated": "._simulated"}, __all__
)
