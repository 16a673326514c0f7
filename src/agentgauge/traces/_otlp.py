"""OTLP JSON spans: ``{"resourceSpans": [...]}`` (also snake_case, Tempo's ``batches`` and ``{"trace": {...}}``
wrapper) and bare span objects as OTLP JSONL writes them."""

from __future__ import annotations

from typing import Any

from ._spans import Span, SpanEvent
from ._values import UINT64_MAX, attributes, bounded_int, hex_id, items
from ._where import Where

__all__ = ["is_span", "otlp_root", "otlp_span", "read_otlp", "read_otlp_batch", "time_ns"]

_SCOPE_KEYS = ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans")


def is_span(doc: dict[str, Any]) -> bool:
    """True when ``doc`` is a bare span (it has a span id and a trace id)."""
    return ("spanId" in doc or "span_id" in doc) and ("traceId" in doc or "trace_id" in doc)


def otlp_root(doc: dict[str, Any]) -> tuple[str, list[Any], str] | None:
    """``(key, batches, prefix)`` for an OTLP export (also snake_case and Tempo's ``{"trace": {...}}`` wrapper)."""
    for key in ("resourceSpans", "resource_spans", "batches", "resourceLogs", "resource_logs"):
        if isinstance(doc.get(key), list):
            return key, doc[key], ""
    inner = doc.get("trace")
    if isinstance(inner, dict):
        for key in ("resourceSpans", "resource_spans", "batches"):
            if isinstance(inner.get(key), list):
                return key, inner[key], "trace."
    return None


def read_otlp(batches: list[Any], where: Where) -> list[Span]:
    """The spans of an OTLP export's resource batches (``where`` is the path of the batch array)."""
    spans: list[Span] = []
    for b_index, batch in enumerate(batches):
        spans.extend(read_otlp_batch(batch, where.at(b_index)))
    return spans


def read_otlp_batch(batch: Any, b_where: Where) -> list[Span]:
    """The spans of one resource batch (an item of ``resourceSpans`` found at ``b_where``)."""
    if not isinstance(batch, dict):
        raise b_where.error(f"expected an object, found {type(batch).__name__}")
    resource_doc = batch.get("resource") or {}
    resource = attributes(
        resource_doc.get("attributes") if isinstance(resource_doc, dict) else None, b_where.key("resource")
    )
    spans: list[Span] = []
    for s_key in _SCOPE_KEYS:
        scope_groups = batch.get(s_key)
        if scope_groups is None:
            continue
        if not isinstance(scope_groups, list):
            raise b_where.key(s_key).error("expected an array")
        for g_index, group in enumerate(scope_groups):
            spans.extend(_scope_spans(group, resource, b_where.key(s_key).at(g_index)))
    return spans


def _scope_spans(group: Any, resource: dict[str, Any], where: Where) -> list[Span]:
    """The spans of one scope group, tagged with the scope's name and version."""
    if not isinstance(group, dict):
        raise where.error("expected an object")
    scope_doc = group.get("scope") or group.get("instrumentationLibrary") or {}
    scope = scope_doc.get("name", "") if isinstance(scope_doc, dict) else ""
    raw_spans = group.get("spans") or []
    if not isinstance(raw_spans, list):
        raise where.key("spans").error("expected an array of spans")
    spans: list[Span] = []
    for i, raw in enumerate(raw_spans):
        span = otlp_span(raw, resource, str(scope or ""), where.key("spans").at(i))
        if isinstance(scope_doc, dict) and scope_doc.get("version"):
            span.attributes.setdefault("otel.scope.version", scope_doc["version"])
        spans.append(span)
    return spans


def otlp_span(raw: Any, resource: dict[str, Any], scope: str, where: Where) -> Span:
    """One OTLP span object (camelCase or snake_case keys)."""
    if not isinstance(raw, dict):
        raise where.error(f"expected a span object, found {type(raw).__name__}")
    trace_id = hex_id(raw.get("traceId", raw.get("trace_id")), 16, "traceId", where)
    span_id = hex_id(raw.get("spanId", raw.get("span_id")), 8, "spanId", where)
    parent = raw.get("parentSpanId", raw.get("parent_span_id")) or ""
    parent_id = hex_id(parent, 8, "parentSpanId", where) if parent else ""
    span_attributes = attributes(raw.get("attributes"), where)
    if scope:
        span_attributes.setdefault("otel.scope.name", scope)
    events = []
    for e_index, event in enumerate(items(raw.get("events"))):
        if isinstance(event, dict):
            e_where = where.key("events").at(e_index)
            events.append(
                SpanEvent(
                    str(event.get("name", "")),
                    time_ns(event, "timeUnixNano", "time_unix_nano", e_where),
                    attributes(event.get("attributes"), e_where),
                )
            )
    name = raw.get("name", "")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=name if isinstance(name, str) else str(name),
        start_ns=time_ns(raw, "startTimeUnixNano", "start_time_unix_nano", where),
        end_ns=time_ns(raw, "endTimeUnixNano", "end_time_unix_nano", where),
        attributes=span_attributes,
        resource=resource,
        scope=scope or str(span_attributes.get("otel.scope.name", "")),
        events=events,
        location=where.path,
    )


def time_ns(raw: dict[str, Any], key: str, snake_key: str, where: Where) -> int:
    """A time in nanoseconds since the epoch: field ``key`` (else ``snake_key``) of the object at ``where``, ``0``
    when absent; a value that is not an OTLP ``fixed64`` (negative, beyond 2**64 - 1, infinite) is an error naming
    the field."""
    found = key if key in raw else snake_key
    return bounded_int(raw.get(found), 0, UINT64_MAX, found, where)
