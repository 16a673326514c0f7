"""Eval sets: cases, invocations, messages and tool calls (native camelCase form)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .._util.uuids import uuid4
from ._base import GaugeModel, empty_dict, empty_list, omit_empty
from ._replay import ReplayRecord
from ._toolmock import ToolMock

__all__ = [
    "CaseRubric",
    "ConversationScenario",
    "EvalCase",
    "EvalSet",
    "ExecutedAgent",
    "Invocation",
    "Message",
    "RubricContent",
    "SessionInput",
    "TokenUsage",
    "Tool",
    "new_tool_id",
]

Role = Literal["system", "user", "assistant", "tool"]


def _is_none(value: Any) -> bool:
    return value is None


def new_tool_id() -> str:
    """A fresh tool-call id (``call_`` + 24 hex digits) for calls recorded without one."""
    return "call_" + uuid4().hex[:24]


class Message(GaugeModel):
    """One chat message. ``role`` is system / user / assistant / tool; ``content`` is its text.

    Extra keys (``tool_calls``, ``content_parts``, ADK part details, ...) are preserved.
    """

    role: Role = "user"
    content: str = ""


class Tool(GaugeModel):
    """A tool call and its result. ``arguments`` and ``result`` may be any JSON value.

    ``arguments=None`` is a call recorded without arguments (ADK ``args`` absent or ``null``); it is not ``{}``,
    and the ADK trajectory rule compares the two as different. Left out, ``arguments`` defaults to ``{}``.
    """

    id: str = Field(default_factory=new_tool_id)
    name: str
    arguments: Any = Field(default_factory=empty_dict)
    # Only a missing result is left out: ``{}``, ``[]``, ``""`` and ``0`` are results (trpc writes them too).
    result: Any = Field(default=None, exclude_if=_is_none)


class TokenUsage(GaugeModel):
    """Model usage of one invocation, as far as the agent reported it.

    ``model_calls`` counts model requests (ADK's inference calls); ``total_tokens`` is input + output when the
    agent gave no total; ``cost`` is in the price table's currency (USD by default) and absent when no price is
    known for the model. The breakdown fields are ADK's (``token_usage_v1`` details): ``prompt_tokens`` and
    ``tool_use_tokens`` make up the input, ``candidates_tokens`` and ``reasoning_tokens`` the output,
    ``cached_tokens`` is the part of the input served from a cache, ``cache_creation_tokens`` the part written to
    one (GenAI ``gen_ai.usage.cache_creation.input_tokens``). Absent means "not reported", never zero.
    """

    input_tokens: int | None = omit_empty()
    output_tokens: int | None = omit_empty()
    total_tokens: int | None = omit_empty()
    prompt_tokens: int | None = omit_empty()
    cached_tokens: int | None = omit_empty()
    cache_creation_tokens: int | None = omit_empty()
    tool_use_tokens: int | None = omit_empty()
    candidates_tokens: int | None = omit_empty()
    reasoning_tokens: int | None = omit_empty()
    model_calls: int | None = omit_empty()
    model: str | None = omit_empty()
    cost: float | None = omit_empty()


class ExecutedAgent(GaugeModel):
    """One agent that ran during an invocation (the root agent or a sub-agent it handed over to), in
    trpc-agent-go's shape (``evalset.Agent``): ``invocation_id`` is that agent run's own id,
    ``parent_invocation_id`` the run that started it (empty for the root), ``name`` the agent's name and
    ``branch`` the chain of agent names down to it (``root/child/grandchild``)."""

    invocation_id: str = omit_empty("")
    parent_invocation_id: str = omit_empty("")
    name: str = omit_empty("")
    branch: str = omit_empty("")


class Invocation(GaugeModel):
    """One user turn and the agent's answer to it: final response, tool calls, intermediate messages.

    ``tool_mock`` (trpc ``toolMock``) holds the rules that replace tool executions during this turn.
    ``agents`` (trpc ``agents``) lists the agents that ran in the turn, root first, each sub-agent after the agent
    that started it; ``execution_trace`` (trpc ``executionTrace``) is the run's execution trace as the agent's
    framework recorded it (trpc-agent-go's Go field names: ``RootInvocationID``, ``Steps[{NodeID, Input, Output,
    Tools, ...}]``), kept as written.

    ``duration`` (seconds, wall time of the turn), ``model_duration``/``tool_duration`` (time inside model and
    tool calls) and ``usage`` are recorded by live runs when known; expected invocations leave them out. ``replay``
    is how a replayed turn's tool calls were served from its recording (``toolMock.replay``).
    """

    invocation_id: str = omit_empty("")
    context_messages: list[Message] = omit_empty(factory=list)
    user_content: Message
    final_response: Message | None = omit_empty()
    tools: list[Tool] = omit_empty(factory=list)
    intermediate_responses: list[Message] = omit_empty(factory=list)
    creation_timestamp: float | None = omit_empty()
    duration: float | None = omit_empty()
    model_duration: float | None = omit_empty()
    tool_duration: float | None = omit_empty()
    usage: TokenUsage | None = omit_empty()
    tool_mock: ToolMock | None = omit_empty()
    replay: ReplayRecord | None = omit_empty()
    agents: list[ExecutedAgent] = omit_empty(factory=list)
    execution_trace: dict[str, Any] | None = omit_empty()


class SessionInput(GaugeModel):
    """How the agent's session starts: application name, user id and initial state."""

    app_name: str = omit_empty("")
    user_id: str = omit_empty("")
    state: dict[str, Any] = omit_empty(factory=dict)


