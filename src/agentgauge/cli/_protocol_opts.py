"""Options of ``agentgauge serve`` and ``agentgauge mcp`` for the protocols other tools speak: trpc-agent-go's
evaluation service (``--trpc-api``) and the Model Context Protocol (``--mcp``, ``--mcp-allow-run``)."""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["McpAllowRunOption", "McpOption", "TrpcApiOption", "TrpcAppOption", "TrpcBasePathOption"]

_PANEL = "Protocols"

TrpcApiOption = Annotated[
    bool,
    typer.Option(
        "--trpc-api",
        help="Also serve trpc-agent-go's evaluation service (GET /sets, /metrics, POST /runs, GET /results, ...) "
        "under --trpc-base-path for one app, with trpc's request and response shapes; see docs/trpc.md.",
        rich_help_panel=_PANEL,
    ),
]
TrpcAppOption = Annotated[
    str | None,
    typer.Option(
        "--trpc-app",
        metavar="APP",
        help="The app --trpc-api serves (its eval sets, metrics and results). Default: the one app served.",
        show_default=False,
        rich_help_panel=_PANEL,
    ),
]
TrpcBasePathOption = Annotated[
    str,
    typer.Option(
        "--trpc-base-path",
        metavar="PATH",
        help="Where --trpc-api's routes are (trpc's evaluation.WithBasePath).",
        rich_help_panel=_PANEL,
    ),
]
McpOption = Annotated[
    bool,
    typer.Option(
        "--mcp",
        help="Also serve the Model Context Protocol (streamable HTTP at /mcp, behind the same Host, Origin and "
        "token checks): tools to list apps, eval sets and results, explain a case's failures, compare and "
        "replay; see docs/mcp.md.",
        rich_help_panel=_PANEL,
    ),
]
McpAllowRunOption = Annotated[
    bool,
    typer.Option(
        "--mcp-allow-run",
        help="Let MCP clients start evaluations (the run tool; off by default), bounded as every run of the server.",
        rich_help_panel=_PANEL,
    ),
]
