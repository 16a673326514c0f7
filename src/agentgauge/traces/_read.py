"""Trace file readers: Jaeger JSON, OTLP JSON (with Tempo's ``batches`` / ``trace`` variants) and OTLP JSONL, plus
OTLP JSON log records (content recorded as events, merged into their spans).

Every reader returns :class:`~agentgauge.traces.Span` objects; :func:`load_traces` groups them into traces (across
all files of a directory, so a trace split over rotated files is one trace). Bad
input raises :class:`~agentgauge.errors.InputError` naming the file and the JSON path (or line) of the problem.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import os
from pathlib import Path
from typing import Any

from ..errors import InputError
from ._spans import Span, SpanEvent, Trace, build_traces

__all__ = ["SKIPPED_SUFFIXES", "load_traces", "merge_log_records", "parse_spans", "parse_traces", "trace_files"]

# Files a trace directory may hold beside the traces (eval sets, metrics, results): not read as traces.
SKIPPED_SUFFIXES = (".evalset.json", ".metrics.json", ".evalset_result.json", "test_config.json", ".test.json")


def trace_files(path: str | os.PathLike[str]) -> list[Path]:
    """The trace files at ``path``: the file itself, or a directory's ``*.json`` / ``*.jsonl`` files (sorted,
    not recursive), leaving out eval sets, metrics and result files (names ending in :data:`SKIPPED_SUFFIXES`)."""
    root = Path(path)
    if not root.exists():
        raise InputError("file not found", file=str(root))
    if root.is_file():
        return [root]
    files = sorted(
        p
        for p in root.iterdir()
        if p.is_file() and p.suffix in (".json", ".jsonl") and not p.name.endswith(SKIPPED_SUFFIXES)
    )
    if not files:
        raise InputError("no trace files (*.json, *.jsonl) in this directory", file=str(root))
    return files


def load_traces(path: str | os.PathLike[str]) -> list[Trace]:
    """Read every trace in a trace file or directory (see :func:`trace_files`), in file order."""
    from ..formats._jsonio import read_bytes

    spans: list[Span] = []
    for file in trace_files(path):
        spans.extend(parse_spans(read_bytes(file), source=str(file), jsonl=file.suffix == ".jsonl", merge_logs=False))
    return build_traces(merge_log_records(spans, str(path)))


def parse_traces(data: bytes | str, *, source: str = "<input>", jsonl: bool | None = None) -> list[Trace]:
    """Parse trace file contents. ``jsonl=None`` detects JSON Lines (several JSON documents, one per line)."""
    return build_traces(parse_spans(data, source=source, jsonl=jsonl), source)


def parse_spans(
    data: bytes | str, *, source: str = "<input>", jsonl: bool | None = None, merge_logs: bool = True
) -> list[Span]:
    """The spans of one trace file's contents (see :func:`parse_traces`), each tagged with ``source``.

    OTLP log records (``resourceLogs``) become events of the span they name; ``merge_logs=False`` returns them
    as marker spans (name :data:`LOG_RECORD`) for :func:`merge_log_records` to attach later (logs and spans are
    often exported to different files)."""
    from ..formats._jsonio import parse_json

    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not data.strip():
        raise InputError("empty file, expected a trace export (Jaeger JSON, OTLP JSON or OTLP JSONL)", file=source)
    if jsonl is None:
        jsonl = _looks_like_jsonl(data)
    spans = _read_jsonl(data, source) if jsonl else _read_document(parse_json(data, source), source, "")
    if not spans:
        raise InputError("no spans found", file=source)
    for span in spans:
        span.source = source
    return merge_log_records(spans, source) if merge_logs else spans


LOG_RECORD = "\x00log-record"


def merge_log_records(spans: list[Span], source: str) -> list[Span]:
    """Attach each log record (a marker span from :func:`_read_otlp_logs`) to its span as a :class:`SpanEvent`;
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


