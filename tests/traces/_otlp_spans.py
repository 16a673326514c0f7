"""OTLP/JSON spans for the trace tests: one span with string attributes, and the export document around spans."""

from __future__ import annotations

import json
from typing import Any

TRACE_ID = "ab" * 16
"""The trace every span of these helpers belongs to."""


def otlp_span(span_id: str, name: str, parent: str = "", start: int = 0, **attrs: Any) -> dict[str, Any]:
    """An OTLP/JSON span of trace :data:`TRACE_ID` with ``attrs`` as string attributes."""
    return {
        "traceId": TRACE_ID,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": str(start),
        "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
    }


def otlp_export(*spans: dict[str, Any]) -> str:
    """The OTLP/JSON export holding ``spans`` (one resource, one scope)."""
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans)}]}]})
