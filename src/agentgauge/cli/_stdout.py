"""Keeping stdout for the JSON document while agent code runs (``eval --json``)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Protocol

__all__ = ["TextSink", "stdout_reserved"]


class TextSink(Protocol):
    """Where the JSON document is written: ``write`` and ``flush``."""

    def write(self, text: str, /) -> int:
        """Write ``text``."""
        ...

    def flush(self) -> None:
        """Push out anything buffered."""
        ...


class _FdWriter:
    """A minimal text stream onto a file descriptor (the saved, original stdout)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, text: str, /) -> int:
        """Write all of ``text`` as UTF-8."""
        data = memoryview(text.encode("utf-8"))
        while data:
            written = os.write(self._fd, data)
            data = data[written:]
        return len(text)

    def flush(self) -> None:
        """Nothing is buffered."""


def _fileno(stream: IO[str] | None) -> int | None:
    try:
        return stream.fileno() if stream is not None else None
    except (AttributeError, OSError, ValueError):  # an in-memory stream (tests) or a closed one
        return None


def _flush_c_stdio() -> None:
    if sys.platform == "win32":
        return
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None).fflush(None)


@contextlib.contextmanager
def stdout_reserved(enabled: bool = True) -> Iterator[TextSink]:
    """While the block runs, everything written to stdout goes to stderr; yields a stream onto the real stdout.

    Both levels are covered: ``sys.stdout`` (``print``) is replaced by ``sys.stderr``, and file descriptor 1 is
    pointed at file descriptor 2, so output of C extensions and of subprocesses the agent starts lands on stderr
    too. Buffered output written in the block is flushed to stderr before the original stdout is put back. The
    yielded stream writes where ``sys.stdout`` wrote before the block (the saved file descriptor 1, or the
    ``sys.stdout`` object itself when that is not file descriptor 1, e.g. in tests). With ``enabled`` false the
    block runs unchanged and the yielded stream is ``sys.stdout``.
    """
    original = sys.stdout
    if not enabled or original is None:
        yield original
        return
    original.flush()
    sys.stderr.flush()
    saved: int | None = None
    with contextlib.suppress(OSError):  # fd 1 or fd 2 closed: only the Python level is routed
        saved = os.dup(1)
        try:
            os.dup2(2, 1)
        except OSError:
            os.close(saved)
            saved = None
    sys.stdout = sys.stderr
    try:
        yield _FdWriter(saved) if saved is not None and _fileno(original) == 1 else original
    finally:
        with contextlib.suppress(Exception):  # whatever the agent left in stdout's buffer goes to stderr
            original.flush()
        sys.stdout = original
        if saved is not None:
            _flush_c_stdio()  # text a C extension buffered in its own stdout must not reach the real stdout later
            os.dup2(saved, 1)
            os.close(saved)
