"""Jaeger JSON traces: ``{"data": [traces]}`` as Jaeger's API returns them, or one trace object with ``spans``
and ``processes`` (a process's tags become the resource of its spans)."""

from __future__ import annotations

import base64
import binascii
import contextlib
from typing import Any

from ._spans import Span, SpanEvent
from ._values import UINT64_MAX, attributes, bounded_int, is_number, items, to_int
from ._where import Where

__all__ = ["read_jaeger_item", "read_jaeger_trace", "read_jaeger_traces"]

_MAX_MICROS = UINT64_MAX // 1000  # Jaeger times are microseconds; the span model holds OTLP's uint64 nanoseconds


def read_jaeger_traces(traces: list[Any], where: Where) -> list[Span]:
    """The spans of Jaeger's ``data`` array of traces."""
    spans: list[Span] = []
    for index, trace in enumerate(traces):
        spans.extend(read_jaeger_item(trace, where.at(index)))
    return spans


def read_jaeger_item(trace: Any, where: Where) -> list[Span]:
    """The spans of one item of Jaeger's ``data`` array (found at ``where``), which must be a trace object."""
    if not isinstance(trace, dict):
        raise where.error("expected a trace object with 'spans'")
    return read_jaeger_trace(trace, where)


def read_jaeger_trace(trace: dict[str, Any], where: Where) -> list[Span]:
    """The spans of one Jaeger trace object."""
    raw_spans = trace.get("spans")
    if raw_spans is None:
        return []
    if not isinstance(raw_spans, list):
        raise where.key("spans").error("expected an array of spans")
    processes = _processes(trace.get("processes"), where)
    spans_where = where.key("spans")
    return [_jaeger_span(raw, trace, processes, spans_where.at(index)) for index, raw in enumerate(raw_spans)]


def _processes(doc: Any, where: Where) -> dict[str, dict[str, Any]]:
    """Each process's resource (its tags and service name) by process id."""
    processes: dict[str, dict[str, Any]] = {}
    for pid, process in (doc if isinstance(doc, dict) else {}).items():
        if isinstance(process, dict):
            resource = _jaeger_tags(process.get("tags"), where.key("processes").key(pid), "tags")
            if isinstance(process.get("serviceName"), str):
                resource.setdefault("service.name", process["serviceName"])
            processes[pid] = resource
    return processes


def _jaeger_span(raw: Any, trace: dict[str, Any], processes: dict[str, dict[str, Any]], where: Where) -> Span:
    if not isinstance(raw, dict):
        raise where.error("expected a span object")
    trace_id = raw.get("traceID", trace.get("traceID"))
    span_id = raw.get("spanID")
    if not isinstance(trace_id, str) or not trace_id:
        raise where.error("missing or invalid 'traceID' (expected a hex string)")
    if not isinstance(span_id, str) or not span_id:
        raise where.error("missing or invalid 'spanID' (expected a hex string)")
    parent_id = ""
    for ref in items(raw.get("references")):
        if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF" and isinstance(ref.get("spanID"), str):
            parent_id = ref["spanID"].lower()
            break
    if not parent_id and isinstance(raw.get("parentSpanID"), str):
        parent_id = raw["parentSpanID"].lower()
    tags = _jaeger_tags(raw.get("tags"), where, "tags")
    logs = enumerate(items(raw.get("logs")))
    events = [_jaeger_event(log, where.key("logs").at(index)) for index, log in logs if isinstance(log, dict)]
    start_us = bounded_int(raw.get("startTime"), 0, _MAX_MICROS, "startTime", where)
    duration_us = bounded_int(raw.get("duration"), 0, _MAX_MICROS - start_us, "duration", where)
    name = raw.get("operationName", "")
    return Span(
        trace_id=trace_id.lower(),
        span_id=span_id.lower(),
        parent_id=parent_id,
        name=name if isinstance(name, str) else str(name),
        start_ns=start_us * 1000,
        end_ns=(start_us + duration_us) * 1000,
        attributes=tags,
        resource=processes.get(str(raw.get("processID", "")), {}),
        scope=str(tags.get("otel.scope.name", "")),
        events=events,
        location=where.path,
    )


def _jaeger_event(log: dict[str, Any], where: Where) -> SpanEvent:
    fields = _jaeger_tags(log.get("fields"), where)
    micros = bounded_int(log.get("timestamp"), 0, _MAX_MICROS, "timestamp", where)
    return SpanEvent(str(fields.get("event", "log")), micros * 1000, fields)


def _jaeger_tags(raw: Any, where: Where, key: str = "") -> dict[str, Any]:
    """The tags ``[{key, type, value}]`` (or an attribute object) found at ``where`` (member ``key`` of it, if
    given: the path is only spelled out for an error) as a dict."""
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return attributes(raw, where.key(key) if key else where)
    if not isinstance(raw, list):
        raise (where.key(key) if key else where).error("tags must be an array of {key, type, value}")
    out: dict[str, Any] = {}
    for tag in raw:
        if not isinstance(tag, dict):
            continue
        name = tag.get("key")
        if not isinstance(name, str):
            continue
        value = tag.get("value")
        # Only a string value is converted by its type; most tags are strings of type "string" (checked first).
        if isinstance(value, str) and tag.get("type") != "string":
            value = _typed(str(tag.get("type", "")).lower(), value)
        out[name] = value
    return out


def _typed(kind: str, value: str) -> Any:
    """A tag's string value converted as its Jaeger ``type`` says."""
    if kind in ("int64", "int"):
        return to_int(value)
    if kind in ("float64", "float") and is_number(value):
        return float(value)
    if kind == "bool":
        return value.lower() == "true"
    if kind == "binary":
        with contextlib.suppress(binascii.Error, ValueError):
            return base64.b64decode(value).decode("utf-8")
    return value