def _read_otlp_logs(batches: list[Any], source: str, where: str) -> list[Span]:
    """OTLP log records as marker spans carrying one event: the event name (``eventName`` or the ``event.name``
    attribute), the record's attributes and its body (a key/value body is merged into the attributes)."""
    records: list[Span] = []
    for b_index, batch in enumerate(_items(batches)):
        if not isinstance(batch, dict):
            continue
        for s_key in ("scopeLogs", "scope_logs", "instrumentationLibraryLogs"):
            for g_index, group in enumerate(_items(batch.get(s_key))):
                if not isinstance(group, dict):
                    continue
                for r_index, raw in enumerate(_items(group.get("logRecords") or group.get("log_records"))):
                    r_where = f"{where}[{b_index}].{s_key}[{g_index}].logRecords[{r_index}]"
                    if not isinstance(raw, dict) or not raw.get("traceId") or not raw.get("spanId"):
                        continue  # a log record outside any span cannot be placed
                    attributes = _attributes(raw.get("attributes"), source, r_where)
                    body = any_value(raw.get("body"))
                    if isinstance(body, dict):
                        attributes = {**body, **attributes}
                    elif body is not None:
                        attributes.setdefault("body", body)
                    name = raw.get("eventName") or attributes.get("event.name") or ""
                    records.append(
                        Span(
                            trace_id=_hex_id(raw.get("traceId"), 16, "traceId", source, r_where),
                            span_id=_hex_id(raw.get("spanId"), 8, "spanId", source, r_where),
                            parent_id="",
                            name=LOG_RECORD,
                            events=[SpanEvent(str(name), _int(raw.get("timeUnixNano")), attributes)],
                            location=r_where,
                        )
                    )
    return records


def _looks_like_jsonl(data: bytes) -> bool:
    lines = [line for line in data.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith(b"{") and line.rstrip().endswith(b"}") for line in lines)


def _read_jsonl(data: bytes, source: str) -> list[Span]:
    import orjson

    from ..formats._jsonexact import loads  # integers beyond 64 bits stay exact

    spans: list[Span] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            doc = loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=source, location=where) from None
        if isinstance(doc, dict) and _otlp_root(doc) is None and _is_span(doc):
            spans.append(_otlp_span(doc, {}, "", source, where))
        else:
            spans.extend(_read_document(doc, source, where))
    return spans


def _is_span(doc: dict[str, Any]) -> bool:
    return ("spanId" in doc or "span_id" in doc) and ("traceId" in doc or "trace_id" in doc)


def _read_document(doc: Any, source: str, where: str) -> list[Span]:
    if isinstance(doc, list):
        spans: list[Span] = []
        for index, item in enumerate(doc):
            spans.extend(_read_document(item, source, f"{where}[{index}]"))
        return spans
    if not isinstance(doc, dict):
        raise _unrecognised(doc, source, where)
    otlp = _otlp_root(doc)
    if otlp is not None:
        key, batches, prefix = otlp
        if key in ("resourceLogs", "resource_logs"):
            return _read_otlp_logs(batches, source, _join(where, key))
        return _read_otlp(batches, source, _join(where, prefix + key))
    if isinstance(doc.get("data"), list):
        return _read_jaeger_traces(doc["data"], source, _join(where, "data"))
    if isinstance(doc.get("spans"), list) and ("traceID" in doc or "processes" in doc):
        return _read_jaeger_trace(doc, source, where)
    if _is_span(doc):
        return [_otlp_span(doc, {}, "", source, where)]
    raise _unrecognised(doc, source, where)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _unrecognised(doc: Any, source: str, where: str) -> InputError:
    from ..formats._api import describe

    return InputError(
        f"not a trace export: found {describe(doc)}; expected Jaeger JSON ({{'data': [traces]}}), OTLP JSON "
        "({'resourceSpans': [...]} or Tempo's {'batches': [...]}) or OTLP JSONL (one span or export per line)",
        file=source,
        location=where or None,
    )


def _otlp_root(doc: dict[str, Any]) -> tuple[str, list[Any], str] | None:
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


# --- OTLP -------------------------------------------------------------------------------------------------------


def _read_otlp(batches: list[Any], source: str, where: str) -> list[Span]:
    spans: list[Span] = []
    for b_index, batch in enumerate(batches):
        b_where = f"{where}[{b_index}]"
        if not isinstance(batch, dict):
            raise InputError(f"expected an object, found {type(batch).__name__}", file=source, location=b_where)
        resource_doc = batch.get("resource") or {}
        resource = _attributes(
            resource_doc.get("attributes") if isinstance(resource_doc, dict) else None, source, b_where + ".resource"
        )
        for s_key in ("scopeSpans", "scope_spans", "instrumentationLibrarySpans", "instrumentation_library_spans"):
            scope_groups = batch.get(s_key)
            if scope_groups is None:
                continue
            if not isinstance(scope_groups, list):
                raise InputError("expected an array", file=source, location=f"{b_where}.{s_key}")
            for g_index, group in enumerate(scope_groups):
                g_where = f"{b_where}.{s_key}[{g_index}]"
                if not isinstance(group, dict):
                    raise InputError("expected an object", file=source, location=g_where)
                scope_doc = group.get("scope") or group.get("instrumentationLibrary") or {}
                scope = scope_doc.get("name", "") if isinstance(scope_doc, dict) else ""
                raw_spans = group.get("spans") or []
                if not isinstance(raw_spans, list):
                    raise InputError("expected an array of spans", file=source, location=f"{g_where}.spans")
                for i, raw in enumerate(raw_spans):
                    span = _otlp_span(raw, resource, str(scope or ""), source, f"{g_where}.spans[{i}]")
                    if isinstance(scope_doc, dict) and scope_doc.get("version"):
                        span.attributes.setdefault("otel.scope.version", scope_doc["version"])
                    spans.append(span)
    return spans


