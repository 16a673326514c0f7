"""Helpers shared by CLI commands: turning errors into one clean line and exit code 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import typer

__all__ = ["EXIT_FAILED", "EXIT_INVALID", "EXIT_OK", "fail_input", "input_errors_exit_2"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = 2


def fail_input(message: str) -> NoReturn:
    """Print ``error: message`` on stderr (registered secrets masked) and exit with code 2."""
    from .._redact import redact

    typer.echo(f"error: {redact(message)}", err=True)
    raise typer.Exit(EXIT_INVALID)


@contextmanager
def input_errors_exit_2() -> Iterator[None]:
    """Turn :class:`~agentgauge.errors.InputError` / :class:`~agentgauge.errors.NotFoundError` raised inside
    the block into one ``error:`` line on stderr and exit code 2 (never a traceback)."""
    from ..errors import InputError, NotFoundError

    try:
        yield
    except (InputError, NotFoundError) as exc:
        fail_input(str(exc).strip("'\""))
    except OSError as exc:
        fail_input(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": "))
