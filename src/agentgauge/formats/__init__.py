"""Readers and writers for eval sets, metrics and results.

Every reader produces the native model (:mod:`agentgauge.model`) and accepts the native/trpc-agent-go camelCase
form, Google ADK JSON (snake_case, camelCase or mixed, ``intermediate_data`` or ``invocation_events``), ADK-TS JSON,
ADK's legacy ``.test.json`` rows, ADK ``test_config.json`` criteria and ADK result files. Errors are
:class:`~agentgauge.errors.InputError` naming the file, the JSON path and what was expected.

Given an :class:`InputReport`, the readers also report every key no reader knows (with its JSON path and the closest
known key), as an error where the file's own tool refuses it and as a warning where that tool accepts it; the keys
of metrics are checked with their names, criteria and thresholds (``Registry.validate_metrics``).
"""

from ._adk_write import to_adk_eval_set
from ._agentevals_config import AgentevalsConfig, CodeEvaluatorSpec, load_agentevals_config, read_yaml_mapping
from ._api import (
    DocumentKind,
    Format,
    NeitherSetNorResultError,
    default_id_for,
    describe,
    detect_kind,
    dump_metrics,
    eval_set_of_document,
    load_eval_set,
    load_metrics,
    load_result,
    load_set_or_result,
    parse_eval_set,
    parse_metrics,
    parse_result,
    save_eval_set,
    save_metrics,
    save_result,
)
from ._legacy import session_input_from_initial
from ._metric_keys import MetricPaths, MetricsLayout, metric_key_problems
from ._metrics import ADK_DEFAULT_CRITERIA, ADK_EFFICIENCY_METRICS, default_adk_metrics, expand_env, to_test_config
from ._models import load_json_model, model_from_document, read_json, read_limited
from ._problems import InputProblem, InputReport, Severity, did_you_mean
from ._results import to_adk_result
from ._scoring_dialect import SCORING_DIALECTS, ScoringDialectName, with_scoring_dialect
from ._unknown import (
    EvalSetKeys,
    KeyRules,
    case_key_rules,
    check_case_keys,
    check_eval_set_keys,
    unknown_key_problem,
)

__all__ = [
    "ADK_DEFAULT_CRITERIA",
    "ADK_EFFICIENCY_METRICS",
    "SCORING_DIALECTS",
    "AgentevalsConfig",
    "CodeEvaluatorSpec",
    "DocumentKind",
    "EvalSetKeys",
    "Format",
    "InputProblem",
    "InputReport",
    "KeyRules",
    "MetricPaths",
    "MetricsLayout",
    "NeitherSetNorResultError",
    "ScoringDialectName",
    "Severity",
    "case_key_rules",
    "check_case_keys",
    "check_eval_set_keys",
    "default_adk_metrics",
    "default_id_for",
    "describe",
    "detect_kind",
    "did_you_mean",
    "dump_metrics",
    "eval_set_of_document",
    "expand_env",
    "load_agentevals_config",
    "load_eval_set",
    "load_json_model",
    "load_metrics",
    "load_result",
    "load_set_or_result",
    "metric_key_problems",
    "model_from_document",
    "parse_eval_set",
    "parse_metrics",
    "parse_result",
    "read_json",
    "read_limited",
    "read_yaml_mapping",
    "save_eval_set",
    "save_metrics",
    "save_result",
    "session_input_from_initial",
    "to_adk_eval_set",
    "to_adk_result",
    "to_test_config",
    "unknown_key_problem",
    "with_scoring_dialect",
]
