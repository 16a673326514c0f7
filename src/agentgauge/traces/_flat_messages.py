"""Messages written as flattened span attributes, one attribute per field: the older OpenLLMetry keys
(``gen_ai.prompt.N.role`` / ``.content`` / ``.tool_calls.M.*`` / ``.tool_call_id``, ``gen_ai.completion.N.*``) and
OpenInference's (``llm.input_messages.N.message.*``, ``llm.output_messages.N.message.*``)."""

from __future__ import annotations

import re
from typing import Any

from ._message_types import ChatMessage, MessageToolCall, ToolResponse, role_of, tool_arguments, tool_response
from ._spans import Span

__all__ = ["flattened_messages", "openinference_messages"]


_FLAT = re.compile(r"^(\d+)\.(.+)$")


def _indexed(span: Span, prefix: str, pattern: re.Pattern[str]) -> dict[int, dict[str, Any]]:
    """The attributes ``PREFIX.<N>.<field>`` of ``span`` (``pattern`` splits what follows the prefix into the
    index and the field), by index: ``{0: {"role": ..., "content": ...}, 1: ...}``."""
    fields: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in span.attributes.items():
        if key.startswith(start):
            match = pattern.match(key[len(start) :])
            if match:
                fields.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return fields


def flattened_messages(span: Span, prefix: str, default_role: str = "") -> list[ChatMessage]:
    """OpenLLMetry's ``gen_ai.prompt.0.role`` / ``.content`` / ``.tool_calls.0.name`` / ``.tool_call_id`` keys."""
    fields = _indexed(span, prefix, _FLAT)
    out = []
    for index in sorted(fields):
        entry = fields[index]
        message = ChatMessage(role_of(entry.get("role")) or default_role)
        content = entry.get("content")
        text = content if isinstance(content, str) else ""
        calls: dict[int, dict[str, Any]] = {}
        for key, value in entry.items():
            match = re.match(r"^tool_calls\.(\d+)\.(\w+)$", key)
            if match:
                calls.setdefault(int(match.group(1)), {})[match.group(2)] = value
        for c_index in sorted(calls):
            call = calls[c_index]
            message.tool_calls.append(
                MessageToolCall(
                    str(call.get("id") or ""), str(call.get("name", "")), tool_arguments(call.get("arguments"))
                )
            )
        if message.role == "tool" and entry.get("tool_call_id"):
            message.tool_responses.append(ToolResponse(str(entry["tool_call_id"]), "", tool_response(text)))
            text = ""
        message.text = text
        out.append(message)
    return out


_OPENINFERENCE = re.compile(r"^(\d+)\.message\.(.+)$")
_OPENINFERENCE_PART = re.compile(r"^contents\.(\d+)\.message_content\.text$")
_OPENINFERENCE_CALL = re.compile(r"^tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)$")


def openinference_messages(span: Span, prefix: str, default_role: str = "") -> list[ChatMessage]:
    """OpenInference's ``llm.input_messages.0.message.role`` / ``.content`` / ``.contents.0.message_content.text``
    / ``.tool_calls.0.tool_call.function.name`` / ``.tool_call_id`` keys, messages in index order."""
    fields = _indexed(span, prefix, _OPENINFERENCE)
    out = []
    for index in sorted(fields):
        entry = fields[index]
        message = ChatMessage(role_of(entry.get("role")) or default_role)
        parts: dict[int, str] = {}
        calls: dict[int, dict[str, Any]] = {}
        for key, value in entry.items():
            part = _OPENINFERENCE_PART.match(key)
            if part and isinstance(value, str):
                parts[int(part.group(1))] = value
            call_key = _OPENINFERENCE_CALL.match(key)
            if call_key:
                calls.setdefault(int(call_key.group(1)), {})[call_key.group(2)] = value
        content = entry.get("content")
        text = content if isinstance(content, str) else "\n".join(parts[i] for i in sorted(parts))
        for c_index in sorted(calls):
            call = calls[c_index]
            message.tool_calls.append(
                MessageToolCall(
                    str(call.get("id") or ""),
                    str(call.get("function.name", "")),
                    tool_arguments(call.get("function.arguments")),
                )
            )
        if message.role == "tool" and entry.get("tool_call_id"):
            message.tool_responses.append(
                ToolResponse(str(entry["tool_call_id"]), str(entry.get("name", "")), tool_response(text))
            )
            text = ""
        message.text = text
        out.append(message)
    return out
