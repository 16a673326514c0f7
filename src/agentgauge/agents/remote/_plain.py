"""A plain JSON agent service, ``http(s)://...`` described by ``--agent-config FILE``: each turn is one request
built from the config's template, and the answer's final response and tool calls are read at the config's JSON
paths."""

from __future__ import annotations

import contextlib
import functools
import json
import re
from typing import Any
from urllib.parse import quote

from ...errors import AgentError, InputError
from ...model import Message, TokenUsage, Tool, new_tool_id
from .._types import AgentOutput, AgentRequest
from ._config import PlainResponse, RemoteAgentConfig, load_config
from ._http import RemoteEndpoint
from ._jsonpath import MISSING, JsonPath, parse_json_path, select
from ._response import json_problem
from ._settings import RemoteAgentSettings

__all__ = ["PlainHttpAgent", "render_template"]

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_]+)\s*\}\}")
_WHOLE = re.compile(r"^\{\{\s*([A-Za-z_]+)\s*\}\}$")


def _values(request: AgentRequest) -> dict[str, Any]:
    history: list[dict[str, str]] = []
    for invocation in request.history:
        history.append({"role": "user", "content": invocation.user_content.content})
        if invocation.final_response is not None:
            history.append({"role": "assistant", "content": invocation.final_response.content})
    return {
        "message": request.user_content.content,
        "session_id": request.session_id,
        "user_id": request.user_id or "user",
        "state": request.state,
        "history": history,
        "context_messages": [{"role": m.role, "content": m.content} for m in request.context_messages],
    }


def render_template(template: Any, values: dict[str, Any]) -> Any:
    """``template`` with its ``{{name}}`` placeholders filled: a string that is one placeholder becomes the value
    itself (any JSON value); inside a longer string a value is written as text (JSON for non-strings)."""
    if isinstance(template, str):
        whole = _WHOLE.match(template)
        if whole:
            return values[whole[1]]
        return _PLACEHOLDER.sub(lambda m: _as_text(values[m[1]]), template)
    if isinstance(template, dict):
        return {key: render_template(value, values) for key, value in template.items()}
    if isinstance(template, list):
        return [render_template(value, values) for value in template]
    return template


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class PlainHttpAgent:
    """An :class:`~agentgauge.agents.Agent` calling a JSON service the config file describes."""

    agentgauge_native = True
    """Marks agents built by this package, which :func:`~agentgauge.agents.as_agent` returns unchanged."""

    remote = True
    """Runs elsewhere: tool mocks cannot apply (the command line says so before the run)."""

    def __init__(
        self, spec: str, settings: RemoteAgentSettings | None = None, config: RemoteAgentConfig | None = None
    ) -> None:
        settings = settings or RemoteAgentSettings()
        if config is None and settings.config is not None:
            config = load_config(settings.config)
        if config is None or config.response is None:
            raise InputError(
                "a plain http(s):// agent needs --agent-config FILE with a `response.finalResponse` JSON path "
                "(or use a2a+http://, adk+http://, agui+http://, trpcagent+http://)",
                file=spec,
            )
        self.spec = spec
        self.config = config
        self.response_paths: PlainResponse = config.response
        self.endpoint = RemoteEndpoint(spec.split("://")[0].lower(), spec, settings)

    def __repr__(self) -> str:
        return f"PlainHttpAgent({self.endpoint!r})"

    async def preflight(self) -> None:
        """Check an HTTP server answers at the service's URL (before any case runs): a turn cannot be sent
        without acting, so a ``GET`` of the URL stands in and any HTTP answer will do."""
        async with self.endpoint.turn(), self.endpoint.stream("GET", self.endpoint.url, accept=range(300, 600)):
            pass

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Send the turn as the config's template says and read the answer at its JSON paths, within the turn limit."""
        async with self.endpoint.turn():
            return await self._turn(request)

    async def _turn(self, request: AgentRequest) -> AgentOutput:
        values = _values(request)
        template = self.config.request
        path = _PLACEHOLDER.sub(lambda m: quote(_as_text(values[m[1]]), safe=""), template.path)
        url = self.endpoint.url + path if path else self.endpoint.url
        kwargs: dict[str, Any] = {}
        if template.query:
            kwargs["params"] = {k: _as_text(render_template(v, values)) for k, v in template.query.items()}
        if template.body is not None and template.method != "GET":
            kwargs["json"] = render_template(template.body, values)
        response = await self.endpoint.request(template.method, url, **kwargs)
        try:
            answer = response.json()
        except ValueError as exc:
            problem = json_problem(exc, "the answer is not JSON")
            raise self.endpoint.failure(
                template.method, url, status=response.status_code, body=response.content, error=problem
            ) from None
        try:
            return self._output(answer)
        except AgentError as exc:
            raise self.endpoint.failure(
                template.method, url, status=response.status_code, body=response.content, error=str(exc)
            ) from None

    def _output(self, answer: Any) -> AgentOutput:
        paths = self.response_paths
        final = self._pick(answer, paths.final_response, required=True)
        tools: list[Tool] = []
        if paths.tool_calls is not None:
            calls = self._pick(answer, paths.tool_calls)
            if calls not in (MISSING, None) and not isinstance(calls, list):
                raise AgentError(f"{paths.tool_calls} is not a list of tool calls")
            for index, call in enumerate(calls if isinstance(calls, list) else []):
                tools.append(self._tool(call, f"{paths.tool_calls}[{index}]"))
        usage = None
        if paths.input_tokens or paths.output_tokens:
            counts = [self._count(answer, paths.input_tokens), self._count(answer, paths.output_tokens)]
            if counts != [None, None]:
                total = (counts[0] or 0) + (counts[1] or 0)
                usage = TokenUsage(input_tokens=counts[0], output_tokens=counts[1], total_tokens=total)
        text = None if final in (MISSING, None) else _as_text(final)
        message = None if text is None else Message(role="assistant", content=text)
        return AgentOutput(final_response=message, tools=tools, usage=usage)

    def _tool(self, call: Any, where: str) -> Tool:
        paths = self.response_paths
        name = self._pick(call, paths.tool_name, required=True, where=where)
        arguments = self._pick(call, paths.tool_arguments)
        if isinstance(arguments, str):
            # Arguments that are not JSON are kept as text, as for streamed agent events.
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments)
        result = self._pick(call, paths.tool_result)
        tool_id = self._pick(call, paths.tool_id) if paths.tool_id else MISSING
        return Tool(
            id=str(tool_id) if tool_id not in (MISSING, None) else new_tool_id(),
            name=_as_text(name),
            arguments=None if arguments is MISSING else arguments,
            result=None if result is MISSING else result,
        )

    def _count(self, answer: Any, path: str | None) -> int | None:
        value = self._pick(answer, path) if path else MISSING
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @staticmethod
    def _pick(data: Any, path: str, *, required: bool = False, where: str = "the answer") -> Any:
        steps: JsonPath = _parse(path)
        value = select(data, steps)
        if value is MISSING and required:
            raise AgentError(f"no value at {path} in {where}")
        return value


@functools.lru_cache(maxsize=256)
def _parse(path: str) -> JsonPath:
    return parse_json_path(path)  # validated when the config was read
