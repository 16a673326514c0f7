"""A small event vocabulary for streaming agents, and the collector that turns events into an AgentOutput.

An agent written as a generator yields these events (or their plain-data forms):

========================  ===========================================================  ============================
event                     meaning                                                      dict form (``"type"`` key)
========================  ===========================================================  ============================
``str`` / ``TextDelta``   a piece of answer text, appended to the current text         ``text_delta`` + ``text``
``FinalText``             the answer text, replacing what was streamed since the last  ``final_text`` + ``text``
                          tool call
``ToolCall``              the agent calls a tool; text streamed before it becomes an   ``tool_call`` + ``name``,
                          intermediate response                                        ``arguments``, ``id``
``ToolResult``            the result of a call, matched by ``id`` (else the latest     ``tool_result`` + ``result``,
                          unanswered call named ``name``, else the latest unanswered    ``id``, ``name``
                          call)
``IntermediateMessage``   an intermediate message recorded as such                     ``intermediate`` + ``text``,
                                                                                       ``role``
``Tool``                  a complete call with its result                              –
========================  ===========================================================  ============================

The final response is the text streamed after the last tool call (``None`` when there is none). Tool arguments
given as a JSON string are parsed (an empty string means ``{}``; text that is not JSON is kept as is).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import AgentError
from ..model import Message, Tool, new_tool_id
from ._types import AgentOutput

__all__ = [
    "AgentEvent",
    "FinalText",
    "IntermediateMessage",
    "TextDelta",
    "ToolCall",
    "ToolResult",
    "collect_events",
    "collect_events_sync",
]


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of answer text, appended to the text streamed so far."""

    text: str


@dataclass(frozen=True, slots=True)
class FinalText:
    """The complete answer text; replaces whatever was streamed since the last tool call."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool call. ``arguments`` may be a JSON value or a JSON string; ``id`` is generated when absent."""

    name: str
    arguments: Any = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The result of an earlier :class:`ToolCall`, matched by ``id``, else by ``name``, else the latest call."""

    result: Any
    id: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class IntermediateMessage:
    """A message the agent produced on the way to its answer (recorded in ``intermediate_responses``)."""

    text: str
    role: Literal["assistant", "tool", "system", "user"] = "assistant"


AgentEvent = TextDelta | FinalText | ToolCall | ToolResult | IntermediateMessage | Tool | str | dict[str, Any]
"""Anything an event-streaming agent may yield."""


def _parse_arguments(arguments: Any) -> Any:
    if not isinstance(arguments, str):
        return {} if arguments is None else arguments
    if not arguments.strip():
        return {}
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _from_dict(event: dict[str, Any]) -> AgentEvent:
    kind = event.get("type")
    try:
        if kind == "text_delta":
            return TextDelta(str(event["text"]))
        if kind == "final_text":
            return FinalText(str(event["text"]))
        if kind == "tool_call":
            return ToolCall(str(event["name"]), event.get("arguments", {}), event.get("id"))
        if kind == "tool_result":
            return ToolResult(event.get("result"), event.get("id"), event.get("name"))
        if kind == "intermediate":
            return IntermediateMessage(str(event["text"]), event.get("role", "assistant"))
    except KeyError as exc:
        raise AgentError(f"agent event {event!r} lacks the key {exc.args[0]!r}") from None
    raise AgentError(
        f"agent event {event!r} has unknown type {kind!r}: expected text_delta, final_text, tool_call, "
        "tool_result or intermediate"
    )


class _Collector:
    """Accumulates events into an :class:`AgentOutput`."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.tools: list[Tool] = []
        self.answered: set[int] = set()
        self.intermediate: list[Message] = []

    def add(self, event: object) -> None:
        if isinstance(event, dict):
            event = _from_dict(event)
        if isinstance(event, str):
            self.text.append(event)
        elif isinstance(event, TextDelta):
            self.text.append(event.text)
        elif isinstance(event, FinalText):
            self.text = [event.text]
        elif isinstance(event, ToolCall):
            self._flush_text()
            self.tools.append(
                Tool(id=event.id or new_tool_id(), name=event.name, arguments=_parse_arguments(event.arguments))
            )
        elif isinstance(event, Tool):
            self._flush_text()
            self.tools.append(event)
            self.answered.add(len(self.tools) - 1)
        elif isinstance(event, ToolResult):
            index = self._match(event)
            self.tools[index].result = event.result
            self.answered.add(index)
        elif isinstance(event, IntermediateMessage):
            self.intermediate.append(Message(role=event.role, content=event.text))
        else:
            raise AgentError(
                f"agent yielded {type(event).__name__}: expected str, TextDelta, FinalText, ToolCall, ToolResult, "
                "IntermediateMessage, Tool or an event dict"
            )

    def _flush_text(self) -> None:
        text = "".join(self.text)
        if text:
            self.intermediate.append(Message(role="assistant", content=text))
        self.text = []

    def _match(self, result: ToolResult) -> int:
        pending = [i for i in range(len(self.tools)) if i not in self.answered]
        if result.id is not None:
            for i, tool in enumerate(self.tools):
                if tool.id == result.id:
                    return i
            raise AgentError(f"tool result for unknown tool call id {result.id!r}")
        if result.name is not None:
            named = [i for i in pending if self.tools[i].name == result.name]
            if named:
                return named[-1]
            raise AgentError(f"tool result for {result.name!r} without a pending call to that tool")
        if pending:
            return pending[-1]
        raise AgentError("tool result without a pending tool call")

    def output(self) -> AgentOutput:
        text = "".join(self.text)
        return AgentOutput(
            final_response=Message(role="assistant", content=text) if text else None,
            tools=self.tools,
            intermediate_responses=self.intermediate,
        )


async def collect_events(events: AsyncIterable[object]) -> AgentOutput:
    """Consume an async stream of agent events and return the resulting :class:`AgentOutput`."""
    collector = _Collector()
    async for event in events:
        collector.add(event)
    return collector.output()


def collect_events_sync(events: Iterable[object]) -> AgentOutput:
    """Consume a synchronous iterable of agent events and return the resulting :class:`AgentOutput`."""
    collector = _Collector()
    for event in events:
        collector.add(event)
    return collector.output()
