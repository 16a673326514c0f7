"""Leaving what a command no longer needs to the operating system when the process ends right after it.

Freeing a run's objects one by one (the loaded eval set, every case result, the agent) takes milliseconds just before
the process exits and the operating system takes the memory back anyway. :func:`leave_to_the_os` keeps such objects
in a cycle that only the garbage collector could free, frozen so that it never examines it: nothing of it is freed.
It does so only inside :func:`process_ends_after_command` (the console-script entry point runs its command there);
a caller that runs commands in its own process (tests, an application embedding the CLI) frees them as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["leave_to_the_os", "process_ends_after_command"]

_process_ends = False
_kept: list[object] | None = None


@contextmanager
def process_ends_after_command() -> Iterator[None]:
    """The block runs a command after which the process exits (the console-script entry point)."""
    global _process_ends
    _process_ends = True
    try:
        yield
    finally:
        _process_ends = False


def leave_to_the_os(*objects: object) -> None:
    """Never free ``objects`` (see the module docstring); nothing happens unless the process ends after the
    command."""
    global _kept
    if not _process_ends:
        return
    if _kept is None:
        _kept = []
        _kept.append(_kept)  # the cycle: dropping the module's reference at exit does not free it
        gc.freeze()  # the collector never looks at the list again (nor at what it holds, reachable from it)
    _kept.extend(objects)
