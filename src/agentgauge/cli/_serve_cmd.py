"""``agentgauge serve``: the HTTP API and web UI."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._app import app
from ._common import fail_input, input_errors_exit_2
from ._options import (
    AgentConfigOption,
    AgentFollowRedirectsOption,
    AgentHeaderOption,
    AgentMaxResponseMbOption,
    AgentTimeoutOption,
    JudgeBaseUrlOption,
    JudgeModelOption,
    SimulatorBaseUrlOption,
    SimulatorModelOption,
    StrictOption,
    UserSimulatorOption,
)
from ._protocol_opts import McpAllowRunOption, McpOption, TrpcApiOption, TrpcAppOption, TrpcBasePathOption
from ._serve_file import advertised, serve_url, served_folders

if TYPE_CHECKING:  # pragma: no cover
    from ..server import ServerConfig

__all__ = ["serve"]

# Where things live and how long agents may take: declared here to keep the command's signature readable.
_DataDir = Annotated[
    Path | None,
    typer.Option(
        "--data-dir",
        help="Where the server keeps its own files: chat and case-run sessions, lock files and (unless "
        "--output-dir or --store) results, in sessions/, locks/ and results/<app>/. Default: .agentgauge in the "
        "current directory, whose results/ is where 'agentgauge eval' saves by default.",
        show_default=False,
    ),
]
_EvalsDir = Annotated[
    Path | None,
    typer.Option(
        "--evals-dir",
        help="Where eval sets and metrics files are read and edited (<evals-dir>/<app>/<id>.evalset.json). "
        "Default: beside the agents (the parent of an agent directory, a folder of agents itself), else the "
        "current directory.",
        show_default=False,
    ),
]
_OutputDir = Annotated[
    Path | None,
    typer.Option(
        "--output-dir",
        help="Save run results in <output-dir>/<app>/ (as 'agentgauge eval --output-dir'). Default: "
        "<data-dir>/results.",
        show_default=False,
    ),
]
_Store = Annotated[
    str | None,
    typer.Option(
        "--store",
        help="Save run results in this SQL store instead (sqlite:///file.db, postgresql://..., a .db path; also "
        "AGENTGAUGE_STORE); see docs/store.md. Results are listed from every place either way.",
        show_default=False,
    ),
]
_Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Longest an agent may take for one chat turn (/run, /run_sse) or one case of a run; a slower agent "
        "fails that turn or case and the run goes on. Default: 300 (a server bounds every agent call; "
        "give a larger value for slow agents).",
        show_default=False,
    ),
]


_Agents = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[AGENT_OR_DIR]...",
        help="Agents to chat with and evaluate: path/to/agent.py, an agent directory, a folder of agent "
        "directories, package.module:attr or a remote agent URL ([NAME=]a2a+http://..., adk+http://HOST/apps/APP, "
        "agui+http://..., trpcagent+http://HOST/APP, http://... with --agent-config).",
        show_default=False,
    ),
]
# Who may connect, and what they may do.
_Host = Annotated[
    str, typer.Option(help="Address to bind; anything but a loopback address (127.x.x.x, ::1) needs --token.")
]
_Port = Annotated[int, typer.Option(help="Port to listen on.", min=0, max=65535)]
_Token = Annotated[
    str | None,
    typer.Option(
        help="Require 'Authorization: Bearer TOKEN' on every request (the UI accepts ?token=TOKEN once). "
        "Also read from AGENTGAUGE_SERVE_TOKEN.",
        envvar="AGENTGAUGE_SERVE_TOKEN",
        show_default=False,
    ),
]
_InsecureNoAuth = Annotated[
    bool, typer.Option("--insecure-no-auth", help="Allow a non-loopback --host without a token.")
]
_AllowRemoteWrites = Annotated[
    bool,
    typer.Option(
        "--allow-remote-writes",
        help="Let non-loopback clients without a token change files and run agents (refused by default).",
    ),
]
_AllowedHost = Annotated[
    list[str] | None,
    typer.Option(
        "--allowed-host",
        metavar="NAME",
        help="Also answer requests whose Host header names NAME (repeatable); besides localhost, loopback "
        "addresses and --host, every other name gets 403 (DNS rebinding). Needed for a name or address "
        "clients use to reach a --host 0.0.0.0 server.",
        show_default=False,
    ),
]
_Debug = Annotated[
    bool,
    typer.Option(
        "--debug",
        help="Show agents' tracebacks in results and reports served over HTTP (dropped by default: they show "
        "the server's files).",
    ),
]
_Cors = Annotated[
    list[str] | None,
    typer.Option("--cors", help="Allow cross-origin requests from this origin (repeatable). Off by default."),
]
_MaxUploadMb = Annotated[float, typer.Option(help="Largest request body, in MiB.", min=0.001)]
_AdkWeb = Annotated[bool, typer.Option("--adk-web", help="Also serve google-adk's bundled ADK Web UI at /dev-ui/.")]
_Parallelism = Annotated[int, typer.Option(help="Default cases in flight per run.", min=1, max=64)]
# Receiving traces live (docs/traces.md "Receiving traces live").
_Otlp = Annotated[
    bool,
    typer.Option(
        "--otlp",
        help="Receive OpenTelemetry traces and logs (OTLP/HTTP, protobuf or JSON, at /v1/traces and /v1/logs on "
        "this port), stored in <data-dir>/otlp/ as OTLP JSONL (what 'eval --traces' reads) and shown as live "
        "sessions in the web UI.",
        rich_help_panel="Input",
    ),
]
_OtlpGrpcPort = Annotated[
    int | None,
    typer.Option(
        "--otlp-grpc-port",
        metavar="PORT",
        help="Also receive OTLP/gRPC on this port (implies --otlp; needs grpcio and opentelemetry-proto: the otlp "
        "extra).",
        min=1,
        max=65535,
        show_default=False,
        rich_help_panel="Input",
    ),
]
_Online = Annotated[
    Path | None,
    typer.Option(
        "--online",
        metavar="RULES",
        help="Score received sessions as they end, by the rules in this YAML file (which sessions, sample rate, "
        "hourly cap, judge budget, metrics or an eval set, where scores go; implies --otlp). Docs: docs/traces.md, "
        "section 'Online evaluation'.",
        show_default=False,
        rich_help_panel="Input",
    ),
]
_LiveMemoryMb = Annotated[
    float,
    typer.Option(
        "--live-memory-mb",
        help="Memory the received spans and their index may take, in MiB; beyond it the least recently updated "
        "traces are read back from <data-dir>/otlp/ when opened.",
        min=1,
        max=1_048_576,
        rich_help_panel="Input",
    ),
]


@app.command(
    epilog="Example:  agentgauge serve examples/calculator --timeout 120  (then open http://127.0.0.1:8000)",
)
def serve(
    agents: _Agents = None,
    data_dir: _DataDir = None,
    evals_dir: _EvalsDir = None,
    output_dir: _OutputDir = None,
    store: _Store = None,
    timeout: _Timeout = 300.0,  # server.DEFAULT_SERVE_TIMEOUT, not imported: `agentgauge --help` stays light
    host: _Host = "127.0.0.1",
    port: _Port = 8000,
    token: _Token = None,
    insecure_no_auth: _InsecureNoAuth = False,
    allow_remote_writes: _AllowRemoteWrites = False,
    allowed_host: _AllowedHost = None,
    debug: _Debug = False,
    cors: _Cors = None,
    max_upload_mb: _MaxUploadMb = 10.0,
    adk_web: _AdkWeb = False,
    parallelism: _Parallelism = 4,
    otlp: _Otlp = False,
    otlp_grpc_port: _OtlpGrpcPort = None,
    live_memory_mb: _LiveMemoryMb = 256.0,  # server.DEFAULT_LIVE_MEMORY_BYTES in MiB
    online: _Online = None,
    agent_header: AgentHeaderOption = None,
    agent_config: AgentConfigOption = None,
    agent_timeout: AgentTimeoutOption = None,
    agent_max_response_mb: AgentMaxResponseMbOption = None,
    agent_follow_redirects: AgentFollowRedirectsOption = False,
    strict: StrictOption = False,
    judge_model: JudgeModelOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    simulator_model: SimulatorModelOption = None,
    simulator_base_url: SimulatorBaseUrlOption = None,
    user_simulator: UserSimulatorOption = None,
    trpc_api: TrpcApiOption = False,
    trpc_app: TrpcAppOption = None,
    trpc_base_path: TrpcBasePathOption = "/evaluation",
    mcp: McpOption = False,
    mcp_allow_run: McpAllowRunOption = False,
) -> None:
    """Serve the HTTP API (ADK-compatible eval routes, chat, background runs) and the web UI."""
    specs = list(agents or [])
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # an IPv6 address as written in URLs: bind the address itself
    with input_errors_exit_2():
        from ..server import ServerConfig, discover_apps
        from ..server._hosts import bare_host, is_loopback_name

        if not is_loopback_name(bare_host(host) or host) and not token and not insecure_no_auth:
            fail_input(f"--host {host} exposes the server beyond this machine: give --token or --insecure-no-auth")
        found = discover_apps(specs)
        from ..launch import RemoteOptions, remote_settings

        limits = (agent_timeout, agent_max_response_mb, agent_follow_redirects)
        remote = remote_settings(RemoteOptions(tuple(agent_header or ()), agent_config, *limits))
        if specs and not found:
            fail_input(f"no agent found in {', '.join(specs)} (expected agent.py or __init__.py in a directory)")
        places = _places(specs, data_dir, evals_dir, output_dir, store, timeout)
        config = ServerConfig(
            **places,
            agents=found,
            token=token or None,
            allow_remote_writes=allow_remote_writes,
            cors_origins=list(cors or []),
            max_upload_bytes=int(max_upload_mb * 1024 * 1024),
            adk_web=adk_web,
            default_parallelism=parallelism,
            host=host,
            allowed_hosts=list(allowed_host or []),
            debug=debug,
            otlp=otlp or otlp_grpc_port is not None or online is not None,
            otlp_grpc_port=otlp_grpc_port,
            live_memory_bytes=int(live_memory_mb * 1024 * 1024),
            online_rules=online,
            remote=remote,
            strict_inputs=strict,
            **_simulated_users(judge_model, judge_base_url, simulator_model, simulator_base_url, user_simulator),
            trpc_api=trpc_api or trpc_app is not None,
            trpc_app=trpc_app,
            trpc_base_path=trpc_base_path,
            mcp=mcp or mcp_allow_run,
            mcp_allow_run=mcp_allow_run,
        )
        if otlp_grpc_port is not None:
            _check_grpc()
        try:
            import uvicorn

            from ..server import create_app
        except ImportError:
            fail_input("agentgauge serve needs FastAPI and uvicorn: pip install 'agentgauge[server]'")
        application = create_app(config)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    _announce(config, found, port)
    with advertised(serve_url(host, port) if port else None, served_folders(config)):  # eval links here (--ui-url)
        uvicorn.run(application, host=host, port=port, log_level="warning")


def _simulated_users(
    judge_model: str | None,
    judge_base_url: str | None,
    simulator_model: str | None,
    simulator_base_url: str | None,
    user_simulator: str | None,
) -> dict[str, Any]:
    """The server's default judge and the simulated user of scenario cases, as :class:`ServerConfig` fields (the
    server caches no judge answer; a judge URL needs a judge model)."""
    from ..launch import JudgeOptions, SimulationOptions

    if judge_base_url and not judge_model:
        fail_input("--judge-base-url needs --judge-model")
    judge = JudgeOptions(judge_model, judge_base_url, no_cache=True)
    return {"judge": judge, "simulation": SimulationOptions(user_simulator, simulator_model, simulator_base_url)}


def _check_grpc() -> None:
    """One error line now when the gRPC receiver cannot run, rather than a failed start-up later."""
    import importlib.util

    from ..server._otlp_grpc import OTLP_GRPC_HINT

    if any(importlib.util.find_spec(m) is None for m in ("grpc", "opentelemetry.proto")):
        fail_input(OTLP_GRPC_HINT)


def _announce(config: ServerConfig, found: dict[str, str], port: int) -> None:
    """Say on stderr what is served, where its files are and the URL to open."""
    from ..server._hosts import bare_host

    host = config.host
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"agentgauge: serving {', '.join(found) or 'no agents'} from {config.eval_root}", err=True)
    saved = _shown_store(config.store) if config.store else config.output_dir or config.data_dir / "results"
    typer.echo(f"agentgauge: server data in {config.data_dir}; results saved to {saved}", err=True)
    typer.echo(
        f"agentgauge: open http://{shown}:{port}/" + (" (ADK Web: /dev-ui/)" if config.adk_web else ""), err=True
    )
    if config.trpc_api:
        typer.echo(
            f"agentgauge: trpc-agent-go's evaluation service at http://{shown}:{port}{config.trpc_base_path}", err=True
        )
    if config.mcp:
        runs = "runs allowed" if config.mcp_allow_run else "runs off (--mcp-allow-run)"
        typer.echo(f"agentgauge: MCP (streamable HTTP) at http://{shown}:{port}/mcp; {runs}", err=True)
    if config.otlp:
        grpc = f"; OTLP/gRPC on port {config.otlp_grpc_port}" if config.otlp_grpc_port is not None else ""
        typer.echo(
            f"agentgauge: receiving OTLP at http://{shown}:{port}/v1/traces and /v1/logs{grpc}; stored in "
            f"{config.data_dir / 'otlp'}",
            err=True,
        )
    if config.online_rules is not None:
        typer.echo(f"agentgauge: online evaluation by the rules in {config.online_rules}", err=True)
    if bare_host(host) in ("0.0.0.0", "::") and not config.allowed_hosts:
        typer.echo(
            "agentgauge: other machines must name this server by an address or name given with --allowed-host "
            "(other Host headers get 403)",
            err=True,
        )


def _places(
    specs: list[str],
    data_dir: Path | None,
    evals_dir: Path | None,
    output_dir: Path | None,
    store: str | None,
    timeout: float | None,
) -> dict[str, Any]:
    """The folders, store and time limit of the server, checked (bad ones fail with one ``error:`` line)."""
    from ..server import default_data_dir, default_evals_dir
    from ..server._config import DEFAULT_DATA_DIR
    from ..sqlstore import resolve_store_url

    if timeout is not None and not 0 < timeout < float("inf"):  # written so that nan is refused too
        fail_input(f"--timeout must be a positive number of seconds, got {timeout:g}")
    # Resolved now: an agent calling os.chdir() must not move the server's files.
    data = (data_dir or default_data_dir()).absolute()
    evals = (evals_dir or default_evals_dir(specs)).absolute()
    output = output_dir.absolute() if output_dir is not None else None
    for option, folder in (("--data-dir", data), ("--evals-dir", evals), ("--output-dir", output)):
        if folder is not None and folder.exists() and not folder.is_dir():
            fail_input(f"{option} {folder} is not a directory")
    url = resolve_store_url(store)
    if url is not None:
        from ..sqlstore._cli import open_result_store

        open_result_store(url)  # unreachable, refused or too new: one error line now, not a failed run later
    # agentgauge eval's default folder is listed too when the server's data lives elsewhere.
    cli_results = (DEFAULT_DATA_DIR / "results").absolute()
    extra = [cli_results] if cli_results != data / "results" else []
    return {
        "data_dir": data,
        "evals_dir": evals,
        "output_dir": output,
        "store": url,
        "timeout": timeout,
        "result_dirs": extra,
    }


def _shown_store(url: str) -> str:
    from ..sqlstore import redact_url

    return f"the store {redact_url(url)}"
