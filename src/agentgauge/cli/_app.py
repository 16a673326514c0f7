"""The typer application object; command modules attach their commands to it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import typer

from ._help import CompactHelpCommand, CompactHelpGroup
from ._usage_errors import OneLineUsageErrors

__all__ = ["AgentgaugeGroup", "AgentgaugeTyper", "app"]

_Command = TypeVar("_Command", bound=Callable[..., Any])


class AgentgaugeGroup(OneLineUsageErrors, CompactHelpGroup):
    """The command group of the ``agentgauge`` app and its sub-apps: compact ``--help`` (see ``_help``) and usage
    errors in one line (see ``_usage_errors``)."""


class AgentgaugeTyper(typer.Typer):
    """A typer app whose commands and groups lay ``--help`` out for the terminal's width (see ``_help``) and show
    usage errors in one line (see ``_usage_errors``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", AgentgaugeGroup)
        super().__init__(**kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Callable[[_Command], _Command]:
        """As ``typer.Typer.command``, with the compact help command class unless another is given."""
        kwargs.setdefault("cls", CompactHelpCommand)
        return super().command(*args, **kwargs)


app = AgentgaugeTyper(
    name="agentgauge",
    help="Evaluate LLM agents against eval sets (native, trpc-agent-go and Google ADK formats).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
