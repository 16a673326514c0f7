"""One trace file's contents (JSON or JSONL bytes) to spans, log records merged into the spans they name."""

from __future__ import annotations

from ..errors import InputError
from ._document import read_spans
from ._jsonl import looks_like_jsonl, read_jsonl
from ._otlp_logs import merge_log_records
from ._spans import Span
from ._where import Where

__all__ = ["parse_spans"]


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
        jsonl = looks_like_jsonl(data)
    spans = read_jsonl(data, source) if jsonl else read_spans(parse_json(data, source), Where(source))
    if not spans:
        raise InputError("no spans found", file=source)
    for span in spans:
        span.source = source
    return merge_log_records(spans, source) if merge_logs else spans
