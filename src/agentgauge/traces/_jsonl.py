"""OTLP JSON Lines: one span or one export document per line (errors name the line)."""

from __future__ import annotations

from ._document import read_spans
from ._otlp import is_span, otlp_root, otlp_span
from ._spans import Span
from ._where import Where

__all__ = ["looks_like_jsonl", "read_jsonl"]


def looks_like_jsonl(data: bytes) -> bool:
    """True when ``data`` has several non-blank lines, each a JSON object."""
    lines = [line for line in data.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith(b"{") and line.rstrip().endswith(b"}") for line in lines)


def read_jsonl(data: bytes, source: str) -> list[Span]:
    """The spans of every line of ``data`` (a bare span, or any document :func:`read_spans` reads)."""
    import orjson

    from ..formats._jsonexact import loads  # integers beyond 64 bits stay exact

    spans: list[Span] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        where = Where(source, f"line {number}")
        try:
            doc = loads(line)
        except orjson.JSONDecodeError as exc:
            raise where.error(f"invalid JSON: {exc.msg}") from None
        if isinstance(doc, dict) and otlp_root(doc) is None and is_span(doc):
            spans.append(otlp_span(doc, {}, "", where))
        else:
            spans.extend(read_spans(doc, where))
    return spans
