"""Readers and writers for eval sets, metrics and results.

Every reader produces the native model (:mod:`agentgauge.model`) and accepts the native/trpc-agent-go camelCase
form, Google ADK JSON (snake_case, camelCase or mixed, ``intermediate_data`` or ``invocation_events``), ADK-TS JSON,
ADK's legacy ``.test.json`` rows, ADK ``test_config.json`` criteria and ADK result files. Errors are
:class:`~agentgauge.errors.InputError` naming the file, the JSON path and what was expected.
"""

from ._adk_write import to_adk_eval_set
from ._agentevals_config import AgentevalsConfig, CodeEvaluatorSpec, load_agentevals_config
from ._api import (
    DocumentKind,
    Format,
    default_id_for,
    describe,
    detect_kind,
    dump_metrics,
    load_eval_set,
    load_metrics,
    load_result,
    parse_eval_set,
    parse_metrics,
    parse_result,
    save_eval_set,
    save_metrics,
    save_result,
)
from ._legacy import session_input_from_initial
from ._metrics import ADK_DEFAULT_CRITERIA, ADK_EFFICIENCY_METRICS, default_adk_metrics, expand_env, to_test_config
from ._results import to_adk_result
from ._scoring_dialect import SCORING_DIALECTS, ScoringDialectName, with_scoring_dialect
from ._unknown import KeyReport, UnknownKey, check_keys

__all__ = [
    "ADK_DEFAULT_CRITERIA",
    "ADK_EFFICIENCY_METRICS",
    "SCORING_DIALECTS",
    "AgentevalsConfig",
    "CodeEvaluatorSpec",
    "DocumentKind",
    "Format",
    "KeyReport",
    "ScoringDialectName",
    "UnknownKey",
    "check_keys",
    "default_adk_metrics",
    "default_id_for",
    "describe",
    "detect_kind",
    "dump_metrics",
    "expand_env",
    "load_agentevals_config",
    "load_eval_set",
    "load_metrics",
    "load_result",
    "parse_eval_set",
    "parse_metrics",
    "parse_result",
    "save_eval_set",
    "save_metrics",
    "save_result",
    "session_input_from_initial",
    "to_adk_eval_set",
    "to_adk_result",
    "to_test_config",
    "with_scoring_dialect",
]
