"""Finished OpenTelemetry SDK spans (and log records) as OTLP JSON (the shape ``agentgauge traces`` reads), used
by the recording scripts in this folder."""

from __future__ import annotations

import base64
from typing import Any


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, (list, tuple)):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    if isinstance(value, bytes):
        return {"bytesValue": base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": str(k), "value": _value(v)} for k, v in value.items()]}}
    return {"stringValue": str(value)}


def _attributes(attrs: Any) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in (attrs or {}).items()]


def to_otlp_json(spans: list[Any]) -> dict[str, Any]:
    """Finished SDK spans as an OTLP JSON export (``resourceSpans`` / ``scopeSpans``), ids in hex."""
    scopes: dict[str, list[dict[str, Any]]] = {}
    resource: Any = None
    for span in spans:
        resource = span.resource
        scope = span.instrumentation_scope.name if span.instrumentation_scope else ""
        context = span.get_span_context()
        scopes.setdefault(scope, []).append(
            {
                "traceId": format(context.trace_id, "032x"),
                "spanId": format(context.span_id, "016x"),
                "parentSpanId": format(span.parent.span_id, "016x") if span.parent else "",
                "name": span.name,
                "kind": int(span.kind.value) + 1,
                "startTimeUnixNano": str(span.start_time),
                "endTimeUnixNano": str(span.end_time),
                "attributes": _attributes(span.attributes),
                "events": [
                    {"name": e.name, "timeUnixNano": str(e.timestamp), "attributes": _attributes(e.attributes)}
                    for e in span.events
                ],
                "status": {"code": int(span.status.status_code.value)},
            }
        )
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(resource.attributes if resource else {})},
                "scopeSpans": [{"scope": {"name": name}, "spans": items} for name, items in scopes.items()],
            }
        ]
    }


def write_otlp(spans: list[Any], path: str) -> None:
    """Write ``spans`` as OTLP JSON (``.json``: one export document) or OTLP JSONL (``.jsonl``: one export request
    per span and line, like the OpenTelemetry Collector's file exporter)."""
    import json

    with open(path, "w", encoding="utf-8") as handle:
        if path.endswith(".jsonl"):
            for span in spans:
                handle.write(json.dumps(to_otlp_json([span]), ensure_ascii=False) + "\n")
        else:
            json.dump(to_otlp_json(spans), handle, indent=1, ensure_ascii=False)
            handle.write("\n")


def logs_to_otlp_json(records: list[Any]) -> dict[str, Any]:
    """Finished SDK log records as an OTLP JSON logs export (``resourceLogs`` / ``scopeLogs`` / ``logRecords``)."""
    items = []
    resource: Any = None
    for readable in records:
        resource = readable.resource
        record = readable.log_record
        item: dict[str, Any] = {
            "timeUnixNano": str(record.timestamp or record.observed_timestamp or 0),
            "traceId": format(record.trace_id or 0, "032x"),
            "spanId": format(record.span_id or 0, "016x"),
            "attributes": _attributes(record.attributes),
        }
        if record.event_name:
            item["eventName"] = record.event_name
        if record.body is not None:
            item["body"] = _value(record.body)
        items.append(item)
    return {
        "resourceLogs": [
            {
                "resource": {"attributes": _attributes(resource.attributes if resource else {})},
                "scopeLogs": [{"scope": {"name": "gcp.vertex.agent"}, "logRecords": items}],
            }
        ]
    }
