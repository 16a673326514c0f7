"""One OTLP export request as it arrives over the wire (OTLP/HTTP or OTLP/gRPC): its bytes decoded to the OTLP
JSON document the file readers read, and that document's spans.

Protobuf bodies (``ExportTraceServiceRequest`` / ``ExportLogsServiceRequest``) are decoded with
``opentelemetry-proto`` (the ``otlp`` extra) and mapped to OTLP JSON with protobuf's JSON mapping, whose base64 ids
and string integers every reader accepts; JSON bodies are read as they are. The document is what a receiver appends
to its OTLP JSONL files, so ``eval --traces`` reads received data exactly as it reads an exported file.
"""

from __future__ import annotations

from typing import Any, Literal

from ..errors import InputError
from ._document import read_spans
from ._spans import Span
from ._where import Where

__all__ = ["OTLP_PROTO_HINT", "Signal", "export_document", "payload_spans", "proto_request_document"]

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
