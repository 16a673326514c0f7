"""The Model Context Protocol server of agentgauge (the official ``mcp`` SDK, the ``mcp`` extra): ``agentgauge mcp``
over stdio and ``agentgauge serve --mcp`` over streamable HTTP at ``/mcp``, behind the server's Host, Origin and token
checks and its body limit.

Its tools read what the rest of the server reads (the eval sets, the result history, the replay, the comparison) and
answer compact JSON (:mod:`._mcp_answers`); ``run_evaluation`` starts one of the server's runs, bounded as every run
of the server, and is refused unless runs were allowed (``--mcp-allow-run``). A result is named by its id, by
``label:KEY=VALUE[,KEY=VALUE]`` or by ``latest``. Bad input is a tool error naming the argument.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ..errors import AgentgaugeError, InputError
from . import _mcp_answers as answers
from ._mcp_answers import compact_json

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server.mcpserver import MCPServer
    from starlette.types import ASGIApp

    from ..model import EvalSetResult
    from ._state import ServerState

__all__ = ["MCP_HINT", "MCP_PATH", "build_mcp_server", "mcp_http_app", "run_mcp_stdio"]

MCP_PATH = "/mcp"
"""Where ``serve --mcp`` answers the Model Context Protocol."""
MCP_HINT = "the MCP server needs the official MCP SDK: pip install 'agentgauge[mcp]'"

_INSTRUCTIONS = (
    "agentgauge evaluates LLM agents. Start with list_apps; name a result by its id, label:KEY=VALUE or latest. "
    "case_failures answers why a run failed (reasons, the first turn that left the expected path); "
    "compare_results what changed between two results; replay_case a case's turns."
)

P = ParamSpec("P")
T = TypeVar("T")


def _tool_errors(fn: Callable[P, Awaitable[str]]) -> Callable[P, Awaitable[str]]:
    """Bad input and missing things as the tool's error message (one line, secrets masked), never a traceback."""

    @functools.wraps(fn)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        from .._util.redact import redact

        try:
            return await fn(*args, **kwargs)
        except (AgentgaugeError, ValueError) as exc:
            raise ToolError(redact(str(exc).strip("'\""))) from None

    return guarded


