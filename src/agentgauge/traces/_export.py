"""Evaluation results as OpenTelemetry spans (OTLP JSON), so scores show up in the user's tracing backend.

One trace per case result — the evaluated trace itself when the case was scored from a recorded trace (``eval
--traces``), so the evaluation appears beside the agent's own spans — holding a case span, one span per invocation
and one span per metric result. Metric spans carry the OpenTelemetry GenAI evaluation attributes
(``gen_ai.evaluation.name``, ``.score.value``, ``.score.label``, ``.explanation``) and a
``gen_ai.evaluation.result`` event with the same attributes. No OpenTelemetry SDK is needed: the document is
plain OTLP JSON, written to a file or posted to an OTLP/HTTP endpoint.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from ..errors import InputError
from ..model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus

__all__ = ["TRACE_ID_KEY", "evaluation_events", "export_result", "result_to_otlp"]

TRACE_ID_KEY = "traceId"
"""Extra key on an actual invocation naming the trace it was read from (set by ``trace_eval_set``)."""

_SCOPE = "agentgauge"


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in values.items() if v is not None and v != ""]


_NOT_PASSING = (EvalStatus.FAILED, EvalStatus.ERROR)  # spans with an error status


def _label(status: EvalStatus) -> str:
    labels = {EvalStatus.PASSED: "passed", EvalStatus.FAILED: "failed", EvalStatus.ERROR: "error"}
    return labels.get(status, "not_evaluated")


def _metric_attributes(metric: EvalMetricResult) -> dict[str, Any]:
    reason = metric.details.reason if metric.details is not None else None
    return {
        "gen_ai.evaluation.name": metric.metric_name,
        "gen_ai.evaluation.score.value": metric.score,
        "gen_ai.evaluation.score.label": _label(metric.eval_status),
        "gen_ai.evaluation.explanation": reason,
        "agentgauge.threshold": float(metric.threshold),
    }


class _Builder:
    def __init__(self, time_ns: int) -> None:
        self.spans: list[dict[str, Any]] = []
        self.time_ns = time_ns

    def span(self, trace_id: str, parent: str, name: str, attrs: dict[str, Any], *, error: bool = False) -> str:
        span_id = secrets.token_hex(8)
        self.spans.append(
            {
                "traceId": trace_id,
                "spanId": span_id,
                "parentSpanId": parent,
                "name": name,
                "kind": 1,
                "startTimeUnixNano": str(self.time_ns),
                "endTimeUnixNano": str(self.time_ns),
                "attributes": _attributes(attrs),
                "status": {"code": 2} if error else {},
            }
        )
        return span_id

    def metric(self, trace_id: str, parent: str, metric: EvalMetricResult) -> None:
        attrs = _metric_attributes(metric)
        self.span(trace_id, parent, f"evaluate {metric.metric_name}", attrs, error=metric.eval_status in _NOT_PASSING)
        self.spans[-1]["events"] = [
            {"name": "gen_ai.evaluation.result", "timeUnixNano": str(self.time_ns), "attributes": _attributes(attrs)}
        ]


def _trace_id(case: EvalCaseResult) -> str:
    for per in case.eval_metric_result_per_invocation:
        value = (per.actual_invocation.model_extra or {}).get(TRACE_ID_KEY)
        if isinstance(value, str) and len(value) == 32:
            return value
    return secrets.token_hex(16)


def result_to_otlp(result: EvalSetResult, *, service_name: str = "agentgauge") -> dict[str, Any]:
    """The result as one OTLP JSON export document (``{"resourceSpans": [...]}``)."""
    time_ns = int((result.creation_timestamp or 0) * 1e9)
    builder = _Builder(time_ns)
    for case in result.eval_case_results:
        trace_id = _trace_id(case)
        case_span = builder.span(
            trace_id,
            "",
            f"evaluate_case {case.eval_id}",
            {
                "agentgauge.eval_set_id": case.eval_set_id or result.eval_set_id,
                "agentgauge.eval_set_result_id": result.eval_set_result_id,
                "agentgauge.eval_id": case.eval_id,
                "agentgauge.run_id": case.run_id,
                "agentgauge.status": _label(case.final_eval_status),
                "agentgauge.error_message": case.error_message,
                "gen_ai.conversation.id": case.session_id,
            },
            error=case.final_eval_status in _NOT_PASSING,
        )
        for metric in case.overall_eval_metric_results:
            builder.metric(trace_id, case_span, metric)
        for number, per in enumerate(case.eval_metric_result_per_invocation, start=1):
            invocation = per.actual_invocation
            inv_span = builder.span(
                trace_id,
                case_span,
                f"evaluate_invocation {number}",
                {"agentgauge.invocation_id": invocation.invocation_id, "agentgauge.invocation_index": number},
            )
            for metric in per.eval_metric_results:
                builder.metric(trace_id, inv_span, metric)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes({"service.name": service_name})},
                "scopeSpans": [{"scope": {"name": _SCOPE}, "spans": builder.spans}],
            }
        ]
    }


def evaluation_events(
    case: EvalCaseResult,
    trace_id: str,
    span_id: str,
    *,
    time_ns: int,
    attributes: dict[str, Any] | None = None,
    service_name: str = "agentgauge",
) -> dict[str, Any]:
    """A case's metric results as one OTLP JSON logs export (``{"resourceLogs": [...]}``): a
    ``gen_ai.evaluation.result`` event per metric, with the GenAI evaluation attributes (and ``attributes``),
    parented to the evaluated span ``span_id`` of trace ``trace_id`` (how online evaluation reports back)."""
    records = []
    for metric in case.overall_eval_metric_results:
        values = {**_metric_attributes(metric), **(attributes or {}), "agentgauge.eval_id": case.eval_id}
        records.append(
            {
                "timeUnixNano": str(time_ns),
                "observedTimeUnixNano": str(time_ns),
                "eventName": "gen_ai.evaluation.result",
                "severityNumber": 17 if metric.eval_status in _NOT_PASSING else 9,
                "traceId": trace_id,
                "spanId": span_id,
                "body": {"stringValue": "gen_ai.evaluation.result"},
                "attributes": _attributes({"event.name": "gen_ai.evaluation.result", **values}),
            }
        )
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes({"service.name": service_name})},
                "scopeLogs": [{"scope": {"name": _SCOPE}, "logRecords": records}],
            }
        ]
    }


def _env_headers() -> dict[str, str]:
    """``OTEL_EXPORTER_OTLP_HEADERS`` / ``..._TRACES_HEADERS`` (``k=v,k2=v2``), as OpenTelemetry exporters read."""
    headers: dict[str, str] = {}
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        for item in os.environ.get(name, "").split(","):
            key, sep, value = item.partition("=")
            if sep and key.strip():
                headers[key.strip()] = value.strip()
    return headers


def traces_endpoint(endpoint: str | None) -> str | None:
    """The OTLP/HTTP traces URL: ``endpoint`` (``/v1/traces`` appended unless present), else the standard
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as is) or ``OTEL_EXPORTER_OTLP_ENDPOINT`` (+ ``/v1/traces``)."""
    if endpoint:
        return endpoint if endpoint.rstrip("/").endswith("/v1/traces") else endpoint.rstrip("/") + "/v1/traces"
    exact = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    if exact:
        return exact
    base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    return base.rstrip("/") + "/v1/traces" if base else None


def export_result(
    result: EvalSetResult,
    *,
    path: str | os.PathLike[str] | None = None,
    endpoint: str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10.0,
) -> int:
    """Write the result's spans to ``path`` (OTLP JSON; ``.jsonl``: one line) and/or post them to an OTLP/HTTP
    endpoint (JSON encoding). Returns the number of spans. An unreachable endpoint or an error status raises
    :class:`~agentgauge.errors.AgentgaugeError` with the reason (header values are never shown)."""
    import orjson

    document = result_to_otlp(result)
    count = len(document["resourceSpans"][0]["scopeSpans"][0]["spans"])
    if path is not None:
        from ..storage import atomic_write

        data = (
            orjson.dumps(document) + b"\n"
            if os.fspath(path).endswith(".jsonl")
            else orjson.dumps(document, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
        )
        atomic_write(path, data)
    if endpoint is not None:
        _post(endpoint, document, {**_env_headers(), **(headers or {})}, timeout)
    return count


def _post(url: str, document: dict[str, Any], headers: dict[str, str], timeout: float) -> None:
    import httpx

    from ..errors import AgentgaugeError

    try:
        response = httpx.post(
            url, json=document, headers={"Content-Type": "application/json", **headers}, timeout=timeout
        )
    except httpx.HTTPError as exc:
        raise AgentgaugeError(f"cannot send spans to {url}: {type(exc).__name__}: {exc}") from None
    if response.status_code >= 300:
        raise AgentgaugeError(f"{url} answered HTTP {response.status_code}: {response.text[:200]}")


def check_header(item: str) -> tuple[str, str]:
    """A ``--header K=V`` argument as a pair; anything else is an :class:`InputError`."""
    key, sep, value = item.partition("=")
    if not sep or not key.strip():
        raise InputError(f"--header must be KEY=VALUE, got {item.split('=')[0]!r}")
    return key.strip(), value