def _otlp_span(raw: Any, resource: dict[str, Any], scope: str, source: str, where: str) -> Span:
    if not isinstance(raw, dict):
        raise InputError(f"expected a span object, found {type(raw).__name__}", file=source, location=where)
    trace_id = _hex_id(raw.get("traceId", raw.get("trace_id")), 16, "traceId", source, where)
    span_id = _hex_id(raw.get("spanId", raw.get("span_id")), 8, "spanId", source, where)
    parent = raw.get("parentSpanId", raw.get("parent_span_id")) or ""
    parent_id = _hex_id(parent, 8, "parentSpanId", source, where) if parent else ""
    attributes = _attributes(raw.get("attributes"), source, where)
    if scope:
        attributes.setdefault("otel.scope.name", scope)
    events = []
    for e_index, event in enumerate(_items(raw.get("events"))):
        if isinstance(event, dict):
            events.append(
                SpanEvent(
                    str(event.get("name", "")),
                    _int(event.get("timeUnixNano", event.get("time_unix_nano", 0))),
                    _attributes(event.get("attributes"), source, f"{where}.events[{e_index}]"),
                )
            )
    name = raw.get("name", "")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=parent_id,
        name=name if isinstance(name, str) else str(name),
        start_ns=_int(raw.get("startTimeUnixNano", raw.get("start_time_unix_nano", 0))),
        end_ns=_int(raw.get("endTimeUnixNano", raw.get("end_time_unix_nano", 0))),
        attributes=attributes,
        resource=resource,
        scope=scope or str(attributes.get("otel.scope.name", "")),
        events=events,
        location=where,
    )


def _hex_id(value: Any, size: int, key: str, source: str, where: str) -> str:
    """A trace/span id as lowercase hex. OTLP JSON uses hex; protobuf's JSON mapping writes base64: both read."""
    if not isinstance(value, str) or not value:
        raise InputError(f"missing or invalid {key!r} (expected a hex string)", file=source, location=where)
    lowered = value.lower()
    if all(c in "0123456789abcdef" for c in lowered):
        return lowered
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise InputError(f"invalid {key!r}: {value!r} is neither hex nor base64", file=source, location=where)


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return 0


