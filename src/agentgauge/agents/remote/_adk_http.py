"""An agent served by ADK's HTTP API (``adk api_server``, ``get_fast_api_app``; the same API in every ADK
language): ``adk+http(s)://HOST:PORT[/PREFIX]/apps/APP``.

One ADK session per eval-case session, created on its first turn with the case's user id and state; each turn is
one ``POST /run_sse`` (``/run`` when the server has no ``/run_sse``) whose JSON events are converted exactly as an
in-process ADK agent's (:mod:`agentgauge.agents._adk_convert`), so the scores are the same.
"""

from __future__ import annotations

import copy
from typing import Any
from urllib.parse import quote

from ...errors import InputError
from .._adk_convert import AdkEventView, adk_views_to_output, view_of_adk_json
from .._types import AgentOutput, AgentRequest
from ._http import RemoteEndpoint
from ._response import json_problem, load_json
from ._settings import RemoteAgentSettings

__all__ = ["AdkHttpAgent", "parse_adk_url"]


def parse_adk_url(spec: str) -> tuple[str, str, str]:
    """``(scheme label, base URL, app name)`` of ``adk+http(s)://HOST:PORT[/PREFIX]/apps/APP``."""
    label, _, rest = spec.strip().partition("://")
    base, marker, app = rest.rstrip("/").rpartition("/apps/")
    if not marker or not app or "/" in app or not label.lower().startswith("adk+"):
        raise InputError("an ADK HTTP agent is named adk+http://HOST:PORT[/PREFIX]/apps/APP_NAME", file=spec)
    transport = label.lower().removeprefix("adk+")
    return label.lower(), f"{transport}://{base}", app


def _route_absent(response: Any) -> bool:
    """A 404/405 of the framework for a route it does not have (not ADK's ``Session not found`` 404)."""
    if response.status_code == 405:
        return True
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        return True
    return bool(detail == "Not Found")


class AdkHttpAgent:
    """An :class:`~agentgauge.agents.Agent` that runs each turn through a remote ADK server's HTTP API.

    Context messages have no field in ADK's API and are not sent; tool mocks cannot reach the server's tools.
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`~agentgauge.agents.as_agent` returns unchanged."""

    remote = True
    """Runs elsewhere: tool mocks cannot apply (the command line says so before the run)."""

    def __init__(self, spec: str, settings: RemoteAgentSettings | None = None) -> None:
        label, base, app = parse_adk_url(spec)
        self.spec = spec
        self.app_name = app
        self.endpoint = RemoteEndpoint(label, base, settings)
        self._sessions: set[tuple[str, str]] = set()
        self._sse = True  # until the server answers that it has no /run_sse

    def __repr__(self) -> str:
        return f"AdkHttpAgent({self.endpoint.scheme_label}, app {self.app_name!r})"

    async def preflight(self) -> None:
        """Check the server speaks ADK's HTTP API and serves the app (before any case runs): ``GET /list-apps``
        names it, or, on a server without that route, the app's session list answers."""
        async with self.endpoint.turn():
            listed = await self.endpoint.request("GET", "/list-apps", accept=(404, 405))
            if listed.status_code in (404, 405):
                path = f"/apps/{quote(self.app_name)}/users/agentgauge-preflight/sessions"
                sessions = await self.endpoint.request("GET", path)
                self._json_list(sessions, "GET", path, "the session list")
                return
            apps = self._json_list(listed, "GET", "/list-apps", "the app list")
            if self.app_name not in apps:
                shown = ", ".join(str(app) for app in apps[:20]) or "none"
                raise self.endpoint.failure(
                    "GET", "/list-apps", error=f"the server does not serve app {self.app_name!r} (it serves: {shown})"
                )

    def _json_list(self, response: Any, method: str, path: str, what: str) -> list[Any]:
        """The answer's JSON list; :meth:`~RemoteEndpoint.failure` saying what it is instead."""
        try:
            value = response.json()
        except ValueError as exc:
            problem = json_problem(exc, f"{what} is not JSON")
        else:
            if isinstance(value, list):
                return value
            problem = f"{what} is not a JSON list"
        raise self.endpoint.failure(method, path, status=response.status_code, body=response.content, error=problem)

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Create the session on its first turn, run the turn and convert the events, within the turn limit."""
        async with self.endpoint.turn():
            return await self._turn(request)

    async def _turn(self, request: AgentRequest) -> AgentOutput:
        user_id = request.user_id or "user"
        key = (user_id, request.session_id)
        if key not in self._sessions:
            path = f"/apps/{quote(self.app_name)}/users/{quote(user_id)}/sessions/{quote(request.session_id)}"
            # 409: the session exists already (a turn of it reached the server before).
            await self.endpoint.request("POST", path, json=copy.deepcopy(request.state), accept=(409,))
            self._sessions.add(key)
        body = {
            "appName": self.app_name,
            "userId": user_id,
            "sessionId": request.session_id,
            "newMessage": {"role": "user", "parts": [{"text": request.user_content.content}]},
            "streaming": False,
        }
        events = await self._run_sse(body) if self._sse else None
        if events is None:
            self._sse = False
            events = await self._run(body)
        return adk_views_to_output(events)

    async def _run_sse(self, body: dict[str, Any]) -> list[AdkEventView] | None:
        """The turn's events from ``/run_sse``; ``None`` when the server has no such route."""
        events: list[AdkEventView] = []
        async with self.endpoint.stream("POST", "/run_sse", json=body, accept=(404, 405)) as response:
            if response.status_code in (404, 405):
                await response.aread()
                if _route_absent(response):
                    return None
                raise self.endpoint.failure("POST", "/run_sse", status=response.status_code, body=response.content)
            async for _name, data in self.endpoint.iter_sse(response):
                if data.strip():
                    events.append(self._event(data))
        return events

    async def _run(self, body: dict[str, Any]) -> list[AdkEventView]:
        response = await self.endpoint.request("POST", "/run", json=body)
        payload = self._json_list(response, "POST", "/run", "the answer")
        if not all(isinstance(e, dict) for e in payload):
            raise self.endpoint.failure(
                "POST", "/run", status=response.status_code, body=response.content, error="not a JSON list of events"
            )
        return [view_of_adk_json(event) for event in payload]

    def _event(self, data: str) -> AdkEventView:
        try:
            event = load_json(data)
        except ValueError as exc:
            problem = json_problem(exc, "an event is not JSON")
            raise self.endpoint.failure("POST", "/run_sse", body=data, error=problem) from None
        if not isinstance(event, dict):
            raise self.endpoint.failure("POST", "/run_sse", body=data, error="an event is not a JSON object")
        if "error" in event and "author" not in event:
            # What ADK's server streams when the agent raised mid-run.
            raise self.endpoint.failure("POST", "/run_sse", error=f"agent error: {event['error']}")
        return view_of_adk_json(event)
