"""The normalised form every message reader produces (:class:`ChatMessage` with its tool calls and responses), and
the value helpers they share: JSON payloads parsed defensively, payloads a producer withheld, roles normalised."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ChatMessage",
    "MessageToolCall",
    "ToolResponse",
    "is_withheld",
    "parse_json_value",
    "role_of",
    "tool_arguments",
    "tool_response",
]


@dataclass(slots=True)
class MessageToolCall:
    """A tool call the model requested, as read from a traced message (not :class:`agentgauge.agents.ToolCall`,
    the event an agent yields)."""

    id: str
    name: str
    arguments: Any


@dataclass(slots=True)
class ToolResponse:
    """A tool's answer as fed back to the model."""

    id: str
    name: str
    response: Any


@dataclass(slots=True)
class ChatMessage:
    """A normalised message: role ``system | user | assistant | tool``, its text, tool calls and tool responses."""

    role: str
    text: str = ""
    tool_calls: list[MessageToolCall] = field(default_factory=list)
    tool_responses: list[ToolResponse] = field(default_factory=list)


def parse_json_value(value: Any) -> Any:
    """A JSON string parsed (other values unchanged); a string that is not JSON, or whose JSON nests deeper than
    :data:`~agentgauge.formats._jsonio.MAX_VALUE_DEPTH` levels (it could not be saved or shown), stays a string."""
    if isinstance(value, (str, bytes)):
        import orjson

        from ..formats._jsonexact import loads  # integers beyond 64 bits stay exact
        from ..formats._jsonio import MAX_VALUE_DEPTH, nests_deeper

        try:
            parsed = loads(value)
        except orjson.JSONDecodeError:
            return value
        if type(parsed) in (dict, list) and nests_deeper(parsed, MAX_VALUE_DEPTH):
            return value
        return parsed
    return value


def is_withheld(value: Any) -> bool:
    """Whether a recorded payload was withheld by its producer: trpc-agent-go's span attribute policy writes
    ``{"omitted": true}`` (``Omit()``) or ``{"truncated": true, "prefix": ...}`` (``Truncate(n)``) instead of the
    value, which is then not content to read."""
    value = parse_json_value(value)
    return (
        isinstance(value, dict)
        and (value.get("omitted") is True or value.get("truncated") is True)
        and not {"messages", "role", "parts", "content"} & value.keys()
    )


_ROLES = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "model": "assistant",
    "ai": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
}


def role_of(value: Any) -> str:
    """A recorded role as one of ``system``, ``user``, ``assistant``, ``tool`` (``""``: unknown)."""
    return _ROLES.get(str(value or "").lower(), "")


def tool_arguments(value: Any) -> Any:
    """A tool call's recorded arguments, parsed (``{}`` when none)."""
    parsed = parse_json_value(value)
    return {} if parsed is None or parsed == "" else parsed


def tool_response(value: Any) -> Any:
    """A tool's recorded answer, parsed."""
    return parse_json_value(value)
