"""One OTLP export request as it arrives over the wire (OTLP/HTTP or OTLP/gRPC): its bytes decoded to the OTLP
JSON document the file readers read, and that document's spans.

Protobuf bodies (``ExportTraceServiceRequest`` / ``ExportLogsServiceRequest``) are decoded with
``opentelemetry-proto`` (the ``otlp`` extra) and mapped to OTLP JSON with protobuf's JSON mapping, whose base64 ids
and string integers every reader accepts; JSON bodies are read as they are. The document is what a receiver appends
to its OTLP JSONL files, so ``eval --traces`` reads received data exactly as it reads an exported file.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any, Literal

from ..errors import InputError
from ._document import read_spans
from ._spans import Span
from ._where import Where

__all__ = [
    "OTLP_PROTO_HINT",
    "Signal",
    "check_document",
    "export_document",
    "payload_spans",
    "proto_request_document",
]

Signal = Literal["traces", "logs"]
"""The OTLP signal of a request: spans (``/v1/traces``) or log records (``/v1/logs``)."""

OTLP_PROTO_HINT = "OTLP protobuf needs opentelemetry-proto: pip install 'agentgauge[otlp]' (or send OTLP JSON)"

_ROOTS: dict[str, tuple[str, ...]] = {
    "traces": ("resourceSpans", "resource_spans"),
    "logs": ("resourceLogs", "resource_logs"),
}


def export_document(body: bytes, *, protobuf: bool, signal: Signal, source: str = "<request>") -> dict[str, Any]:
    """The OTLP JSON export document of one request body (``protobuf``: the binary encoding, else OTLP JSON).

    Raises :class:`~agentgauge.errors.InputError` naming ``source`` for a body that is not an export request of
    ``signal`` (``{"resourceSpans": [...]}`` for traces, ``{"resourceLogs": [...]}`` for logs)."""
    if protobuf:
        return proto_request_document(body, signal=signal, source=source)
    from ..formats._jsonexact import loads  # integers beyond 64 bits stay exact

    try:
        doc = loads(body)
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", file=source) from None
    if not isinstance(doc, dict):
        raise InputError(f"expected an OTLP export object, found {type(doc).__name__}", file=source)
    roots = _ROOTS[signal]
    present = [key for key in roots if key in doc]
    if not present:
        if not doc:
            return {roots[0]: []}  # an empty request is valid OTLP (exporters send them on flush)
        raise InputError(f"not an OTLP {signal} export: expected {roots[0]!r}", file=source)
    if not isinstance(doc[present[0]], list):
        raise InputError("expected an array", file=source, location=f"$.{present[0]}")
    return {roots[0]: doc[present[0]]}


def proto_request_document(body: bytes, *, signal: Signal, source: str = "<request>") -> dict[str, Any]:
    """A protobuf ``Export*ServiceRequest`` as its OTLP JSON document (also used for gRPC, whose request
    objects are serialised back to bytes first)."""
    try:
        from google.protobuf.json_format import MessageToDict
        from google.protobuf.message import DecodeError

        if signal == "traces":
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
                ExportTraceServiceRequest as Request,
            )
        else:
            from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (  # type: ignore[assignment]
                ExportLogsServiceRequest as Request,
            )
    except ImportError:
        raise InputError(OTLP_PROTO_HINT, file=source) from None
    message = Request()
    try:
        message.ParseFromString(body)
    except DecodeError as exc:
        raise InputError(f"invalid OTLP protobuf: {exc}", file=source) from None
    doc = MessageToDict(message)
    key = _ROOTS[signal][0]
    return {key: doc.get(key, [])}


def payload_spans(doc: dict[str, Any], source: str) -> list[Span]:
    """The spans of an export document; a logs document gives one marker span per log record placed in a span
    (see :func:`~agentgauge.traces.merge_log_records`), each tagged with ``source``."""
    spans = read_spans(doc, Where(source))
    for span in spans:
        span.source = source
    return spans


_INT_RANGE = (-(2**63), 2**64 - 1)  # what OTLP's integer fields (int64, uint64, fixed64) and JSON writers hold


def check_document(doc: Any, source: str) -> None:
    """Refuse, before anything is stored, an export document that could not be written back as it came or read
    safely: arrays and objects nested deeper than :data:`~agentgauge.formats._jsonio.MAX_DEPTH` levels, an integer
    outside 64 bits or a number that is infinite or NaN (``1e999``). The :class:`~agentgauge.errors.InputError`
    names ``source`` and the JSON path of the first such value (``resourceSpans[0].scopeSpans[0].spans[0].
    startTimeUnixNano``)."""
    from ..formats._jsonio import MAX_DEPTH

    found = _first_problem(doc, MAX_DEPTH)
    if found is None:
        return
    if isinstance(found, int):
        problem, path = f"nested deeper than {MAX_DEPTH} levels of arrays and objects", _path_of(doc, _too_deep(found))
    else:
        text = str(found[0])
        shown = text if len(text) <= 40 else f"{text[:40]}…"
        problem = f"number out of range: {shown} (integers must fit in 64 bits, numbers be finite)"
        path = _path_of(doc, lambda value, _depth: value is found[0])
    raise InputError(problem, file=source, location=_path_text(path) or None)


def _first_problem(doc: Any, limit: int) -> int | tuple[Any] | None:
    """The depth limit (an int) when the document nests deeper, the first number out of range (in a 1-tuple),
    or ``None``. The walk keeps no path (most documents have no problem); the path is found by a second walk."""
    low, high = _INT_RANGE
    stack: list[tuple[Any, int]] = [(doc, 1)] if type(doc) in (dict, list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return limit
        for child in node.values() if type(node) is dict else node:
            kind = type(child)
            if kind is dict or kind is list:
                stack.append((child, depth + 1))
            elif (kind is int and not low <= child <= high) or (kind is float and not math.isfinite(child)):
                return (child,)
    return None


def _too_deep(limit: int) -> Any:
    return lambda value, depth: depth > limit and type(value) in (dict, list)


def _path_of(doc: Any, wanted: Any) -> list[str | int]:
    """The path to the first value (depth first) for which ``wanted(value, depth)`` holds (``doc`` is depth 1)."""
    keys: list[str | int] = []
    stack: list[Iterator[tuple[Any, Any]]] = [_pairs(doc)]
    while stack:
        for key, child in stack[-1]:
            if wanted(child, len(stack) + 1):
                return [*keys, key]
            if type(child) in (dict, list):
                keys.append(key)
                stack.append(_pairs(child))
                break
        else:
            stack.pop()
            if keys:
                keys.pop()
    return []


def _pairs(node: Any) -> Iterator[tuple[Any, Any]]:
    if type(node) is dict:
        return iter(node.items())
    return iter(enumerate(node)) if type(node) is list else iter(())


def _path_text(path: list[str | int]) -> str:
    from ..formats._jsonio import join_path

    text = join_path("", path)
    return text if len(text) <= 200 else f"{text[:120]}…{text[-60:]}"  # a path 200 levels deep is mostly repetition