class ConversationScenario(GaugeModel):
    """A user-simulation plan instead of a fixed conversation (trpc and ADK fields; unknown keys kept).

    The dialect decides the semantics (see :attr:`dialect`): trpc scenarios (``driver``, ``stopSignal`` or
    ``maxAllowedInvocations`` set) end when the simulated user's whole message equals ``stopSignal`` and allow
    ``maxAllowedInvocations`` user turns (0: unlimited); ADK scenarios end when a message contains
    ``</finished>`` and allow 20 user turns by default (the simulator configuration's ``max_allowed_invocations``).
    ``user_persona`` is a persona id (``NOVICE``, ``EXPERT``, ``EVALUATOR``) or an ADK ``UserPersona`` object.
    """

    driver: str | None = omit_empty()
    starting_prompt: str | None = omit_empty()
    conversation_plan: str | None = omit_empty()
    stop_signal: str | None = omit_empty()
    max_allowed_invocations: int | None = omit_empty()
    user_persona: Any = omit_empty()

    @property
    def dialect(self) -> Literal["adk", "trpc"]:
        """``trpc`` when a trpc-only field is set, else ``adk``.

        A trpc scenario must set ``stopSignal`` or ``maxAllowedInvocations``, so a scenario with neither (nor a
        ``driver``) can only be an ADK one.
        """
        trpc = self.driver is not None or self.stop_signal is not None or self.max_allowed_invocations is not None
        return "trpc" if trpc else "adk"


class RubricContent(GaugeModel):
    """The text of a rubric as shown to a judge."""

    text: str = ""


class CaseRubric(GaugeModel):
    """A rubric attached to an eval case (or an invocation); ``metric_name`` says which judge metric uses it.

    ``type`` is free-form (e.g. ``FINAL_RESPONSE_QUALITY``, ``TOOL_USE_QUALITY``); ADK's typed rubric metrics
    only use rubrics of their own type.
    """

    metric_name: str | None = omit_empty()
    id: str = ""
    content: RubricContent | None = omit_empty()
    description: str | None = omit_empty()
    type: str | None = omit_empty()


class EvalCase(GaugeModel):
    """One session to evaluate: a conversation of invocations (or a scenario) plus how the session starts.

    ``eval_mode="trace"`` means ``conversation`` (and/or ``actual_conversation``) is a recorded trace and the
    agent is never called. ``expected_runner_enabled`` (trpc ``expectedRunnerEnabled``) takes the expected
    invocations from an expected agent run on the same user turns. Unknown keys are preserved on round trip.
    """

    eval_id: str
    eval_mode: Literal["", "trace"] = omit_empty("")
    context_messages: list[Message] = omit_empty(factory=list)
    conversation: list[Invocation] | None = Field(default=None, exclude_if=lambda v: v is None)
    actual_conversation: list[Invocation] | None = omit_empty()
    conversation_scenario: ConversationScenario | None = omit_empty()
    session_input: SessionInput | None = omit_empty()
    rubrics: list[CaseRubric] = omit_empty(factory=list)
    creation_timestamp: float | None = omit_empty()
    expected_runner_enabled: bool = Field(False, exclude_if=lambda v: not v)

    @property
    def is_trace(self) -> bool:
        """True when the case is evaluated from a recorded trace without calling the agent."""
        return self.eval_mode == "trace"


class EvalSet(GaugeModel):
    """A named collection of eval cases."""

    eval_set_id: str
    name: str | None = omit_empty()
    description: str | None = omit_empty()
    eval_cases: list[EvalCase] = Field(default_factory=empty_list)
    creation_timestamp: float | None = omit_empty()

    def get_case(self, eval_id: str) -> EvalCase | None:
        """The case with this id, or ``None``."""
        for case in self.eval_cases:
            if case.eval_id == eval_id:
                return case
        return None
