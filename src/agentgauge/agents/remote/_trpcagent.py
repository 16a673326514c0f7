"""An agent served over the tRPC-Agent HTTP API (trpc-agent-go's ``server/trpcagent`` and its ADK and LangGraph
reference services): ``trpcagent+http(s)://HOST:PORT[/BASE_PATH]/APP``.

The last path segment is the app; the segments before it are the server's base path, ``/trpc-agent/v1/apps``
when there are none. Each turn is one ``POST BASE/APP/runs`` with the case's session, the user's message, the
session state as ``runOptions.runtimeState`` and the execution trace requested; its answer (events, trace) is read
as trpc-agent-go's evaluation reads a run (:mod:`._trpcagent_convert`). Context messages have no field in the
protocol and are not sent; tool mocks cannot reach the server's tools.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import quote, urlsplit

from ..._util.uuids import uuid4
from ...errors import AgentError, InputError
from .._types import AgentOutput, AgentRequest
from ._http import RemoteEndpoint
from ._response import json_problem
from ._settings import RemoteAgentSettings
from ._trpcagent_convert import run_output

__all__ = ["DEFAULT_BASE_PATH", "TrpcAgent", "parse_trpcagent_url"]

DEFAULT_BASE_PATH = "/trpc-agent/v1/apps"
"""trpc-agent-go's default base path of the tRPC-Agent API (``trpcagent.WithBasePath``)."""

_FORM = "a tRPC-Agent agent is named trpcagent+http://HOST:PORT[/BASE_PATH]/APP"


def parse_trpcagent_url(spec: str) -> tuple[str, str, str]:
    """``(scheme label, base URL of the app, app name)`` of ``trpcagent+http(s)://HOST:PORT[/BASE_PATH]/APP``; the
    base URL ends with ``/APP`` (its routes are ``/structure`` and ``/runs`` under it)."""
    label, _, rest = spec.strip().partition("://")
    label = label.lower()
    if label not in ("trpcagent+http", "trpcagent+https"):
        raise InputError(_FORM, file=spec)
    parts = urlsplit(f"{label.removeprefix('trpcagent+')}://{rest}")
    if parts.query or parts.fragment:
        raise InputError(f"{_FORM} (without a query or fragment)", file=spec)
    segments = [s for s in parts.path.split("/") if s]
    if not segments or not parts.netloc:
        raise InputError(_FORM, file=spec)
    app = segments[-1]
    base = "/" + "/".join(segments[:-1]) if len(segments) > 1 else DEFAULT_BASE_PATH
    return label, f"{parts.scheme}://{parts.netloc}{base}/{quote(app, safe='')}", app


class TrpcAgent:
    """An :class:`~agentgauge.agents.Agent` that runs each turn through a tRPC-Agent server's ``/runs`` route."""

    agentgauge_native = True
    """Marks agents built by this package, which :func:`~agentgauge.agents.as_agent` returns unchanged."""

    remote = True
    """Runs elsewhere: tool mocks cannot apply (the command line says so before the run)."""

    def __init__(self, spec: str, settings: RemoteAgentSettings | None = None) -> None:
        label, url, app = parse_trpcagent_url(spec)
        self.spec = spec
        self.app_name = app
        self.endpoint = RemoteEndpoint(label, url, settings)

    def __repr__(self) -> str:
        return f"TrpcAgent({self.endpoint.scheme_label}, app {self.app_name!r})"

    async def preflight(self) -> None:
        """Check the server serves the app over the tRPC-Agent API (before any case runs): its structure answers,
        or, on a server that exports none, its ``/runs`` route exists (a ``GET`` there answers 405)."""
        async with self.endpoint.turn():
            structure = await self.endpoint.request("GET", "structure", accept=(404, 405))
            if structure.status_code == 200:
                try:
                    found = isinstance(structure.json().get("structure"), dict)
                except (ValueError, AttributeError):
                    found = False
                if found:
                    return
                raise self.endpoint.failure(
                    "GET", "structure", status=200, body=structure.content, error="not a tRPC-Agent structure answer"
                )
            runs = await self.endpoint.request("GET", "runs", accept=(404, 405))
            if runs.status_code == 405:
                return
            problem = f"the server serves no tRPC-Agent app {self.app_name!r} here (neither /structure nor /runs)"
            raise self.endpoint.failure("GET", "runs", status=runs.status_code, error=problem)

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Send the turn and read its run answer, within the turn limit."""
        async with self.endpoint.turn():
            return await self._turn(request)

    async def _turn(self, request: AgentRequest) -> AgentOutput:
        request_id = uuid4().hex
        options: dict[str, Any] = {"requestID": request_id, "executionTraceEnabled": True}
        if request.state:
            options["runtimeState"] = copy.deepcopy(request.state)
        body = {
            "session": {"userId": request.user_id or "user", "sessionId": request.session_id},
            "input": {"role": "user", "content": request.user_content.content},
            "runOptions": options,
        }
        response = await self.endpoint.request("POST", "runs", json=body)
        try:
            answer = response.json()
        except ValueError as exc:
            problem = json_problem(exc, "the answer is not JSON")
            raise self.endpoint.failure(
                "POST", "runs", status=response.status_code, body=response.content, error=problem
            ) from None
        if not isinstance(answer, dict):
            raise self.endpoint.failure(
                "POST", "runs", status=response.status_code, body=response.content, error="not a JSON object"
            )
        try:
            return run_output(answer, request_id)
        except AgentError as exc:
            raise self.endpoint.failure("POST", "runs", status=response.status_code, error=str(exc)) from None
