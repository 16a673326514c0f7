"""A usage error (an unknown option, a value that is not a number or out of its range, a missing argument) is one
``error:`` line on stderr and exit code 2, as every other bad input: the option, what is wrong, the valid range
when the option has one, and where the help is. typer would print the usage and a box of several lines."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import typer

__all__ = ["OneLineUsageErrors", "usage_error_line"]

# typer's BadParameter derives from the UsageError of the click it uses (its own copy since typer 0.20).
_USAGE_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


def usage_error_line(exc: Any) -> str:
    """The one line a usage error is shown as: ``error: Invalid value for '--delta': ... (valid: 1e-06 to 1); see
    'agentgauge plan --help'``."""
    message = " ".join(str(exc.format_message()).split()).rstrip(".")
    param = getattr(exc, "param", None)
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    if low is not None and high is not None:
        message += f" (valid: {low:g} to {high:g})"
    elif low is not None or high is not None:
        message += f" (valid: {'at least' if low is not None else 'at most'} {low if low is not None else high:g})"
    ctx = getattr(exc, "ctx", None)
    command = getattr(ctx, "command_path", "") or "agentgauge"
    return f"error: {message}; see '{command} --help'"


@contextmanager
def _one_line() -> Iterator[None]:
    try:
        yield
    except _USAGE_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # no arguments: the help is the answer
            raise
        typer.echo(usage_error_line(exc), err=True)
        raise typer.Exit(getattr(exc, "exit_code", 2)) from None


class OneLineUsageErrors:
    """A mixin for the top command group: usage errors of the group and of every command under it (raised while
    their arguments are parsed, or by a command itself) are shown by :func:`usage_error_line`."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """As the group's own, a usage error shown in one line."""
        with _one_line():
            return super().make_context(*args, **kwargs)  # type: ignore[misc]

    def invoke(self, ctx: Any) -> Any:
        """As the group's own (which parses and runs the command), a usage error shown in one line."""
        with _one_line():
            return super().invoke(ctx)  # type: ignore[misc]
