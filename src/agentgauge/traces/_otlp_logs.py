"""OTLP JSON log records (``{"resourceLogs": [...]}``): content some exporters record as events, read as marker
spans and merged into the spans they name."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ._otlp import time_ns
from ._spans import Span, SpanEvent
from ._values import attributes, hex_id, items, placed_value
from ._where import Where

__all__ = ["LOG_RECORD", "merge_log_records", "read_otlp_log_batch", "read_otlp_logs"]

LOG_RECORD = "\x00log-record"
"""The name of a marker span carrying one log record (see :func:`merge_log_records`)."""


def merge_log_records(spans: list[Span], source: str) -> list[Span]:
    """Attach each log record (a marker span from :func:`read_otlp_logs`) to its span as a :class:`SpanEvent`;
    records whose span is absent are dropped. Raises when only log records were found."""
    logs = [s for s in spans if s.name == LOG_RECORD]
    if not logs:
        return spans
    real = [s for s in spans if s.name != LOG_RECORD]
    if not real:
        raise InputError("only log records found; give the trace file (spans) as well", file=source)
    by_id = {(s.trace_id, s.span_id): s for s in real}
    for record in logs:
        target = by_id.get((record.trace_id, record.span_id))
        if target is not None:
            target.events.extend(record.events)
    return real


def read_otlp_logs(batches: list[Any], where: Where) -> list[Span]:
    """OTLP log records as marker spans carrying one event: the event name (``eventName`` or the ``event.name``
    attribute), the record's attributes and its body (a key/value body is merged into the attributes)."""
    records: list[Span] = []
    for b_index, batch in enumerate(items(batches)):
        records.extend(read_otlp_log_batch(batch, where.at(b_index)))
    return records


def read_otlp_log_batch(batch: Any, b_where: Where) -> list[Span]:
    """The log records of one resource batch (an item of ``resourceLogs`` found at ``b_where``) as marker spans;
    anything that is not an object is skipped."""
    records: list[Span] = []
    if not isinstance(batch, dict):
        return records
    for s_key in ("scopeLogs", "scope_logs", "instrumentationLibraryLogs"):
        for g_index, group in enumerate(items(batch.get(s_key))):
            if not isinstance(group, dict):
                continue
            g_where = b_where.key(s_key).at(g_index)
            for r_index, raw in enumerate(items(group.get("logRecords") or group.get("log_records"))):
                if not isinstance(raw, dict) or not raw.get("traceId") or not raw.get("spanId"):
                    continue  # a log record outside any span cannot be placed
                records.append(_log_record(raw, g_where.key("logRecords").at(r_index)))
    return records


def _log_record(raw: dict[str, Any], where: Where) -> Span:
    record_attributes = attributes(raw.get("attributes"), where)
    body = placed_value(raw.get("body"), where.key("body"))
    if isinstance(body, dict):
        record_attributes = {**body, **record_attributes}
    elif body is not None:
        record_attributes.setdefault("body", body)
    name = raw.get("eventName") or record_attributes.get("event.name") or ""
    return Span(
        trace_id=hex_id(raw.get("traceId"), 16, "traceId", where),
        span_id=hex_id(raw.get("spanId"), 8, "spanId", where),
        parent_id="",
        name=LOG_RECORD,
        events=[SpanEvent(str(name), time_ns(raw, "timeUnixNano", "time_unix_nano", where), record_attributes)],
        location=where.path,
    )
