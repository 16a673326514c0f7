"""One parsed trace document to spans: :func:`read_spans` recognises the dialect (OTLP JSON, OTLP logs, Jaeger
JSON, a bare span, or an array of any of these) and hands it to that dialect's reader."""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ._jaeger import read_jaeger_trace, read_jaeger_traces
from ._otlp import is_span, otlp_root, otlp_span, read_otlp
from ._otlp_logs import read_otlp_logs
from ._spans import Span
from ._where import Where

__all__ = ["read_spans"]


def read_spans(doc: Any, where: Where) -> list[Span]:
    """The spans (and log-record marker spans) of a parsed JSON document found at ``where``."""
    if isinstance(doc, list):
        spans: list[Span] = []
        for index, item in enumerate(doc):
            spans.extend(read_spans(item, where.at(index)))
        return spans
    if not isinstance(doc, dict):
        raise _unrecognised(doc, where)
    otlp = otlp_root(doc)
    if otlp is not None:
        key, batches, prefix = otlp
        if key in ("resourceLogs", "resource_logs"):
            return read_otlp_logs(batches, where.field(key))
        return read_otlp(batches, where.field(prefix + key))
    if isinstance(doc.get("data"), list):
        return read_jaeger_traces(doc["data"], where.field("data"))
    if isinstance(doc.get("spans"), list) and ("traceID" in doc or "processes" in doc):
        return read_jaeger_trace(doc, where)
    if is_span(doc):
        return [otlp_span(doc, {}, "", where)]
    raise _unrecognised(doc, where)


def _unrecognised(doc: Any, where: Where) -> InputError:
    from ..formats._api import describe

    return InputError(
        f"not a trace export: found {describe(doc)}; expected Jaeger JSON ({{'data': [traces]}}), OTLP JSON "
        "({'resourceSpans': [...]} or Tempo's {'batches': [...]}) or OTLP JSONL (one span or export per line)",
        file=where.file,
        location=where.path or None,
    )
