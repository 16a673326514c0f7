"""``agentgauge serve``: the HTTP API and web UI."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import app
from ._common import fail_input, input_errors_exit_2

__all__ = ["serve"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1")


@app.command(
    epilog="Example:  agentgauge serve examples/calculator --data-dir evals  (then open http://127.0.0.1:8000)",
)
def serve(
    agents: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[AGENT_OR_DIR]...",
            help="Agents to chat with and evaluate: path/to/agent.py, an agent directory, a folder of agent "
            "directories or package.module:attr.",
            show_default=False,
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option(
            "--data-dir",
            help="Where eval sets, metrics, results and sessions live (<data-dir>/<app>/...). Default: beside the "
            "agents (the parent of an agent directory), else the current directory.",
            show_default=False,
        ),
    ] = None,
    host: Annotated[str, typer.Option(help="Address to bind; anything but loopback needs --token.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            help="Require 'Authorization: Bearer TOKEN' on every request (the UI accepts ?token=TOKEN once). "
            "Also read from AGENTGAUGE_SERVE_TOKEN.",
            envvar="AGENTGAUGE_SERVE_TOKEN",
            show_default=False,
        ),
    ] = None,
    insecure_no_auth: Annotated[
        bool, typer.Option("--insecure-no-auth", help="Allow a non-loopback --host without a token.")
    ] = False,
    allow_remote_writes: Annotated[
        bool,
        typer.Option(
            "--allow-remote-writes",
            help="Let non-loopback clients without a token change files and run agents (refused by default).",
        ),
    ] = False,
    cors: Annotated[
        list[str] | None,
        typer.Option("--cors", help="Allow cross-origin requests from this origin (repeatable). Off by default."),
    ] = None,
    max_upload_mb: Annotated[float, typer.Option(help="Largest request body, in MiB.", min=0.001)] = 10.0,
    adk_web: Annotated[
        bool, typer.Option("--adk-web", help="Also serve google-adk's bundled ADK Web UI at /dev-ui/.")
    ] = False,
    parallelism: Annotated[int, typer.Option(help="Default cases in flight per run.", min=1, max=64)] = 4,
) -> None:
    """Serve the HTTP API (ADK-compatible eval routes, chat, background runs) and the web UI."""
    specs = list(agents or [])
    with input_errors_exit_2():
        from ..server import ServerConfig, default_data_dir, discover_apps

        if host not in _LOOPBACK and not token and not insecure_no_auth:
            fail_input(f"--host {host} exposes the server beyond this machine: give --token or --insecure-no-auth")
        found = discover_apps(specs)
        if specs and not found:
            fail_input(f"no agent found in {', '.join(specs)} (expected agent.py or __init__.py in a directory)")
        folder = (data_dir or default_data_dir(specs)).absolute()
        if folder.exists() and not folder.is_dir():
            fail_input(f"--data-dir {folder} is not a directory")
        config = ServerConfig(
            data_dir=folder,
            agents=found,
            token=token or None,
            allow_remote_writes=allow_remote_writes,
            cors_origins=list(cors or []),
            max_upload_bytes=int(max_upload_mb * 1024 * 1024),
            adk_web=adk_web,
            default_parallelism=parallelism,
        )
        try:
            import uvicorn

            from ..server import create_app
        except ImportError:
            fail_input("agentgauge serve needs FastAPI and uvicorn: pip install 'agentgauge[server]'")
        application = create_app(config)
    folder.mkdir(parents=True, exist_ok=True)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"agentgauge: serving {', '.join(found) or 'no agents'} from {folder}", err=True)
    typer.echo(f"agentgauge: open http://{shown}:{port}/" + (" (ADK Web: /dev-ui/)" if adk_web else ""), err=True)
    uvicorn.run(application, host=host, port=port, log_level="warning")
