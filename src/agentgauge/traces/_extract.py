"""From a trace's spans to the invocations of one conversation (agentgauge's own model objects).

Span roles (checked in this order):
- **tool** span: name ``execute_tool ...``, ``gen_ai.operation.name == "execute_tool"``, a ``gen_ai.tool.name``
  or OpenInference's ``openinference.span.kind`` ``TOOL``;
- **agent** span: name ``invoke_agent ...`` / ``invoke_workflow ...``, that operation name, or kind ``AGENT``;
- **LLM** span: name ``call_llm ...`` (ADK 1.x), operation ``chat`` / ``generate_content`` / ``text_completion``,
  a ``gen_ai.request.model``, kind ``LLM``, or recorded messages.

Turns: each *outermost* agent span holding LLM or tool spans is one invocation; agent spans nested inside it
(sub-agents, transfers) are folded into that turn. Without agent spans, the top-level LLM spans are grouped into
turns by their latest user message (an agent loop re-sends the same user message with growing history).

Inside a turn: the subtree of a tool span is opaque (an agent-as-tool's inner calls belong to that tool), and an
LLM span nested in another (an OpenAI client span inside ADK's ``call_llm``) is ignored. The user text comes from
the first LLM span's latest user message, the final response from the last LLM span that answered with text, the
other assistant texts become intermediate responses, and tool calls come from the model's requests, completed by
the tool spans (arguments, results) in the order the model asked for them (:mod:`._tool_calls`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from ..model import Invocation, Message
from ._agents import OPENINFERENCE_KIND, agent_records, is_agent_span
from ._messages import (
    ChatMessage,
    input_messages,
    output_messages,
)
from ._spans import Span, Trace, ancestor_test
from ._tool_calls import turn_tools
from ._usage import turn_cost

__all__ = [
    "AGENTEVALS_CASE_ATTRIBUTE",
    "CAPTURE_HINT",
    "EVAL_ID_ATTRIBUTE",
    "TraceConversation",
    "extract_conversation",
    "is_genai_trace",
]

CAPTURE_HINT = "the spans carry no message content"
"""How the error of a turn without message content starts; :func:`capture_hint` adds the producer's setting."""


def capture_hint(spans: list[Span]) -> str:
    """The error of a turn without message content: the producer that wrote ``spans`` (see ``traces doctor``) and
    the exact setting that makes it record content."""
    from ._doctor import content_fix, producer_of

    producer = producer_of(spans)
    return f"{CAPTURE_HINT} ({producer}): {content_fix(producer)}"


EVAL_ID_ATTRIBUTE = "agentgauge.eval_id"
AGENTEVALS_CASE_ATTRIBUTE = "agentevals.eval.case.id"  # agentevals' explicit case attribute, read beside ours


@dataclass(slots=True)
class TraceConversation:
    """The conversation recorded in one trace: its invocations and what identifies it.

    ``eval_id`` is the ``agentgauge.eval_id`` (else agentevals' ``agentevals.eval.case.id``) attribute when a span
    (or resource) carries one, ``eval_id_attribute`` the one it came from; ``session_id`` the
    ``gen_ai.conversation.id`` / ADK session id; ``app_name`` the agent or service name; ``warnings`` what was
    guessed or left out.
    """

    trace_id: str
    source: str
    invocations: list[Invocation]
    eval_id: str = ""
    session_id: str = ""
    app_name: str = ""
    user_id: str = ""
    warnings: list[str] = field(default_factory=list)
    trace_ids: list[str] = field(default_factory=list)
    """The trace each invocation came from (several when traces were merged by session)."""
    eval_id_attribute: str = ""

    @property
    def first_user_text(self) -> str:
        """The first invocation's user message text ("" when there is none)."""
        return self.invocations[0].user_content.content if self.invocations else ""


def _is_tool(span: Span) -> bool:
    return (
        span.name.startswith("execute_tool")
        or span.operation == "execute_tool"
        or isinstance(span.attributes.get("gen_ai.tool.name"), str)
        or span.attributes.get(OPENINFERENCE_KIND) == "TOOL"
    )


