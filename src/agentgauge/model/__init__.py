"""Pydantic v2 data model: eval sets, metrics with criteria, results and statuses.

Every model reads camelCase or snake_case keys, writes camelCase JSON, omits empty optional keys and preserves
unknown keys.
"""

from ._base import GaugeModel, is_empty, omit_empty
from ._evalset import (
    CaseRubric,
    ConversationScenario,
    EvalCase,
    EvalSet,
    Invocation,
    Message,
    RubricContent,
    SessionInput,
    TokenUsage,
    Tool,
    new_tool_id,
)
from ._metric import Criterion, EvalMetric, redact_secrets
from ._result import (
    CaseMetricRunResult,
    CaseRunSummary,
    EvalCaseResult,
    EvalCaseSummary,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalSetResultSummary,
    MetricSummary,
    RubricScore,
    RunSummary,
    SimulationSummary,
    StatusCounts,
)
from ._status import EvalStatus, StatusField, parse_status, status_for_score, summarize_statuses
from ._toolmock import LLMGenerator, ToolMock, ToolMockArguments, ToolMockRule
from ._usage_totals import UsageTotals

__all__ = [
    "CaseMetricRunResult",
    "CaseRubric",
    "CaseRunSummary",
    "ConversationScenario",
    "Criterion",
    "EvalCase",
    "EvalCaseResult",
    "EvalCaseSummary",
    "EvalMetric",
    "EvalMetricResult",
    "EvalMetricResultDetails",
    "EvalMetricResultPerInvocation",
    "EvalSet",
    "EvalSetResult",
    "EvalSetResultSummary",
    "EvalStatus",
    "GaugeModel",
    "Invocation",
    "LLMGenerator",
    "Message",
    "MetricSummary",
    "RubricContent",
    "RubricScore",
    "RunSummary",
    "SessionInput",
    "SimulationSummary",
    "StatusCounts",
    "StatusField",
    "TokenUsage",
    "Tool",
    "ToolMock",
    "ToolMockArguments",
    "ToolMockRule",
    "UsageTotals",
    "is_empty",
    "new_tool_id",
    "omit_empty",
    "parse_status",
    "redact_secrets",
    "status_for_score",
    "summarize_statuses",
]
