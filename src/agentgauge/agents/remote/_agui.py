"""``agui+http(s)://HOST:PORT/PATH``: an agent reached over AG-UI (a ``RunAgentInput`` POSTed, events back as
Server-Sent Events), with the ``ag-ui-protocol`` package's types (extra ``agentgauge[remote]``).

One AG-UI thread per eval case (the thread id is the case's session id); each turn is one run. The request carries
the conversation so far (see :func:`agui_messages`), the session state and ``forwardedProps.userId`` (where
trpc-agent-go's AG-UI server reads the user). What comes back is folded by :class:`AguiTurn`.
"""

from __future__ import annotations

import uuid
from typing import Any

from ...errors import AgentError, InputError
from .._types import AgentOutput, AgentRequest
from ._agui_convert import AguiTurn, agui_messages
from ._http import RemoteEndpoint
from ._response import json_problem, load_json
from ._settings import RemoteAgentSettings

__all__ = ["AguiAgent"]


def _event_adapter() -> Any:
    try:
        from ag_ui.core import Event
    except ImportError:
        raise InputError("an agui+http agent needs ag-ui-protocol: pip install 'agentgauge[remote]'") from None
    from pydantic import TypeAdapter

    return TypeAdapter(Event)


class AguiAgent:
    """An :class:`~agentgauge.agents.Agent` that runs each user turn as one AG-UI run of the case's thread.

    ``spec`` is the ``agui+http(s)://`` URL of the run endpoint; ``settings`` the shared connection settings.
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`as_agent` returns unchanged."""

    remote = True
    """The agent runs elsewhere: eval-set tool mocks cannot reach its tools."""

    def __init__(self, spec: str, settings: RemoteAgentSettings | None = None) -> None:
        self._events = _event_adapter()
        from ag_ui.core import EventType

        self._known = {member.value for member in EventType}
        scheme, _, rest = spec.strip().partition("://")
        self.spec = spec
        self.url = f"{scheme.lower().partition('+')[2]}://{rest}"
        self.endpoint = RemoteEndpoint(scheme.lower(), self.url, settings)

    def __repr__(self) -> str:
        return f"AguiAgent({self.endpoint.scheme_label}://{self.url.partition('://')[2]!r})"

    def _input(self, request: AgentRequest) -> dict[str, Any]:
        from ag_ui.core import RunAgentInput

        body = {
            "threadId": request.session_id,
            "runId": uuid.uuid4().hex,
            "state": request.state,
            "messages": agui_messages(
                request.history, request.context_messages, request.user_content.content, len(request.history) + 1
            ),
            "tools": [],
            "context": [],
            "forwardedProps": {"userId": request.user_id} if request.user_id else {},
        }
        # Validated with the protocol's own model, so what is sent is what an AG-UI server accepts.
        return RunAgentInput.model_validate(body).model_dump(mode="json", by_alias=True, exclude_none=True)

    async def preflight(self) -> None:
        """Check something answers at the run endpoint (before any case runs): a run cannot be started without
        acting, so a ``GET`` stands in; any answer but 404 (an AG-UI endpoint answers 405 or an error) will do."""
        async with self.endpoint.turn(), self.endpoint.stream("GET", self.url, accept=range(300, 600)) as response:
            if response.status_code == 404:
                body = await response.aread()
                raise self.endpoint.failure("GET", self.url, status=404, body=body, error="no endpoint here")

    async def run(self, request: AgentRequest) -> AgentOutput:
        """POST the run and fold its event stream until ``RUN_FINISHED``, within the turn limit."""
        async with self.endpoint.turn():
            return await self._turn(request)

    async def _turn(self, request: AgentRequest) -> AgentOutput:
        url = self.url
        turn = AguiTurn()
        headers = {"Accept": "text/event-stream"}
        async with self.endpoint.stream("POST", url, json=self._input(request), headers=headers) as response:
            kind = response.headers.get("content-type", "")
            if "text/event-stream" not in kind:
                body = await response.aread()
                raise self.endpoint.failure(
                    "POST",
                    url,
                    status=response.status_code,
                    body=body,
                    error=f"not an event stream ({kind or 'no type'})",
                )
            async for _, data in self.endpoint.iter_sse(response):
                self._fold(turn, data, response.status_code)
                if turn.finished:
                    break
        if turn.error is not None:
            raise self.endpoint.failure("POST", url, error=f"RUN_ERROR {turn.error}")
        if not turn.finished:
            raise self.endpoint.failure("POST", url, error="the event stream ended before RUN_FINISHED")
        return turn.output()

    def _fold(self, turn: AguiTurn, data: str, status: int) -> None:
        try:
            raw = load_json(data)
        except ValueError as exc:
            problem = json_problem(exc, f"an event is not JSON: {data[:80]!r}")
            raise self.endpoint.failure("POST", self.url, status=status, error=problem) from None
        kind = raw.get("type") if isinstance(raw, dict) else None
        if kind not in self._known:
            return  # an event type newer than this ag-ui-protocol: nothing the invocation needs
        try:
            event = self._events.validate_python(raw)
        except Exception as exc:
            problem = str(exc).splitlines()[0]
            raise self.endpoint.failure(
                "POST", self.url, status=status, error=f"invalid {kind} event: {problem}"
            ) from None
        try:
            turn.add(event)
        except AgentError as exc:
            raise self.endpoint.failure("POST", self.url, status=status, error=str(exc)) from None
