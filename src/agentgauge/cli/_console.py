"""Consoles of ``agentgauge eval`` that cost nothing until something is printed.

Importing ``rich.console`` takes ~12 ms. A run that prints nothing before its agents are at work (no progress bar:
output is not a terminal) creates its console when the run's header is printed, which the run does once its first
cases are under way, so the import overlaps the agents' time instead of delaying the first agent call.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

__all__ = ["deferred_console", "progress_bar_console"]

# With one of these set, rich may treat a stream that is not a TTY as a terminal (and show the progress bar).
_TERMINAL_OVERRIDES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


class _DeferredConsole:
    """Stands for ``rich.console.Console(**options)``, created on first use."""

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if name in ("_options", "_console"):  # not set yet (e.g. a copy made without __init__): no recursion
            raise AttributeError(name)
        console = self._console
        if console is None:
            from rich.console import Console

            from ..reporting._escape import escape_controls

            console = self._console = escape_controls(Console(**self._options))
        return getattr(console, name)


def deferred_console(**options: Any) -> Console:
    """A rich ``Console(**options)`` that is created (and rich imported) the first time it is used; like every
    console of the command line, it escapes control characters in user text (see ``reporting._escape``)."""
    return cast("Console", _DeferredConsole(**options))


def progress_bar_console() -> Console | None:
    """The console of the progress bar (stderr) when stderr is a terminal, else ``None`` (no bar).

    Rich decides what a terminal is (a TTY, or one of its environment overrides); without either, rich would say it
    is not one, and is not imported for the question.
    """
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        tty = bool(isatty()) if isatty is not None else False
    except ValueError:  # closed
        tty = False
    if not tty and not any(name in os.environ for name in _TERMINAL_OVERRIDES):
        return None
    from rich.console import Console

    console = Console(stderr=True, emoji=False)
    return console if console.is_terminal else None
