"""OTLP JSON Lines: one span or one export document per line (errors name the line)."""

from __future__ import annotations

from ._document import read_spans
from ._otlp import is_span, otlp_root, otlp_span
from ._spans import Span
from ._where import Where

__all__ = ["looks_like_jsonl", "read_jsonl", "read_line"]


def looks_like_jsonl(data: bytes) -> bool:
    """True when ``data`` has several non-blank lines, each a JSON object."""
    lines = [line for line in data.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith(b"{") and line.rstrip().endswith(b"}") for line in lines)


def read_jsonl(data: bytes, source: str) -> list[Span]:
    """The spans of every line of ``data`` (a bare span, or any document :func:`read_spans` reads)."""
    spans: list[Span] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            spans.extend(read_line(line, Where(source, f"line {number}")))
    return spans


def read_line(line: bytes, where: Where) -> list[Span]:
    """The spans of one non-blank JSONL line found at ``where`` (``line N``)."""
    import orjson

    from ..formats._jsonexact import loads  # integers beyond 64 bits stay exact

    try:
        doc = loads(line)
    except orjson.JSONDecodeError as exc:
        raise where.error(f"invalid JSON: {exc.msg}") from None
    if isinstance(doc, dict) and otlp_root(doc) is None and is_span(doc):
        return [otlp_span(doc, {}, "", where)]
    return read_spans(doc, where)
