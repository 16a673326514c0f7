"""The first pass of the streamed trace reader (:mod:`._stream`): where each trace id occurs last in the input,
found without parsing, so the second pass knows when a trace is complete and can hand it on.

A trace's spans may be spread over a file (an exporter's batches interleave traces) or over several files. The
scan reads each file in chunks and finds every ``"traceId"`` / ``"traceID"`` / ``"trace_id"`` key with a regular
expression: in valid JSON such a key can only be an object key (a quote inside a string value is escaped), so
every span's trace id is seen. A spurious match (a string that merely looks like one) can only make a trace look
complete later than it is, which costs memory, never correctness. The scan also tells whether a ``.json`` file is
really JSON Lines (see :func:`~agentgauge.traces._jsonl.looks_like_jsonl`) and whether it is blank.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Position", "ScanResult", "scan_files"]

Position = tuple[int, int]
"""``(file number, byte offset)``: a place in the input, ordered as the files are read."""

_TRACE_ID = re.compile(rb'"(?:traceI[Dd]|trace_id)"[ \t\r\n]{0,64}:[ \t\r\n]{0,64}"([^"]{1,256})"')
_CHUNK = 8 << 20
_OVERLAP = 512  # longer than any match, so a match cut by a chunk boundary is whole in the next window
_HEX = frozenset("0123456789abcdef")


@dataclass(slots=True)
class ScanResult:
    """What the scan found: the last position of each trace id, and per file whether it is JSON Lines shaped
    (several non-blank lines, each starting with ``{`` and ending with ``}``) and whether it holds anything."""

    last: dict[str, Position]
    jsonl_shaped: list[bool]
    blank: list[bool]


def _normalised(raw: bytes) -> list[str]:
    """The ids a reader may make of the raw id text: lowercase (Jaeger, hex OTLP) and base64 decoded (protobuf's
    JSON mapping writes ids in base64)."""
    if b"\\" in raw:  # an escaped character: decode the JSON string as the reader will
        import orjson

        try:
            text = str(orjson.loads(b'"' + raw + b'"'))
        except orjson.JSONDecodeError:
            return []
    else:
        text = raw.decode("utf-8", "replace")
    lowered = text.lower()
    ids = [lowered]
    if not set(lowered) <= _HEX:
        try:
            decoded = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            decoded = b""
        if len(decoded) in (8, 16):
            ids.append(decoded.hex())
    return ids


class _LineShape:
    """Whether a file, fed in chunks, looks like JSON Lines (as ``looks_like_jsonl`` decides for whole data)."""

    def __init__(self) -> None:
        self.lines = 0
        self.ok = True
        self.anything = False
        self._first = -1
        self._last = -1

    def feed(self, chunk: bytes) -> None:
        pieces = chunk.split(b"\n")
        for number, piece in enumerate(pieces):
            stripped = piece.strip()
            if stripped:
                self.anything = True
                if self._first < 0:
                    self._first = stripped[0]
                self._last = stripped[-1]
            if number < len(pieces) - 1:
                self._end_line()
            if not self.ok and self.anything:
                return  # the answer is known; only "anything" was still wanted

    def _end_line(self) -> None:
        if self._first >= 0:
            self.lines += 1
            self.ok = self.ok and self._first == ord("{") and self._last == ord("}")
        self._first = self._last = -1

    def result(self) -> bool:
        self._end_line()
        return self.ok and self.lines > 1


def _scan_file(path: Path, number: int, last: dict[str, Position]) -> tuple[bool, bool]:
    shape = _LineShape()
    if path.suffix == ".jsonl":
        shape.ok = False  # JSON Lines by name: only whether it holds anything is wanted
    seen: dict[bytes, list[str]] = {}
    with open(path, "rb") as handle:
        offset, tail = 0, b""
        while chunk := handle.read(_CHUNK):
            if shape.ok:
                shape.feed(chunk)
            elif not shape.anything:
                shape.anything = bool(chunk.strip())
            window = tail + chunk
            start = offset - len(tail)
            latest = {match.group(1): match.start() for match in _TRACE_ID.finditer(window)}  # the last of each
            for raw, at in latest.items():
                ids = seen.get(raw)
                if ids is None:
                    if len(seen) > 10_000:
                        seen.clear()
                    ids = seen[raw] = _normalised(raw)
                for trace_id in ids:
                    last[trace_id] = (number, start + at)
            offset += len(chunk)
            tail = window[-_OVERLAP:]
    return shape.result(), not shape.anything


def scan_files(files: list[Path]) -> ScanResult:
    """Scan ``files`` in order (see the module docstring)."""
    result = ScanResult({}, [], [])
    for number, path in enumerate(files):
        shaped, blank = _scan_file(path, number, result.last)
        result.jsonl_shaped.append(shaped)
        result.blank.append(blank)
    return result
