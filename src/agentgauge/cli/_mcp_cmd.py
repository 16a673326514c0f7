"""``agentgauge mcp``: the Model Context Protocol over stdin and stdout, for a coding agent or an IDE that starts it
as a subprocess (docs/mcp.md)."""

from __future__ import annotations

from ._app import app
from ._common import fail_input, input_errors_exit_2
from ._protocol_opts import McpAllowRunOption
from ._serve_cmd import _Agents, _DataDir, _EvalsDir, _OutputDir, _Parallelism, _places, _Store, _Timeout

__all__ = ["mcp"]


@app.command(
    epilog="Example:  agentgauge mcp examples/calculator   (in an MCP client's config: command 'agentgauge', "
    "args ['mcp', 'examples/calculator'])",
)
def mcp(
    agents: _Agents = None,
    data_dir: _DataDir = None,
    evals_dir: _EvalsDir = None,
    output_dir: _OutputDir = None,
    store: _Store = None,
    timeout: _Timeout = 300.0,
    parallelism: _Parallelism = 4,
    mcp_allow_run: McpAllowRunOption = False,
) -> None:
    """Answer the Model Context Protocol on stdin/stdout: list apps, eval sets and results, explain a case's
    failures, compare two results, replay a case, validate a file and (with --mcp-allow-run) run an evaluation,
    over the same files and results as 'agentgauge serve'."""
    import asyncio

    specs = list(agents or [])
    with input_errors_exit_2():
        from ..server import ServerConfig, discover_apps
        from ..server._mcp import check_mcp_installed, run_mcp_stdio
        from ..server._state import ServerState

        check_mcp_installed()
        found = discover_apps(specs)
        if specs and not found:
            fail_input(f"no agent found in {', '.join(specs)} (expected agent.py or __init__.py in a directory)")
        places = _places(specs, data_dir, evals_dir, output_dir, store, timeout)
        config = ServerConfig(
            **places, agents=found, default_parallelism=parallelism, mcp=True, mcp_allow_run=mcp_allow_run
        )
        state = ServerState(config)
    config.data_dir.mkdir(parents=True, exist_ok=True)
    asyncio.run(run_mcp_stdio(state, allow_run=mcp_allow_run))
