"""What an agent receives for one user turn, what it returns, and the protocol every agent satisfies."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import Field

from ..model import ExecutedAgent, GaugeModel, Invocation, Message, TokenUsage, Tool
from ..model._base import empty_dict, empty_list

__all__ = ["Agent", "AgentOutput", "AgentRequest"]


class AgentRequest(GaugeModel):
    """One user turn of an eval case, as handed to the agent.

    - ``user_content``: the user's message for this turn.
    - ``session_id`` / ``user_id``: the session this turn belongs to (one fresh session per case and run).
    - ``state``: the session state, initialised from the case's ``sessionInput.state``. The same dict is passed
      for every turn of a case, so an agent may keep session state in it.
    - ``context_messages``: case-level then invocation-level context messages to inject into the model request
      (not part of the conversation history).
    - ``history``: the earlier invocations of this session as the agent actually produced them.
    """

    user_content: Message
    session_id: str
    user_id: str = ""
    state: dict[str, Any] = Field(default_factory=empty_dict)
    context_messages: list[Message] = Field(default_factory=empty_list)
    history: list[Invocation] = Field(default_factory=empty_list)


class AgentOutput(GaugeModel):
    """What an agent did for one user turn: its final answer, the tools it called and intermediate messages.

    ``final_response`` may be a plain string (recorded as an assistant message), a :class:`Message`, or
    ``None`` when the agent gave no answer.

    Optional efficiency data, recorded on the invocation (ADK's ``token_usage_v1`` and ``invocation_duration_v1``
    read it): ``usage`` is the turn's token usage summed over its model calls (``model_calls`` counts them, for
    ``inference_call_count_v1``; ``model`` names the model, for the price table); ``model_duration`` and
    ``tool_duration`` are seconds spent awaiting a model and inside tools when the agent measured them itself
    (otherwise the run engine uses what :func:`agentgauge.agents.time_model` / :func:`~agentgauge.agents.time_tool`
    recorded). The turn's wall time is always measured by the run engine.

    What the agent's framework recorded of the turn, kept on the invocation as written: ``invocation_id`` is the
    turn's own id there (otherwise the run engine makes one), ``agents`` the agents that ran (the root and the
    sub-agents it handed over to), ``execution_trace`` the framework's execution trace (trpc-agent-go's).
    """

    final_response: str | Message | None = None
    tools: list[Tool] = Field(default_factory=empty_list)
    intermediate_responses: list[Message] = Field(default_factory=empty_list)
    invocation_id: str | None = None
    agents: list[ExecutedAgent] = Field(default_factory=empty_list)
    execution_trace: dict[str, Any] | None = None
    usage: TokenUsage | None = None
    model_duration: float | None = None
    tool_duration: float | None = None

    def final_message(self) -> Message | None:
        """The final response as a :class:`Message` (strings become assistant messages)."""
        if isinstance(self.final_response, str):
            return Message(role="assistant", content=self.final_response)
        return self.final_response


@runtime_checkable
class Agent(Protocol):
    """Anything the run engine can call: ``await agent.run(request)`` answers one user turn.

    Use :func:`agentgauge.agents.as_agent` to turn plain callables, event generators, objects with a ``run``
    method and Google ADK agents into an :class:`Agent`.
    """

    async def run(self, request: AgentRequest) -> AgentOutput:
        """Answer ``request.user_content`` within the session ``request.session_id``."""
        ...
