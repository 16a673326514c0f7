"""The files a live receiver appends to: OTLP JSONL, one export request per line, in ``received-NNNNN.jsonl``
files under one folder, a new file begun when the current one passes a size. ``agentgauge eval --traces FOLDER``
reads the folder as it reads any exporter's output (spans and log records are merged across its files).

A line is written with one ``write`` on an ``O_APPEND`` descriptor and flushed to the disk before the request is
acknowledged. A crash (a killed writer, a full disk, power loss) can still leave the last line cut short; the next
append first cuts such a torn tail back to the last complete line (it was never acknowledged), so the line it
writes starts a line of its own and is read back after a restart, instead of being glued to the torn one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["DEFAULT_FILE_BYTES", "LineRef", "ReceivedFiles"]

DEFAULT_FILE_BYTES = 64 * 1024 * 1024
"""A received file is closed and the next one begun once it holds this many bytes."""

_PREFIX, _SUFFIX = "received-", ".jsonl"
_TAIL_STEP = 64 * 1024  # how far back a torn tail is searched for its line's start at a time


class LineRef(NamedTuple):
    """Where one stored request is: its file's number, the offset of its line and the line's length (newline
    included); what a request's spans are read back from."""

    file: int
    offset: int
    length: int


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

    def path(self, number: int) -> Path:
        """The file of number ``number`` (see :attr:`LineRef.file`)."""
        return self.folder / f"{_PREFIX}{number:05d}{_SUFFIX}"

    def _current(self) -> int:
        files = self.files()
        if files and files[-1].stat().st_size < self.max_file_bytes:
            return _number(files[-1].name)
        return _number(files[-1].name) + 1 if files else 1

    def append(self, document: dict[str, Any]) -> LineRef:
        """Write ``document`` as one line of the current file (a torn tail cut off first, see the module); returns
        where. On disk when this returns: a restart reads back everything acknowledged. An :class:`OSError`
        (a full disk) leaves the file as it was."""
        from ..formats._jsonexact import dumps  # integers beyond 64 bits written exactly

        line = dumps(document) + b"\n"
        with self._lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            number = self._current()
            fd = os.open(self.path(number), os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                offset = _complete_lines(fd)
                try:
                    _write_all(fd, line)
                    os.fsync(fd)
                except OSError:
                    os.ftruncate(fd, offset)  # no half line is left for the next append to follow
                    raise
            finally:
                os.close(fd)
        return LineRef(number, offset, len(line))

    def documents(self) -> Iterator[tuple[str, dict[str, Any], LineRef]]:
        """Every stored document, oldest first, with its place (``file:line``) and where it is; a line that is not
        a JSON object (a torn tail) is skipped. One line is in memory at a time."""
        from ..formats._jsonexact import loads

        for path in self.files():
            number = _number(path.name)
            try:
                handle = path.open("rb")
            except OSError:
                continue
            with handle:
                offset = 0
                for index, line in enumerate(handle, start=1):
                    ref = LineRef(number, offset, len(line))
                    offset += len(line)
                    if not line.strip() or not line.endswith(b"\n"):
                        continue  # blank, or a tail cut short (the next append cuts it off)
                    try:
                        doc = loads(line)
                    except ValueError:
                        continue
                    if isinstance(doc, dict):
                        yield f"{path}:{index}", doc, ref

    def read(self, refs: Iterable[LineRef]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The documents stored at ``refs`` (each line once, in file order) with their place (``file@offset``);
        a line that is gone or no longer a JSON object is skipped."""
        from ..formats._jsonexact import loads

        by_file: dict[int, list[LineRef]] = {}
        for ref in sorted(set(refs)):
            by_file.setdefault(ref.file, []).append(ref)
        for number, wanted in by_file.items():
            path = self.path(number)
            try:
                handle = path.open("rb")
            except OSError:
                continue
            with handle:
                for ref in wanted:
                    handle.seek(ref.offset)
                    try:
                        doc = loads(handle.read(ref.length))
                    except ValueError:
                        continue
                    if isinstance(doc, dict):
                        yield f"{path}@{ref.offset}", doc


def _complete_lines(fd: int) -> int:
    """The size of the file without a torn last line: the file is cut back to its last newline when it does not
    end with one (that line was never acknowledged). Returns the size, where the next line starts."""
    size = os.fstat(fd).st_size
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - _TAIL_STEP)
        found = os.pread(fd, end - start, start).rfind(b"\n")
        if found >= 0:
            end = start + found + 1
            break
        end = start
    os.ftruncate(fd, end)
    return end


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _number(name: str) -> int:
    digits = name[len(_PREFIX) : -len(_SUFFIX)]
    return int(digits) if digits.isdigit() else 0
