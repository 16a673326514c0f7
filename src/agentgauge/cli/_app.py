"""The typer application object; command modules attach their commands to it."""

from __future__ import annotations

import typer

__all__ = ["app"]

app = typer.Typer(
    name="agentgauge",
    help="Evaluate LLM agents against eval sets (native, trpc-agent-go and Google ADK formats).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
