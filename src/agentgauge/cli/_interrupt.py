"""Ctrl-C in the ``agentgauge`` command: ``Interrupted.`` on stderr and exit code 130, at any moment, never a
traceback.

Outside an evaluation's run, Ctrl-C ends the process at once (``agentgauge._ctrl_c_ends_the_process``): the console
script installs that handler first thing when it imports the package, and :func:`command_interruptible` keeps it
(or installs it, when ``main`` is called some other way) while the command runs. Ending at once is what makes every
moment safe: a ``KeyboardInterrupt`` raised wherever the signal lands can be swallowed or turned into another error by
the code it lands in (pydantic turns one raised while it builds a validator into a ``SchemaError``; one raised in a
callback from C code is only reported as "Exception ignored"). Nothing is lost by it: before a run nothing has been
written; the temporary file of a write under way is removed (see ``_fileio.remove_unfinished``) and the file it was
to replace is left as it was, as after a crash. During a run, the run's own handler stops it and saves the finished
cases (``_eval_progress.ctrl_c_interrupts``), then this one is back.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

__all__ = ["EXIT_INTERRUPTED", "announce_interrupted", "command_interruptible", "interrupted_by_ctrl_c"]

EXIT_INTERRUPTED = 130  # the shell's code for a command stopped by SIGINT (128 + 2)

_announced = False


def announce_interrupted() -> None:
    """Print ``Interrupted.`` on stderr, once per command."""
    global _announced
    if _announced:
        return
    _announced = True
    try:
        sys.stderr.write("Interrupted.\n")
        sys.stderr.flush()
    except Exception:  # closed by agent code, or replaced by something that is not a stream
        with suppress(OSError):
            os.write(2, b"Interrupted.\n")


def interrupted_by_ctrl_c(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a ``KeyboardInterrupt`` (typer turns one raised inside a
    command into ``Exit(130)``)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _take_over_ctrl_c() -> Any:
    """Make Ctrl-C end the process at once; the handler in place before, or ``None`` when it was left alone: not the
    main thread, or a handler that is not Python's default (ignored, or the embedding program's own)."""
    from .. import _ctrl_c_ends_the_process

    try:
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler and previous is not _ctrl_c_ends_the_process:
            return None
        signal.signal(signal.SIGINT, _ctrl_c_ends_the_process)
    except ValueError:  # not the main thread
        return None
    return previous


@contextmanager
def command_interruptible() -> Iterator[None]:
    """Run a command of the console script: Ctrl-C ends it with ``Interrupted.`` on stderr and exit code 130.

    A ``KeyboardInterrupt`` that reaches the block anyway (raised by the code itself, or Ctrl-C where the handler
    was left alone) ends it the same way. Python's default handler, if it was the one in place, is put back
    afterwards; the console script's keeps covering the interpreter's shutdown.
    """
    global _announced
    _announced = False
    previous = None
    try:
        previous = _take_over_ctrl_c()
        yield
    except KeyboardInterrupt:
        announce_interrupted()
        raise SystemExit(EXIT_INTERRUPTED) from None
    except SystemExit as done:
        if done.code == EXIT_INTERRUPTED and interrupted_by_ctrl_c(done):
            announce_interrupted()
        raise
    finally:
        if previous is signal.default_int_handler:
            signal.signal(signal.SIGINT, previous)
