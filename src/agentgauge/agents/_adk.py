"""Run a Google ADK agent (``root_agent``) or ``App`` through ADK's ``Runner`` (extra ``agentgauge[adk]``).

``google.adk`` is imported only when an ADK agent is actually wrapped.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import Iterator
from typing import Any

from ..errors import AgentError
from ..mocks import ActiveMocks, active_mocks
from ..model import Message
from ._adk_convert import adk_views_to_output, view_of_adk_event
from ._timing import current_clock, measures
from ._types import AgentOutput, AgentRequest

__all__ = ["AdkAgent", "adk_events_to_output"]


def _require_adk() -> None:
    try:
        import google.adk  # noqa: F401
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise AgentError("running a Google ADK agent needs google-adk: pip install 'agentgauge[adk]'") from None


def adk_events_to_output(events: list[Any]) -> AgentOutput:
    """Convert the ADK ``Event`` objects of one invocation into an :class:`AgentOutput`.

    Function calls become tools (in order of appearance; missing ids are generated), function responses fill
    the matching tool's ``result`` (by id, else the latest unanswered call of that name), the text of the last
    final-response event is the final response and the text of other non-partial agent events becomes
    intermediate responses (with the ADK ``author`` kept). An event carrying an error code raises
    :class:`AgentError`. ``usage`` sums the events' ``usage_metadata``; its ``model_calls`` counts the events with
    usage metadata or a model version (ADK's inference calls). The same conversion reads ADK's HTTP API
    (:mod:`agentgauge.agents._adk_convert`), so an agent scores the same in-process and over the wire.
    """
    return adk_views_to_output([view_of_adk_event(event) for event in events])


@contextlib.contextmanager
def _busy_intervals() -> Iterator[None]:
    """Hand the model and tool intervals ADK's telemetry collects during the block to the turn's clock."""
    try:
        from google.adk.telemetry._instrumentation import collect_busy_intervals
    except ImportError:  # an ADK without interval collection: model and tool time stay unmeasured
        yield
        return
    clock = current_clock()
    with collect_busy_intervals() as busy:
        yield
    if clock is not None:
        measures(models=True, tools=True)
        clock.model.extend(busy.model)
        clock.tools.extend(busy.tool)


class _Runtime:
    """The ADK Runner and session service of one event loop."""

    def __init__(
        self, target: Any, app_name: str, context: dict[str, list[Message]], mocks: dict[str, ActiveMocks]
    ) -> None:
        from google.adk.apps.app import App
        from google.adk.runners import Runner
        from google.adk.sessions.in_memory_session_service import InMemorySessionService

        plugins = [_tool_mock_plugin(mocks), _context_plugin(context)]
        if isinstance(target, App):
            app = target.model_copy(update={"plugins": [*plugins, *target.plugins]})
        else:
            app = App(name=app_name, root_agent=target, plugins=plugins)
        self.sessions = InMemorySessionService()
        self.runner = Runner(app=app, session_service=self.sessions)
        self.app_name = self.runner.app_name


def _context_plugin(context: dict[str, list[Message]]) -> Any:
    """An ADK plugin that injects the request's context messages into every model request of its session.

    System messages are appended to the system instruction; other messages are placed before the conversation.
    """
    from google.adk.plugins.base_plugin import BasePlugin
    from google.genai import types

    class ContextMessagesPlugin(BasePlugin):
        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
            messages = context.get(callback_context.session.id, [])
            system = [m.content for m in messages if m.role == "system"]
            if system:
                llm_request.append_instructions(system)
            others = [
                types.Content(role="model" if m.role == "assistant" else "user", parts=[types.Part(text=m.content)])
                for m in messages
                if m.role != "system"
            ]
            llm_request.contents[:0] = others

    return ContextMessagesPlugin(name="agentgauge_context_messages")


def _tool_mock_plugin(mocks: dict[str, ActiveMocks]) -> Any:
    """An ADK plugin whose before-tool callback applies the eval set's tool mocks of the session's current turn.

    A matching rule's result replaces the tool's execution (non-object results are wrapped as ``{"result": ...}``,
    as ADK wraps tool returns); a mocked tool without a matching rule raises, which fails the turn.
    """
    from google.adk.plugins.base_plugin import BasePlugin

    class ToolMockPlugin(BasePlugin):
        async def before_tool_callback(self, *, tool: Any, tool_args: dict[str, Any], tool_context: Any) -> Any:
            active = mocks.get(tool_context.session.id)
            if active is None:
                return None
            hit, result = await active.resolve(tool.name, tool_args)
            if not hit:
                return None
            return result if isinstance(result, dict) else {"result": result}

    return ToolMockPlugin(name="agentgauge_tool_mock")


class AdkAgent:
    """An :class:`~agentgauge.agents.Agent` that runs an ADK ``BaseAgent`` (or ``App``) with ADK's ``Runner``.

    Each eval-case session becomes an ADK in-memory session created with ``sessionInput.state`` as its initial
    state; every invocation is one ``runner.run_async`` call whose events are converted by
    :func:`adk_events_to_output`. Context messages reach LLM agents through a plugin (see
    ``_context_plugin``); eval-set tool mocks through a before-tool callback (see ``_tool_mock_plugin``).
    """

    agentgauge_native = True
    """Marks agents built by this package, which :func:`as_agent` returns unchanged."""

    def __init__(self, agent: Any, *, app_name: str = "agentgauge_eval") -> None:
        _require_adk()
        self.agent = agent
        self.app_name = app_name
        self._context: dict[str, list[Message]] = {}
        self._mocks: dict[str, ActiveMocks] = {}
        self._runtimes: dict[int, _Runtime] = {}

    def __repr__(self) -> str:
        return f"AdkAgent({getattr(self.agent, 'name', type(self.agent).__name__)!r})"

    def _runtime(self) -> _Runtime:
        # The Runner's async resources belong to one loop (evaluate_sync starts a new loop per call).
        loop_id = id(asyncio.get_running_loop())
        runtime = self._runtimes.get(loop_id)
        if runtime is None:
            runtime = _Runtime(self.agent, self.app_name, self._context, self._mocks)
            self._runtimes = {loop_id: runtime}
        return runtime

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Run one user turn through the ADK Runner and convert its events."""
        from google.genai import types

        runtime = self._runtime()
        user_id = request.user_id or "user"
        session = await runtime.sessions.get_session(
            app_name=runtime.app_name, user_id=user_id, session_id=request.session_id
        )
        if session is None:
            await runtime.sessions.create_session(
                app_name=runtime.app_name,
                user_id=user_id,
                session_id=request.session_id,
                state=copy.deepcopy(request.state),
            )
        self._context[request.session_id] = list(request.context_messages)
        active = active_mocks()
        if active is not None:
            self._mocks[request.session_id] = active
        message = types.Content(role="user", parts=[types.Part(text=request.user_content.content)])
        with _busy_intervals():
            try:
                events = [
                    event
                    async for event in runtime.runner.run_async(
                        user_id=user_id, session_id=request.session_id, new_message=message
                    )
                ]
            finally:
                self._mocks.pop(request.session_id, None)
        return adk_events_to_output(events)