def _attributes(raw: Any, source: str, where: str) -> dict[str, Any]:
    """OTLP ``[{key, value: {stringValue | ...}}]``, a flat ``{key: value}`` dict, or a nested dict (flattened to
    dotted keys, as ClickHouse JSON columns store them)."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                out[item["key"]] = any_value(item.get("value"))
        return out
    if isinstance(raw, dict):
        flat: dict[str, Any] = {}
        _flatten("", raw, flat)
        return flat
    raise InputError(
        f"attributes must be an array or an object, found {type(raw).__name__}", file=source, location=where
    )


def _flatten(prefix: str, value: dict[str, Any], out: dict[str, Any]) -> None:
    for key, item in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item and not _is_any_value(item):
            _flatten(name, item, out)
        else:
            out[name] = any_value(item) if isinstance(item, dict) else item


_VALUE_KEYS = frozenset(
    {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"}
)


def _is_any_value(item: dict[str, Any]) -> bool:
    return len(item) == 1 and next(iter(item)) in _VALUE_KEYS


def any_value(value: Any) -> Any:
    """Decode an OTLP ``AnyValue`` (``{"stringValue": ...}``, ...) to a plain JSON value; other values pass."""
    if not isinstance(value, dict):
        return value
    if not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return _int(value["intValue"])
    if "doubleValue" in value:
        number = value["doubleValue"]
        return float(number) if isinstance(number, (int, float, str)) and _is_number(number) else number
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        inner = value["arrayValue"]
        return [any_value(item) for item in _items(inner.get("values") if isinstance(inner, dict) else inner)]
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        pairs = _items(inner.get("values") if isinstance(inner, dict) else inner)
        return {str(p.get("key")): any_value(p.get("value")) for p in pairs if isinstance(p, dict)}
    if "bytesValue" in value:
        try:
            decoded = base64.b64decode(value["bytesValue"])
            return decoded.decode("utf-8")
        except (binascii.Error, ValueError, TypeError):
            return value["bytesValue"]
    return value


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


# --- Jaeger -----------------------------------------------------------------------------------------------------


def _read_jaeger_traces(traces: list[Any], source: str, where: str) -> list[Span]:
    spans: list[Span] = []
    for index, trace in enumerate(traces):
        t_where = f"{where}[{index}]"
        if not isinstance(trace, dict):
            raise InputError("expected a trace object with 'spans'", file=source, location=t_where)
        spans.extend(_read_jaeger_trace(trace, source, t_where))
    return spans


def _read_jaeger_trace(trace: dict[str, Any], source: str, where: str) -> list[Span]:
    raw_spans = trace.get("spans")
    if raw_spans is None:
        return []
    if not isinstance(raw_spans, list):
        raise InputError("expected an array of spans", file=source, location=f"{where}.spans")
    processes: dict[str, dict[str, Any]] = {}
    processes_doc = trace.get("processes")
    for pid, process in (processes_doc if isinstance(processes_doc, dict) else {}).items():
        if isinstance(process, dict):
            resource = _jaeger_tags(process.get("tags"), source, f"{where}.processes.{pid}.tags")
            if isinstance(process.get("serviceName"), str):
                resource.setdefault("service.name", process["serviceName"])
            processes[pid] = resource
    spans = []
    for index, raw in enumerate(raw_spans):
        s_where = f"{where}.spans[{index}]"
        if not isinstance(raw, dict):
            raise InputError("expected a span object", file=source, location=s_where)
        trace_id = raw.get("traceID", trace.get("traceID"))
        span_id = raw.get("spanID")
        for key, value in (("traceID", trace_id), ("spanID", span_id)):
            if not isinstance(value, str) or not value:
                raise InputError(f"missing or invalid {key!r} (expected a hex string)", file=source, location=s_where)
        parent_id = ""
        for ref in _items(raw.get("references")):
            if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF" and isinstance(ref.get("spanID"), str):
                parent_id = ref["spanID"].lower()
                break
        if not parent_id and isinstance(raw.get("parentSpanID"), str):
            parent_id = raw["parentSpanID"].lower()
        tags = _jaeger_tags(raw.get("tags"), source, f"{s_where}.tags")
        events = [
            SpanEvent(
                str(_jaeger_tags(log.get("fields"), source, s_where).get("event", "log")),
                _int(log.get("timestamp")) * 1000,
                _jaeger_tags(log.get("fields"), source, s_where),
            )
            for log in _items(raw.get("logs"))
            if isinstance(log, dict)
        ]
        start_us = _int(raw.get("startTime"))
        name = raw.get("operationName", "")
        spans.append(
            Span(
                trace_id=str(trace_id).lower(),
                span_id=str(span_id).lower(),
                parent_id=parent_id,
                name=name if isinstance(name, str) else str(name),
                start_ns=start_us * 1000,
                end_ns=(start_us + _int(raw.get("duration"))) * 1000,
                attributes=tags,
                resource=processes.get(str(raw.get("processID", "")), {}),
                scope=str(tags.get("otel.scope.name", "")),
                events=events,
                location=s_where,
            )
        )
    return spans


def _jaeger_tags(raw: Any, source: str, where: str) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, dict):
        return _attributes(raw, source, where)
    if not isinstance(raw, list):
        raise InputError("tags must be an array of {key, type, value}", file=source, location=where)
    out: dict[str, Any] = {}
    for tag in raw:
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            continue
        value = tag.get("value")
        kind = str(tag.get("type", "")).lower()
        if kind in ("int64", "int") and isinstance(value, str):
            value = _int(value)
        elif kind in ("float64", "float") and isinstance(value, str) and _is_number(value):
            value = float(value)
        elif kind == "bool" and isinstance(value, str):
            value = value.lower() == "true"
        elif kind == "binary" and isinstance(value, str):
            with contextlib.suppress(binascii.Error, ValueError):
                value = base64.b64decode(value).decode("utf-8")
        out[tag["key"]] = value
    return out
