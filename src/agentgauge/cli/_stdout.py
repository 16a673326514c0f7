"""Keeping the standard streams for the command's own output while agent code runs: stdout for the JSON document
(``eval --json``), and both streams open whatever the agent closes."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any, Protocol, cast

__all__ = ["TextSink", "stdout_reserved"]


class TextSink(Protocol):
    """Where the JSON document is written: ``write`` and ``flush``."""

    def write(self, text: str, /) -> int:
        """Write ``text``."""
        ...

    def flush(self) -> None:
        """Push out anything buffered."""
        ...


class _KeptOpen:
    """A standard stream that agent code cannot close: ``close()`` flushes it and leaves it open.

    An agent calling ``sys.stdout.close()`` would otherwise close the stream the command writes its summary, its
    JSON document and its error lines to (and Python's own last-resort error output), losing all of them.
    """

    def __init__(self, stream: IO[str]) -> None:
        self.wrapped = stream

    def write(self, text: str, /) -> int:
        """Write ``text`` to the wrapped stream."""
        return self.wrapped.write(text)

    def close(self) -> None:
        """Flush only: the stream belongs to the command, not to the agent."""
        with contextlib.suppress(Exception):
            self.wrapped.flush()

    def __getattr__(self, name: str) -> Any:
        if name == "wrapped":  # not set yet (a copy made without __init__): no recursion
            raise AttributeError(name)
        return getattr(self.wrapped, name)


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
    In both modes, closing ``sys.stdout`` or ``sys.stderr`` in the block only flushes them (see :class:`_KeptOpen`);
    the streams in place before the block are put back after it.

    Both levels are covered: ``sys.stdout`` (``print``) is replaced by ``sys.stderr``, and file descriptor 1 is
    pointed at file descriptor 2, so output of C extensions and of subprocesses the agent starts lands on stderr
    too. Buffered output written in the block is flushed to stderr before the original stdout is put back. The
    yielded stream writes where ``sys.stdout`` wrote before the block (the saved file descriptor 1, or the
    ``sys.stdout`` object itself when that is not file descriptor 1, e.g. in tests). With ``enabled`` false
    nothing is routed and the yielded stream is ``sys.stdout``.
    """
    original, original_err = sys.stdout, sys.stderr
    if not enabled or original is None:
        try:
            _keep_open(original, original_err)
            yield original
        finally:
            sys.stdout, sys.stderr = original, original_err
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
    _keep_open(original_err, original_err)
    try:
        yield _FdWriter(saved) if saved is not None and _fileno(original) == 1 else original
    finally:
        with contextlib.suppress(Exception):  # whatever the agent left in stdout's buffer goes to stderr
            original.flush()
        sys.stdout, sys.stderr = original, original_err
        if saved is not None:
            _flush_c_stdio()  # text a C extension buffered in its own stdout must not reach the real stdout later
            os.dup2(saved, 1)
            os.close(saved)


def _keep_open(out: IO[str] | None, err: IO[str] | None) -> None:
    """``sys.stdout`` and ``sys.stderr`` become ``out`` and ``err``, which the code run meanwhile cannot close."""
    if out is not None:
        sys.stdout = cast("IO[str]", _KeptOpen(out))
    if err is not None:
        sys.stderr = cast("IO[str]", _KeptOpen(err))
