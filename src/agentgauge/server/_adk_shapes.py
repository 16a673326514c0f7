"""agentgauge data in the JSON shapes of ADK's dev server (camelCase keys, integer statuses, genai contents)."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic.alias_generators import to_camel

from ..model import EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult

__all__ = [
    "adk_case",
    "adk_eval_set",
    "adk_result",
    "camelize",
    "metrics_info",
    "parse_adk_case",
    "parse_adk_metrics",
    "run_eval_result",
]

# Values that are user data (tool arguments and responses, session state, our own stash): their keys are kept as
# written, as ADK's pydantic aliasing leaves dict fields alone.
_OPAQUE = frozenset({"args", "response", "state", "agentgauge", "summary", "custom_metadata", "user_persona"})


def camelize(value: Any) -> Any:
    """Snake_case keys → camelCase, recursively, except inside user-data values (see ``_OPAQUE``)."""
    if isinstance(value, dict):
        return {to_camel(k): (v if k in _OPAQUE else camelize(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [camelize(v) for v in value]
    return value


def _drop_none(value: Any) -> Any:
    # FastAPI answers ADK's routes with exclude_none=True; the ADK writer spells some absent values as null.
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def adk_eval_set(eval_set: EvalSet) -> dict[str, Any]:
    """An eval set as ADK serves it: ADK's ``EvalSet`` has no aliases, so its own keys stay snake_case, while its
    cases (``EvalBaseModel``) are camelCase."""
    from ..formats import to_adk_eval_set

    out: dict[str, Any] = _drop_none(to_adk_eval_set(eval_set))
    out["eval_cases"] = [_drop_none(camelize(case)) for case in out.get("eval_cases", [])]
    return out


def adk_case(eval_set: EvalSet, case: EvalCase) -> dict[str, Any]:
    """One eval case as ADK serves it."""
    single = eval_set.model_copy(update={"eval_cases": [case]})
    cases: list[dict[str, Any]] = adk_eval_set(single)["eval_cases"]
    return cases[0]


def adk_result(result: EvalSetResult) -> dict[str, Any]:
    """A stored result as ADK's ``EvalSetResult`` (integer statuses)."""
    from ..formats import to_adk_result

    document = to_adk_result(result)
    document.pop("run_metadata", None)  # not part of ADK's EvalSetResult: the ADK routes answer exactly as ADK does
    return _drop_none(camelize(document))  # type: ignore[no-any-return]


def run_eval_result(result: EvalSetResult, case_result: EvalCaseResult, index: int) -> dict[str, Any]:
    """One case of a run as ADK's ``RunEvalResult`` (``index`` is the case's position in ``result``)."""
    adk = adk_result(result.model_copy(update={"eval_case_results": [case_result]}))["evalCaseResults"][0]
    return {
        "evalSetFile": result.eval_set_id,
        "evalSetId": result.eval_set_id,
        "evalId": case_result.eval_id,
        "finalEvalStatus": adk["finalEvalStatus"],
        "evalMetricResults": [],
        "overallEvalMetricResults": adk["overallEvalMetricResults"],
        "evalMetricResultPerInvocation": adk["evalMetricResultPerInvocation"],
        "userId": case_result.user_id or "test_user_id",
        "sessionId": case_result.session_id,
    }


def metrics_info(infos: list[Any]) -> list[dict[str, Any]]:
    """The registry's metrics as ADK ``MetricInfo`` objects, each with its value interval.

    An unbounded metric (ADK's efficiency metrics: counts, tokens, seconds) has no interval and needs no threshold,
    as in ADK.
    """
    out = []
    for info in infos:
        unbounded = math.isinf(info.max_value)
        interval = {"minValue": info.min_value, "openAtMin": False, "maxValue": info.max_value, "openAtMax": False}
        out.append(
            {
                "metricName": info.name,
                "description": info.description,
                "metricValueInfo": {} if unbounded else {"interval": interval},
                "requiresThreshold": not unbounded,
            }
        )
    return out


def parse_adk_case(data: Any, eval_set_id: str, *, source: str) -> EvalCase:
    """An eval case in any supported dialect (ADK camel/snake, native); errors raise :class:`InputError` with the
    JSON path."""
    from ..errors import InputError
    from ..formats import parse_eval_set

    if not isinstance(data, dict):
        raise InputError("expected an eval case object", file=source)
    text = json.dumps({"evalSetId": eval_set_id, "evalCases": [data]})
    try:
        parsed = parse_eval_set(text, source=source)
    except InputError as exc:
        # The document wraps the case: report paths relative to the case the client sent.
        message = str(exc).replace("evalCases[0].", "").replace("evalCases[0]", "(case)")
        raise InputError(message) from None
    return parsed.eval_cases[0]


def parse_adk_metrics(items: Any, *, source: str) -> list[EvalMetric]:
    """ADK ``EvalMetric`` objects (or native metrics) from a request body."""
    from ..errors import InputError
    from ..formats import parse_metrics

    if not isinstance(items, list):
        raise InputError("evalMetrics must be a list of metrics", file=source)
    return parse_metrics(json.dumps(items), source=source)