class McpTools:
    """The tools over one server's state; ``allow_run`` lets ``run_evaluation`` start runs."""

    def __init__(self, state: ServerState, allow_run: bool) -> None:
        self.state = state
        self.allow_run = allow_run

    async def _off_loop(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)  # files are read in a worker: the loop keeps serving runs

    def _found(self, app: str, result: str) -> tuple[str, EvalSetResult, dict[str, Any] | None]:
        """The result ``result`` (an id, ``label:...``, ``latest``) of the app: its id, the result, its list row."""
        from ..storage import parse_result_selector, resolve_result
        from ._native_results import AppResults
        from ._result_views import load_result

        self.state.check_app(app)
        selector = parse_result_selector(result.strip() or "latest", files=False)
        found = resolve_result(selector, AppResults(self.state, app))
        result_id = found.source
        row = next((r for r in self.state.results.rows(app) if r["evalSetResultId"] == result_id), None)
        return result_id, load_result(self.state, app, result_id), row

    async def list_apps(self) -> str:
        """The apps: name, whether an agent is served for it (runs need one), its eval set ids."""
        return compact_json(await self._off_loop(answers.app_rows, self.state))

    async def list_eval_sets(self, app: str) -> str:
        """The eval sets of an app: id, number of cases, the first case ids."""
        return compact_json(await self._off_loop(answers.eval_set_rows, self.state, app))

    async def list_results(
        self, app: str, eval_set_id: str | None = None, labels: list[str] | None = None, limit: int = 20
    ) -> str:
        """The results of an app, newest first: id, eval set, time, status, case counts, run labels. ``labels``
        (``KEY=VALUE`` each) keeps the results whose run has every one."""
        from ..model import parse_labels

        try:
            wanted = parse_labels(labels or ())
        except ValueError as exc:
            raise InputError(f"labels: {exc}") from None
        limit = answers.check_limit(limit)
        return compact_json(await self._off_loop(answers.result_rows, self.state, app, eval_set_id, wanted, limit))

    async def result_summary(self, app: str, result: str = "latest") -> str:
        """One result: status, counts, labels, each metric's mean, the cases that did not pass and why."""

        def summary() -> dict[str, Any]:
            result_id, loaded, row = self._found(app, result)
            return answers.result_summary(loaded, row, result_id)

        return compact_json(await self._off_loop(summary))

    async def case_failures(
        self, app: str, result: str = "latest", case_ids: list[str] | None = None, limit: int = 10
    ) -> str:
        """Why cases of a result did not pass: each case's reason, its failed metrics with their reasons and the
        first turn where the agent left the expected path (expected and actual tool calls or response)."""
        limit = answers.check_limit(limit)

        def failures() -> dict[str, Any]:
            result_id, loaded, _ = self._found(app, result)
            return answers.failures_answer(loaded, result_id, case_ids, limit)

        return compact_json(await self._off_loop(failures))

    async def compare_results(self, app: str, base: str, new: str = "latest", limit: int = 30) -> str:
        """What changed from result ``base`` to result ``new``: counts of fixed and broken cases, the gate's
        verdict, the cases that changed with why, each metric's mean before and after."""
        from ..compare import DEFAULT_FAIL_ON, fail_on_rule
        from ._native_results import compare_app_results

        limit = answers.check_limit(limit)
        self.state.check_app(app)
        rule = fail_on_rule(DEFAULT_FAIL_ON)
        comparison = await self._off_loop(compare_app_results, self.state, app, base, new, rule, 0.05)
        return compact_json(answers.comparison_answer(comparison, limit))

    async def replay_case(self, app: str, case_id: str, result: str = "latest", run_id: int | None = None) -> str:
        """A case run turn by turn: the user's message, tool calls and results, hand-offs, the final response, the
        turn's status and the metrics that failed it. ``run_id`` picks a run (default: the worst)."""
        from ._replay import replay_case

        if run_id is not None and (isinstance(run_id, bool) or run_id < 1):
            raise InputError(f"run_id: must be 1 or more, got {run_id!r}")

        def replay() -> dict[str, Any]:
            result_id, _, _ = self._found(app, result)
            return answers.replay_answer(replay_case(app, result_id, case_id, self.state, run_id))

        return compact_json(await self._off_loop(replay))

    async def validate_file(self, path: str) -> str:
        """Check an eval set or metrics file under the server's eval set folder (any supported dialect): whether
        it is valid, its errors and warnings with their JSON paths."""
        from ._mcp_validate import validate_path

        return compact_json(await self._off_loop(validate_path, self.state, path))

    async def run_evaluation(
        self, app: str, eval_set_id: str, case_ids: list[str] | None = None, num_runs: int = 1
    ) -> str:
        """Run an eval set (or some of its cases) with the app's agent and answer the result's summary; refused
        unless the server allows runs (``--mcp-allow-run``). Bounded as every run of the server."""
        from ..launch import EvalRequest

        if not self.allow_run:
            raise InputError("run_evaluation is off: start the server with --mcp-allow-run to let clients run")
        if isinstance(num_runs, bool) or not isinstance(num_runs, int):
            raise InputError(f"num_runs: must be a whole number, got {num_runs!r}")
        state = self.state
        asked = EvalRequest(num_runs=num_runs, parallelism=state.config.default_parallelism)  # checked by start
        run = await state.runs.start(state.check_app(app), eval_set_id, list(case_ids or []), asked)
        result = await state.runs.wait(run)
        if result is None or run.result_id is None:
            raise InputError(f"the run {run.status}: {run.error or 'no result'}")
        row = next((r for r in state.results.rows(app) if r["evalSetResultId"] == run.result_id), None)
        return compact_json(answers.result_summary(result, row, run.result_id))


def build_mcp_server(state: ServerState, *, allow_run: bool) -> MCPServer:
    """The MCP server over ``state``: its tools and the result-summary resource."""
    from mcp.server.mcpserver import MCPServer

    from ._adk_root import package_version

    tools = McpTools(state, allow_run)
    server: MCPServer = MCPServer(
        "agentgauge", instructions=_INSTRUCTIONS, version=package_version(), log_level="WARNING"
    )
    for method in (
        tools.list_apps,
        tools.list_eval_sets,
        tools.list_results,
        tools.result_summary,
        tools.case_failures,
        tools.compare_results,
        tools.replay_case,
        tools.validate_file,
        tools.run_evaluation,
    ):
        server.add_tool(_tool_errors(method), name=method.__name__, description=method.__doc__)

    @server.resource(
        "agentgauge://results/{app}/{result}",
        name="result-summary",
        description="A result's summary (result: an id, label:KEY=VALUE or latest).",
        mime_type="application/json",
    )
    async def result_resource(app: str, result: str) -> str:
        return await tools.result_summary(app, result)

    return server


async def run_mcp_stdio(state: ServerState, *, allow_run: bool) -> None:
    """Answer the Model Context Protocol on stdin and stdout until the client closes them."""
    await build_mcp_server(state, allow_run=allow_run).run_stdio_async()


def mcp_http_app(state: ServerState, *, allow_run: bool, max_body: int) -> tuple[ASGIApp, Callable[[], Any]]:
    """The streamable HTTP endpoint (an ASGI app to mount at :data:`MCP_PATH`) and the context manager that runs
    its sessions while the server runs. Host, Origin and token checks are the server's own (its middleware):
    the SDK's checks are off rather than a second, different list."""
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_mcp_server(state, allow_run=allow_run)
    # The SDK's Starlette app is not served: only the session manager it makes, mounted on the server's own app.
    server.streamable_http_app(
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=max_body,
    )
    manager = server.session_manager

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with manager.run():
            yield

    return StreamableHTTPASGIApp(manager), running


def check_mcp_installed() -> None:
    """:class:`InputError` with the install hint when the SDK is missing."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        raise InputError(MCP_HINT)
