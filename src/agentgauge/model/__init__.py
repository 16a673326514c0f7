"""Pydantic v2 data model: eval sets, metrics with criteria, results and statuses.

Every model reads camelCase or snake_case keys, writes camelCase JSON, omits empty optional keys and preserves
unknown keys.
"""

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ._base import GaugeModel, is_empty, omit_empty
from ._evalset import (
    CaseRubric,
    ConversationScenario,
    EvalCase,
    EvalSet,
    ExecutedAgent,
    Invocation,
    Message,
    RubricContent,
    SessionInput,
    TokenUsage,
    Tool,
    new_tool_id,
)
from ._label import HumanLabel, LabelKey, LabelVerdict
from ._metric import UNSAVED_KEY, Criterion, EvalMetric, redact_secrets
from ._replay import REPLAY_MODES, ReplayCall, ReplayDrift, ReplayMode, ReplayRecord
from ._result import (
    CaseMetricRunResult,
    CaseNotRun,
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
    ScoreValue,
    SimulationSummary,
    StatusCounts,
)
from ._run_metadata import LABEL_KEY_PATTERN, RunMetadata, check_label_key, parse_labels
from ._status import (
    DEFAULT_CASE_STATUS,
    CaseStatusRule,
    EvalStatus,
    StatusField,
    is_measurement,
    parse_case_status_rule,
    parse_status,
    status_for_score,
    summarize_statuses,
)
from ._toolmock import LLMGenerator, ToolMock, ToolMockArguments, ToolMockRule
from ._usage_totals import UsageTotals

if TYPE_CHECKING:
    from ._prices import PriceTable, prices_for_run

__all__ = [
    "DEFAULT_CASE_STATUS",
    "LABEL_KEY_PATTERN",
    "REPLAY_MODES",
    "UNSAVED_KEY",
    "CaseMetricRunResult",
    "CaseNotRun",
    "CaseRubric",
    "CaseRunSummary",
    "CaseStatusRule",
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
    "ExecutedAgent",
    "GaugeModel",
    "HumanLabel",
    "Invocation",
    "LLMGenerator",
    "LabelKey",
    "LabelVerdict",
    "Message",
    "MetricSummary",
    "PriceTable",
    "ReplayCall",
    "ReplayDrift",
    "ReplayMode",
    "ReplayRecord",
    "RubricContent",
    "RubricScore",
    "RunMetadata",
    "RunSummary",
    "ScoreValue",
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
    "check_label_key",
    "is_empty",
    "is_measurement",
    "new_tool_id",
    "omit_empty",
    "parse_case_status_rule",
    "parse_labels",
    "parse_status",
    "prices_for_run",
    "redact_secrets",
    "status_for_score",
    "summarize_statuses",
]

# Read by runs that record token usage only (a price table and the project's prices).
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(("PriceTable", "prices_for_run"), "._prices"), __all__)
