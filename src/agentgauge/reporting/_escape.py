"""Printing user text on a rich console with its control characters escaped.

Ids, agent answers, judge reasons and error messages come from files and agents: an ``ESC[31m`` in them would
colour the terminal, an ``ESC]0;...BEL`` retitle it. The render hook escapes control characters in the text of
everything printed (see :func:`~agentgauge.errors.printable`), after layout, so rich's own styling and cursor
control, added when the segments are written out, are unaffected.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from rich.console import Console, ConsoleOptions, ConsoleRenderable, RenderableType, RenderHook, RenderResult
from rich.segment import Segment

from ..errors import printable

__all__ = ["ControlEscaper", "controls_escaped", "escape_controls", "escaping_console"]

P = ParamSpec("P")
R = TypeVar("R")


class _Escaped:
    """``renderable`` rendered with the control characters of its text escaped."""

    def __init__(self, renderable: RenderableType) -> None:
        self.renderable = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for segment in console.render(self.renderable, options):
            if segment.control:  # rich's own cursor movement (progress bar, live display)
                yield segment
                continue
            text = printable(segment.text)
            yield segment if text is segment.text else Segment(text, segment.style)


class ControlEscaper(RenderHook):
    """A render hook escaping the control characters in what a console prints (tab and newline are kept)."""

    def process_renderables(self, renderables: list[ConsoleRenderable]) -> list[ConsoleRenderable]:
        """Every renderable, wrapped so that its text is escaped."""
        return [_Escaped(renderable) for renderable in renderables]


def escape_controls(console: Console) -> Console:
    """Make ``console`` escape control characters in everything it prints from now on; returns it."""
    if not any(isinstance(hook, ControlEscaper) for hook in _hooks(console)):
        console.push_render_hook(ControlEscaper())
    return console


@contextmanager
def controls_escaped(console: Console) -> Iterator[Console]:
    """While the block runs, ``console`` escapes control characters in what it prints (unless it already does)."""
    if any(isinstance(hook, ControlEscaper) for hook in _hooks(console)):
        yield console
        return
    console.push_render_hook(ControlEscaper())
    try:
        yield console
    finally:
        console.pop_render_hook()


def _hooks(console: Console) -> Sequence[RenderHook]:
    return getattr(console, "_render_hooks", ())


def escaping_console(func: Callable[P, R]) -> Callable[P, R]:
    """Decorate a function printing on its ``console`` argument: the console escapes control characters while it
    runs (a console of the command line already does; one given by a library user does for this call only)."""
    signature = inspect.signature(func)

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        console = signature.bind(*args, **kwargs).arguments["console"]
        with controls_escaped(console):
            return func(*args, **kwargs)

    return wrapper