_LLM_OPERATIONS = frozenset({"chat", "generate_content", "text_completion", "call_llm"})
_MESSAGE_KEYS = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.input.messages.otel",
    "gen_ai.output.messages.otel",
    "gen_ai.prompt.0.role",
    "gen_ai.prompt.0.content",
    "gen_ai.completion.0.role",
    "gen_ai.completion.0.content",
)


def _is_llm(span: Span) -> bool:
    if _is_tool(span) or is_agent_span(span):
        return False
    attrs = span.attributes
    return (
        span.name.startswith("call_llm")
        or span.operation in _LLM_OPERATIONS
        or "gen_ai.request.model" in attrs
        or attrs.get(OPENINFERENCE_KIND) == "LLM"
        or any(key in attrs for key in _MESSAGE_KEYS)
    )


def is_genai_trace(trace: Trace) -> bool:
    """True when the trace has an agent, LLM or tool span (anything this module can read a conversation from)."""
    return any(is_agent_span(s) or _is_tool(s) or _is_llm(s) for s in trace.spans)


def extract_conversation(trace: Trace) -> TraceConversation:
    """The invocations recorded in ``trace``.

    Raises :class:`~agentgauge.errors.InputError` (naming the file and trace) when the trace has agent or LLM
    spans but no message content to read (content capture off), or no turn at all.
    """
    where = f"trace {trace.trace_id}"
    turns = _turns(trace)
    if not turns:
        raise InputError("no agent, LLM or tool spans found", file=trace.source, location=where)
    conversation = TraceConversation(trace.trace_id, trace.source, [])
    for number, (anchor, spans) in enumerate(turns, start=1):
        conversation.invocations.append(_invocation(anchor, spans, trace, f"{where}, turn {number}", conversation))
    _identify(trace, conversation)
    conversation.trace_ids = [trace.trace_id] * len(conversation.invocations)
    return conversation


# --- turns ------------------------------------------------------------------------------------------------------


def _turns(trace: Trace) -> list[tuple[Span | None, list[Span]]]:
    """``(anchor span, spans of the turn)`` per turn, in time order."""
    # Ancestors are asked through tests that remember their answers: a trace nested thousands deep costs O(spans).
    nested = ancestor_test(lambda a: is_agent_span(a) or _is_tool(a))
    agents = [
        s
        for s in trace.walk()
        if is_agent_span(s) and not nested(s) and any(_is_llm(d) or _is_tool(d) for d in s.descendants())
    ]
    if agents:
        agents.sort(key=lambda s: s.start_ns)
        return [(agent, list(agent.descendants())) for agent in agents]
    # No agent spans: group the top-level LLM spans by their latest user message.
    in_llm, in_tool = ancestor_test(_is_llm), ancestor_test(_is_tool)
    llms = sorted((s for s in trace.spans if _is_llm(s) and not in_llm(s)), key=lambda s: s.start_ns)
    tools = sorted((s for s in trace.spans if _is_tool(s) and not in_tool(s)), key=lambda s: s.start_ns)
    groups: list[list[Span]] = []
    last_user: str | None = None
    for span in llms:
        user = _latest_user_text(input_messages(span))
        if not groups or (user and user != last_user):
            groups.append([])
        if user:
            last_user = user
        groups[-1].append(span)
    if not groups:
        return [(None, tools)] if tools else []
    # A tool span belongs to the turn of the last LLM call that started before it.
    for tool in tools:
        target = groups[0]
        for group in groups:
            if group[0].start_ns <= tool.start_ns:
                target = group
        target.append(tool)
    result: list[tuple[Span | None, list[Span]]] = []
    for group in groups:
        members = list(group)
        for span in group:
            members.extend(span.descendants())
        result.append((None, members))
    return result


def _latest_user_text(messages: list[ChatMessage]) -> str:
    for message in reversed(messages):
        if message.role == "user" and message.text.strip():
            return message.text
    return ""


# --- one invocation ---------------------------------------------------------------------------------------------


