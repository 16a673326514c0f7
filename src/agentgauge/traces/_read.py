"""Trace files and directories read into spans and traces: Jaeger JSON (:mod:`._jaeger`), OTLP JSON with Tempo's
``batches`` / ``trace`` variants (:mod:`._otlp`), OTLP JSONL (:mod:`._jsonl`), plus OTLP JSON log records (content
recorded as events, merged into their spans: :mod:`._otlp_logs`); :func:`._document.read_spans` tells them apart.

Every reader returns :class:`~agentgauge.traces.Span` objects; :func:`load_traces` groups them into traces (across
all files of a directory, so a trace split over rotated files is one trace). Bad
input raises :class:`~agentgauge.errors.InputError` naming the file and the JSON path (or line) of the problem.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ._document import read_spans
from ._jsonl import looks_like_jsonl, read_jsonl
from ._otlp_logs import LOG_RECORD, merge_log_records
from ._spans import Span, Trace, build_traces
from ._where import Where

__all__ = [
    "LOG_RECORD",
    "SKIPPED_SUFFIXES",
    "load_traces",
    "merge_log_records",
    "parse_spans",
    "parse_traces",
    "trace_files",
]

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
        jsonl = looks_like_jsonl(data)
    spans = read_jsonl(data, source) if jsonl else read_spans(parse_json(data, source), Where(source))
    if not spans:
        raise InputError("no spans found", file=source)
    for span in spans:
        span.source = source
    return merge_log_records(spans, source) if merge_logs else spans
