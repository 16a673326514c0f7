"""Trace files read one piece at a time, each trace handed on as soon as its last span has been read.

Reading a whole export first builds its entire JSON tree and every span -- about six times the file's size -- so
:func:`iter_traces` reads it in pieces instead: a JSONL file line by line, a JSON document one item of its
``data`` (Jaeger), ``resourceSpans`` / ``batches`` (OTLP, Tempo) or ``resourceLogs`` array at a time (with
:mod:`agentgauge.formats._stream`'s incremental reader: every value is parsed by orjson). The first pass
(:mod:`._scan`) has found where each trace id occurs last, so a trace is complete once the reader has passed that
point: its spans (with their log records merged in) are linked into a :class:`Trace` and handed on, and only the
traces still open stay in memory. A document that is not an object with such an array is read whole, as before.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ._jaeger import read_jaeger_item
from ._jsonl import read_line
from ._otlp import otlp_root, read_otlp_batch
from ._otlp_logs import LOG_RECORD, merge_log_records, read_otlp_log_batch
from ._scan import Position, scan_files
from ._spans import Span, Trace, build_traces
from ._where import Where

__all__ = ["EMPTY_FILE", "iter_traces"]

EMPTY_FILE = "empty file, expected a trace export (Jaeger JSON, OTLP JSON or OTLP JSONL)"
_END: Position = (1 << 62, 0)
_OTLP_KEYS = ("resourceSpans", "resource_spans", "batches")
_LOG_KEYS = ("resourceLogs", "resource_logs")
_ARRAY_KEYS = frozenset((*_OTLP_KEYS, *_LOG_KEYS, "data"))
_Unit = tuple[int, list[Span]]  # (the offset just past the piece, its spans)


@dataclass(slots=True)
class _Group:
    """The spans of one trace read so far; ``ordinal`` orders traces by their first span (not log record)."""

    ordinal: int = -1
    spans: list[Span] = field(default_factory=list)
    logs: list[Span] = field(default_factory=list)


def _item_spans(key: str, item: Any, where: Where) -> list[Span]:
    if key == "data":
        return read_jaeger_item(item, where)
    if key in _LOG_KEYS:
        return read_otlp_log_batch(item, where)
    return read_otlp_batch(item, where)


def _line_units(path: Path, source: str) -> Iterator[_Unit]:
    with open(path, "rb") as handle:
        offset = 0
        for number, line in enumerate(handle, start=1):
            offset += len(line)
            if line.strip():
                yield offset, read_line(line, Where(source, f"line {number}"))


def _whole(path: Path, source: str) -> list[Span]:
    from ..formats._jsonio import read_bytes
    from ._parse import parse_spans

    return parse_spans(read_bytes(path), source=source, jsonl=None, merge_logs=False)


def _chosen(rest: dict[str, Any], streamed: str) -> bool:
    """Whether reading the whole document would have used the array ``streamed`` (and ignored the rest)."""
    probe = {**rest, streamed: []}
    root = otlp_root(probe)
    if root is not None:
        return root[0] == streamed and root[2] == ""
    return streamed == "data"


def _document_units(path: Path, source: str) -> Iterator[_Unit]:
    """The items of the document's trace array, one at a time; the whole document when it has no such array."""
    from ..formats._jsonio import MAX_DEPTH
    from ..formats._stream import _Input, _NotStreamable, _object_members

    emitted = False
    with open(path, "rb") as handle:
        reader = _Input(handle.read)
        rest: dict[str, Any] = {}
        streamed = ""
        try:
            for key in _object_members(reader):
                if key not in _ARRAY_KEYS or streamed or reader.peek() != ord("["):
                    rest[key] = reader.value(MAX_DEPTH - 1)
                    continue
                streamed, where = key, Where(source).field(key)
                reader.expect(ord("["))
                if reader.peek() == ord("]"):
                    reader.expect(ord("]"))
                    continue
                for index in itertools.count():
                    spans = _item_spans(key, reader.value(MAX_DEPTH - 2), where.at(index))
                    emitted = True
                    yield reader.offset(), spans
                    if reader.expect(ord(","), ord("]")) == ord("]"):
                        break
        except _NotStreamable:
            spans = _whole(path, source)  # a syntax error, a value nested too deep: named as the whole read names it
            if emitted:
                raise InputError("cannot be read piece by piece (a top-level key given twice?)", file=source) from None
            yield _END[0], spans
            return
    if not streamed:
        from ._document import read_spans

        yield _END[0], read_spans(rest, Where(source))
    elif not _chosen(rest, streamed):
        raise InputError(f"holds {streamed!r} beside another trace export: give one export per file", file=source)


def _complete(group: _Group, source: str) -> Trace | None:
    if not group.spans:
        return None  # log records whose spans are absent are dropped
    spans = merge_log_records(group.spans + group.logs, source) if group.logs else group.spans
    return build_traces(spans)[0]


def iter_traces(files: list[Path], source: str) -> Iterator[tuple[int, Trace]]:
    """Every trace in ``files`` as ``(ordinal, trace)``, handed on as soon as its last span has been read.

    ``ordinal`` numbers the traces in order of their first span, as :func:`build_traces` orders them (traces are
    handed on in the order they complete). Spans of one trace in several files form one trace. Raises the
    :class:`InputError` of the whole-file reader for a blank file, a file without spans, bad JSON or a bad span,
    and when the input holds log records only (``source`` names the input then).
    """
    scan = scan_files(files)
    pending: dict[str, _Group] = {}
    heap: list[tuple[Position, str]] = []
    ordinals = itertools.count()
    logs_only = True
    for number, path in enumerate(files):
        name = str(path)
        if scan.blank[number]:
            raise InputError(EMPTY_FILE, file=name)
        units = _line_units if path.suffix == ".jsonl" or scan.jsonl_shaped[number] else _document_units
        found = 0
        for end, spans in units(path, name):
            found += len(spans)
            for span in spans:
                span.source = name
                group = pending.get(span.trace_id)
                if group is None:
                    group = pending[span.trace_id] = _Group()
                    # The trace's last position is needed once: dropping it frees the first pass's table as
                    # the traces are read (the conversations' summaries take its place).
                    heapq.heappush(heap, (scan.last.pop(span.trace_id, _END), span.trace_id))
                if span.name == LOG_RECORD:
                    group.logs.append(span)
                    continue
                logs_only = False
                if group.ordinal < 0:
                    group.ordinal = next(ordinals)
                group.spans.append(span)
            here = (number, end)
            while heap and heap[0][0] < here:
                group = pending.pop(heapq.heappop(heap)[1])
                trace = _complete(group, source)
                if trace is not None:
                    yield group.ordinal, trace
        if not found:
            raise InputError("no spans found", file=name)
    for _, trace_id in sorted(heap):
        group = pending.pop(trace_id)
        trace = _complete(group, source)
        if trace is not None:
            yield group.ordinal, trace
    if logs_only:
        raise InputError("only log records found; give the trace file (spans) as well", file=source)