def _invocation(
    anchor: Span | None, spans: list[Span], trace: Trace, where: str, conversation: TraceConversation
) -> Invocation:
    members = {id(s) for s in spans}

    # Inside a tool span of this turn (an agent used as a tool): its inner calls belong to that tool.
    opaque = ancestor_test(lambda a: id(a) in members and _is_tool(a))
    in_llm = ancestor_test(lambda a: id(a) in members and _is_llm(a))
    llms = sorted((s for s in spans if _is_llm(s) and not opaque(s) and not in_llm(s)), key=lambda s: s.start_ns)
    tool_spans = sorted((s for s in spans if _is_tool(s) and not opaque(s)), key=lambda s: s.start_ns)
    inputs = [input_messages(s) for s in llms]
    outputs = [[m for m in output_messages(s) if m.role == "assistant"] for s in llms]

    user_text = ""
    for messages in inputs:
        user_text = _latest_user_text(messages)
        if user_text:
            break
    answers = [(i, "\n".join(m.text for m in out if m.text)) for i, out in enumerate(outputs)]
    answers = [(i, text) for i, text in answers if text.strip()]
    requested = [call for out in outputs for m in out for call in m.tool_calls]
    tools = turn_tools(requested, tool_spans, inputs, where, conversation.warnings)

    if not user_text and not answers and (llms or not tools):
        raise InputError(capture_hint(spans), file=trace.source, location=where)
    if not user_text:
        conversation.warnings.append(f"{where}: no user message recorded")
    final = Message(role="assistant", content=answers[-1][1]) if answers else None
    intermediate = [Message(role="assistant", content=text) for _, text in answers[:-1]]
    first = anchor if anchor is not None else (llms[0] if llms else tool_spans[0])
    cost = turn_cost(anchor, llms, tool_spans, spans)
    agents = agent_records([s for s in ([anchor] if anchor else []) + spans if is_agent_span(s) and not opaque(s)])
    return Invocation(
        invocation_id=_invocation_id(first, spans),
        user_content=Message(role="user", content=user_text),
        final_response=final,
        tools=tools,
        intermediate_responses=intermediate,
        creation_timestamp=first.start_ns / 1e9 if first.start_ns else None,
        duration=cost.duration,
        model_duration=cost.model_duration,
        tool_duration=cost.tool_duration,
        usage=cost.usage,
        agents=agents,
    )


def _invocation_id(first: Span, spans: list[Span]) -> str:
    for span in (first, *spans):
        value = span.attributes.get("gcp.vertex.agent.invocation_id")
        if isinstance(value, str) and value:
            return value
    return first.span_id


# --- identity ---------------------------------------------------------------------------------------------------


def _identify(trace: Trace, conversation: TraceConversation) -> None:
    agentevals_id = ""
    for span in trace.walk():
        if not conversation.eval_id:
            value = span.attr(EVAL_ID_ATTRIBUTE)
            if isinstance(value, str | int) and str(value):
                conversation.eval_id, conversation.eval_id_attribute = str(value), EVAL_ID_ATTRIBUTE
        if not agentevals_id:
            value = span.attr(AGENTEVALS_CASE_ATTRIBUTE)
            agentevals_id = str(value) if isinstance(value, str | int) else ""
        if not conversation.session_id:
            for key in ("gen_ai.conversation.id", "gcp.vertex.agent.session_id", "session.id"):
                value = span.attr(key)
                if isinstance(value, str) and value:
                    conversation.session_id = value
                    break
        if not conversation.app_name and is_agent_span(span):
            value = span.attr("gen_ai.agent.name")
            if isinstance(value, str) and value:
                conversation.app_name = value
        if not conversation.user_id:
            for key in ("user.id", "enduser.id"):
                value = span.attr(key)
                if isinstance(value, str) and value:
                    conversation.user_id = value
                    break
    if not conversation.eval_id and agentevals_id:  # ours wins when a trace carries both
        conversation.eval_id, conversation.eval_id_attribute = agentevals_id, AGENTEVALS_CASE_ATTRIBUTE
    if not conversation.app_name:
        for span in trace.walk():
            value = span.attr("service.name")
            if isinstance(value, str) and value and not value.startswith("unknown_service"):
                conversation.app_name = value
                break
