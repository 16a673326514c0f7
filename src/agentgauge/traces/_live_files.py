"""The files a live receiver appends to: OTLP JSONL, one export request per line, in ``received-NNNNN.jsonl``
files under one folder, a new file begun when the current one passes a size. ``agentgauge eval --traces FOLDER``
reads the folder as it reads any exporter's output (spans and log records are merged across its files)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_FILE_BYTES", "ReceivedFiles"]

DEFAULT_FILE_BYTES = 64 * 1024 * 1024
"""A received file is closed and the next one begun once it holds this many bytes."""

_PREFIX, _SUFFIX = "received-", ".jsonl"


class ReceivedFiles:
    """Append-only OTLP JSONL files under ``folder`` (created on first write)."""

    def __init__(self, folder: Path, *, max_file_bytes: int = DEFAULT_FILE_BYTES) -> None:
        self.folder = Path(folder)
        self.max_file_bytes = max_file_bytes
        self._lock = threading.Lock()

    def files(self) -> list[Path]:
        """The received files, oldest first."""
        try:
            found = [p for p in self.folder.iterdir() if p.name.startswith(_PREFIX) and p.name.endswith(_SUFFIX)]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return sorted(found, key=lambda p: _number(p.name))

    def _current(self) -> Path:
        files = self.files()
        if files and files[-1].stat().st_size < self.max_file_bytes:
            return files[-1]
        number = _number(files[-1].name) + 1 if files else 1
        return self.folder / f"{_PREFIX}{number:05d}{_SUFFIX}"

    def append(self, document: dict[str, Any]) -> Path:
        """Write ``document`` as one line of the current file; returns that file. One ``write`` on an
        ``O_APPEND`` descriptor: a line is never interleaved with another, and is on disk when this returns (a
        restart loses nothing that was acknowledged)."""
        import orjson

        line = orjson.dumps(document) + b"\n"
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self._current()
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        return path

    def documents(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every stored document, oldest first, with its place (``file:line``); a line that is not a JSON object
        (cut short by a crash) is skipped. One line is in memory at a time."""
        from ..formats._jsonexact import loads

        for path in self.files():
            try:
                handle = path.open("rb")
            except OSError:
                continue
            with handle:
                for number, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    try:
                        doc = loads(line)
                    except ValueError:
                        continue
                    if isinstance(doc, dict):
                        yield f"{path}:{number}", doc


def _number(name: str) -> int:
    digits = name[len(_PREFIX) : -len(_SUFFIX)]
    return int(digits) if digits.isdigit() else 0
