"""Trace files and directories read into spans and traces: Jaeger JSON (:mod:`._jaeger`), OTLP JSON with Tempo's
``batches`` / ``trace`` variants (:mod:`._otlp`), OTLP JSONL (:mod:`._jsonl`), plus OTLP JSON log records (content
recorded as events, merged into their spans: :mod:`._otlp_logs`); :func:`._document.read_spans` tells them apart.

Every reader returns :class:`~agentgauge.traces.Span` objects; :func:`load_traces` groups them into traces (across
all files of a directory, so a trace split over rotated files is one trace). Bad
input raises :class:`~agentgauge.errors.InputError` naming the file and the JSON path (or line) of the problem.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..errors import InputError
from ._otlp_logs import LOG_RECORD, merge_log_records
from ._parse import parse_spans
from ._spans import Trace, build_traces

__all__ = [
    "LOG_RECORD",
    "SKIPPED_SUFFIXES",
    "iter_trace_groups",
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
    """Read every trace in a trace file or directory (see :func:`trace_files`), in file order (of each trace's
    first span). :func:`iter_trace_groups` hands them on one at a time instead."""
    return [trace for _, trace in sorted(iter_trace_groups(path), key=lambda item: item[0])]


def iter_trace_groups(path: str | os.PathLike[str]) -> Iterator[tuple[int, Trace]]:
    """Every trace in a trace file or directory as ``(ordinal, trace)``, each handed on as soon as its last span
    has been read, so memory holds only the traces still open (see :mod:`._stream`); ``ordinal`` is the trace's
    place in :func:`load_traces`'s order."""
    from ._stream import iter_traces

    return iter_traces(trace_files(path), os.fspath(path))


def parse_traces(data: bytes | str, *, source: str = "<input>", jsonl: bool | None = None) -> list[Trace]:
    """Parse trace file contents. ``jsonl=None`` detects JSON Lines (several JSON documents, one per line)."""
    return build_traces(parse_spans(data, source=source, jsonl=jsonl), source)
