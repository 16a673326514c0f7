"""Leaving what a command no longer needs to the operating system when the process ends right after it.

Freeing a run's objects one by one (the loaded eval set, every case result) takes milliseconds just before the
process exits and the operating system takes the memory back anyway. :func:`leave_to_the_os` keeps such objects in a
cycle that only the garbage collector could free, frozen so that it never examines it: nothing of it is freed. It
does so only inside :func:`process_ends_after_command` (the console-script entry point runs its command there); a
caller that runs commands in its own process (tests, an application embedding the CLI) frees them as usual.

Only agentgauge's own data is left that way, never the user's objects (the agent, plug-ins, callbacks): their
finalizers run at exit as in any Python program, e.g. a file the agent wrote without closing it is flushed.
:func:`skip_final_collection` keeps that true while sparing the interpreter its last full garbage collection.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from types import ModuleType

__all__ = ["is_user_module", "leave_to_the_os", "process_ends_after_command", "skip_final_collection"]

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
    command. Pass agentgauge's own data only: what is kept here is never finalized."""
    if _process_ends:
        _keep(objects)


def _keep(objects: Iterable[object]) -> None:
    global _kept
    if _kept is None:
        _kept = []
        _kept.append(_kept)  # the cycle: dropping the module's reference at exit does not free it
        gc.freeze()  # the collector never looks at the list again (nor at what it holds, reachable from it)
    _kept.extend(objects)


def _installation_prefixes() -> tuple[str, ...]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return tuple(p.rstrip("/\\") + sep for p in prefixes if p for sep in ("/", "\\"))


def is_user_module(module: object, prefixes: tuple[str, ...] | None = None) -> bool:
    """True for a module of the user's own code: loaded from a file outside the Python installation (the
    interpreter's and the virtual environment's prefixes; ``prefixes`` overrides them) and not part of agentgauge,
    e.g. an agent loaded by path, a plug-in or a package installed in editable mode."""
    if not isinstance(module, ModuleType):
        return False
    name = module.__name__
    if name == "agentgauge" or name.startswith("agentgauge."):
        return False
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False
    return not file.startswith(_installation_prefixes() if prefixes is None else prefixes)


def skip_final_collection() -> None:
    """Exit handler of the console-script entry point: the interpreter's last full garbage collection is skipped.

    That collection walks every object still alive and frees them all (~65 ms after a 200-case ``eval``, ~15 ms
    after ``--help``) although the operating system takes the memory back anyway. Freezing everything skips it; but
    an object only that collection would free is then never finalized -- notably the globals of a module nothing
    else refers to, such as the agent loaded from a file: ``agent = MyAgent()`` holding an open file would lose what
    it had buffered. So the user's modules (:func:`is_user_module`) are kept alive to the end, where the interpreter
    clears the globals of every module still alive, after all exit handlers: those objects are finalized exactly
    when they would be without this handler. Registered before any user code is imported, it runs after every exit
    handler the user's code registers.
    """
    prefixes = _installation_prefixes()
    _keep([m for m in list(sys.modules.values()) if is_user_module(m, prefixes)])
    gc.freeze()
