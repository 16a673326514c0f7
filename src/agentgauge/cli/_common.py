"""Helpers shared by CLI commands: turning errors into one clean line and exit code 2."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NoReturn

import typer

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from ..formats import InputProblem

__all__ = [
    "EXIT_FAILED",
    "EXIT_INVALID",
    "EXIT_OK",
    "echo_problems",
    "echo_text",
    "error_line",
    "fail_input",
    "input_errors_exit_2",
    "print_line",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2


def print_line(console: Console, text: str, style: str | None = None) -> None:
    """Print ``text`` as it is: paths, ids and names may hold ``[...]`` (rich markup) or ``:name:`` (emoji codes),
    which must not change what is shown; long lines are not broken (a wrapped path could not be copied)."""
    console.print(text, style=style, markup=False, emoji=False, highlight=False, soft_wrap=True)


def echo_text(text: str, *, err: bool = False) -> None:
    """``typer.echo(text)`` with control characters escaped (newlines and tabs kept): for lines that hold user
    text (ids, trace contents, warnings about a file), which must not colour or retitle the terminal."""
    from ..errors import printable

    typer.echo(printable(text), err=err)


def error_line(message: object) -> str:
    """``error: message`` on one line, registered secrets masked, quoted values cut to ~200 characters and control
    characters escaped (a file name or id may hold an ``ESC`` that would colour the terminal)."""
    from .._util.redact import redact
    from ..errors import printable, shorten

    return "error: " + printable(shorten(" ".join(redact(str(message)).splitlines())), lines=False)


def echo_problems(problems: Iterable[InputProblem]) -> None:
    """Print each problem an input check found on stderr, one line each: ``error: FILE: PATH: message`` or
    ``warning: FILE: PATH: message`` (secrets masked, long values cut, control characters escaped)."""
    for problem in problems:
        line = error_line(problem.line())
        typer.echo(line if problem.is_error else "warning: " + line.removeprefix("error: "), err=True)


def fail_input(message: str) -> NoReturn:
    """Print ``error: message`` on stderr (registered secrets masked) and exit with code 2."""
    typer.echo(error_line(message), err=True)
    raise typer.Exit(EXIT_INVALID)


@contextmanager
def input_errors_exit_2() -> Iterator[None]:
    """Turn :class:`~agentgauge.errors.InputError` / :class:`~agentgauge.errors.NotFoundError` raised inside
    the block into one ``error:`` line on stderr and exit code 2 (never a traceback)."""
    from ..errors import InputError, NotFoundError

    try:
        yield
    except (InputError, NotFoundError) as exc:
        # The message as raised: str() of a lookup error may quote it, and stripping quotes would also cut the
        # closing quote of a message that ends with a quoted value ("No module named 'x'").
        fail_input(exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc))
    except OSError as exc:
        fail_input(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
