"""Chat messages recorded on LLM spans, in every shape producers write, normalised to one small form.

Shapes read:
- ADK 1.x ``gcp.vertex.agent.llm_request`` (``contents[{role, parts[{text | function_call | function_response}]}]``)
  and ``gcp.vertex.agent.llm_response`` (``{content: {role, parts}}``);
- OpenTelemetry GenAI ``gen_ai.input.messages`` / ``gen_ai.output.messages``, parts-based (semconv >= 1.36:
  ``{role, parts[{type: text | tool_call | tool_call_response, ...}]}``) or content-based (OpenAI style:
  ``{role, content, tool_calls[{id, function{name, arguments}}], tool_call_id}``); trpc-agent-go's ``.otel`` keys;
- the older flattened OpenLLMetry attributes ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``;
- OpenInference's flattened ``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*`` (``role``,
  ``content`` or ``contents.M.message_content.text``, ``tool_calls.K.tool_call.{id,function.name,function.arguments}``,
  ``tool_call_id``);
- messages carried by span events (``gen_ai.input.messages`` on an event, or ``gen_ai.user.message`` /
  ``gen_ai.choice`` events).

The flattened shapes are read by :mod:`._flat_messages`; the normalised form is :mod:`._message_types`'s.
"""

from __future__ import annotations

from typing import Any

from ._flat_messages import flattened_messages, openinference_messages
from ._message_types import (
    ChatMessage,
    MessageToolCall,
    ToolResponse,
    is_withheld,
    parse_json_value,
    role_of,
    tool_arguments,
    tool_response,
)
from ._spans import Span

__all__ = [
    "ChatMessage",
    "MessageToolCall",
    "ToolResponse",
    "input_messages",
    "is_withheld",
    "output_messages",
    "parse_json_value",
]


def _items(value: Any) -> list[Any]:
    """``value`` when it is a list, else no items (recorded payloads are not trusted to be well-formed)."""
    return value if isinstance(value, list) else []


def input_messages(span: Span) -> list[ChatMessage]:
    """The messages sent to the model by this LLM span (history included), oldest first."""
    request = _adk_payload(span, "gcp.vertex.agent.llm_request")
    if isinstance(request, dict) and isinstance(request.get("contents"), list):
        return [m for m in (_adk_content(c) for c in request["contents"]) if m is not None]
    for key in ("gen_ai.input.messages.otel", "gen_ai.input.messages"):
        found = _message_list(span.attr(key))
        if found is not None:
            return found
    flat = flattened_messages(span, "gen_ai.prompt") or openinference_messages(span, "llm.input_messages")
    if flat:
        return flat
    return _event_messages(span, "input")


def output_messages(span: Span) -> list[ChatMessage]:
    """The model's answer recorded on this LLM span (normally one assistant message)."""
    response = _adk_payload(span, "gcp.vertex.agent.llm_response")
    if isinstance(response, dict) and isinstance(response.get("content"), dict):
        message = _adk_content(response["content"], default_role="assistant")
        return [message] if message is not None else []
    for key in ("gen_ai.output.messages.otel", "gen_ai.output.messages"):
        found = _message_list(span.attr(key), default_role="assistant")
        if found is not None:
            return found
    flat = flattened_messages(span, "gen_ai.completion", default_role="assistant")
    flat = flat or openinference_messages(span, "llm.output_messages", default_role="assistant")
    if flat:
        return flat
    return _event_messages(span, "output")


def _adk_payload(span: Span, key: str) -> Any:
    value = parse_json_value(span.attributes.get(key))
    # ADK writes "{}" on tool spans "for the UI": an empty object is no payload.
    return value if isinstance(value, dict) and value else None


def _get(obj: dict[str, Any], snake: str, camel: str) -> Any:
    return obj[snake] if snake in obj else obj.get(camel)


def _adk_content(content: Any, default_role: str = "") -> ChatMessage | None:
    if not isinstance(content, dict):
        return None
    message = ChatMessage(role_of(content.get("role")) or default_role)
    texts = []
    for index, part in enumerate(_items(content.get("parts"))):
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str) and not part.get("thought"):
            texts.append(part["text"])
        call = _get(part, "function_call", "functionCall")
        if isinstance(call, dict):
            name = str(call.get("name", ""))
            message.tool_calls.append(
                MessageToolCall(str(call.get("id") or f"{name}_{index}"), name, call.get("args") or {})
            )
        response = _get(part, "function_response", "functionResponse")
        if isinstance(response, dict):
            name = str(response.get("name", ""))
            message.tool_responses.append(ToolResponse(str(response.get("id") or ""), name, response.get("response")))
    message.text = "\n".join(texts)
    if message.tool_responses and message.role == "user":
        message.role = "tool"  # ADK sends function responses in user-role contents: they are not user turns
    return message


def _message_list(raw: Any, default_role: str = "") -> list[ChatMessage] | None:
    value = parse_json_value(raw)
    if is_withheld(value):
        return None
    if isinstance(value, dict):
        value = value.get("messages", [value])
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        message = _semconv_message(item, default_role)
        if message is not None:
            out.append(message)
    return out


def _semconv_message(item: Any, default_role: str) -> ChatMessage | None:
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("message"), dict):  # an OpenAI-style choice {index, message, finish_reason}
        return _semconv_message(item["message"], default_role)
    message = ChatMessage(role_of(item.get("role")) or default_role)
    texts: list[str] = []
    if isinstance(item.get("parts"), list):
        for part in item["parts"]:
            _semconv_part(part, message, texts)
    content = item.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            else:
                _semconv_part(part, message, texts)
    for call in _items(item.get("tool_calls") or item.get("toolCalls")):
        if isinstance(call, dict):
            function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
            message.tool_calls.append(
                MessageToolCall(
                    str(call.get("id") or ""),
                    str(function.get("name", "")),
                    tool_arguments(function.get("arguments", function.get("args"))),
                )
            )
    call_id = item.get("tool_call_id") or item.get("toolCallId")
    if call_id and message.role == "tool":
        message.tool_responses.append(
            ToolResponse(str(call_id), str(item.get("name", "")), tool_response("\n".join(texts)))
        )
        texts = []
    message.text = "\n".join(t for t in texts if t)
    if message.tool_responses and message.role == "user" and not message.text:
        message.role = "tool"
    return message


def _semconv_part(part: Any, message: ChatMessage, texts: list[str]) -> None:
    if not isinstance(part, dict):
        return
    kind = part.get("type")
    text = part.get("content", part.get("text"))
    if kind in ("text", "input_text", "output_text", None) and isinstance(text, str):
        texts.append(text)
    elif kind in ("tool_call", "function_call", "tool_use"):
        message.tool_calls.append(
            MessageToolCall(
                str(part.get("id") or ""),
                str(part.get("name", "")),
                tool_arguments(part.get("arguments", part.get("input"))),
            )
        )
    elif kind in ("tool_call_response", "function_call_output", "tool_result"):
        message.tool_responses.append(
            ToolResponse(
                str(part.get("id") or part.get("tool_use_id") or ""),
                str(part.get("name", "")),
                tool_response(part.get("response", part.get("result", part.get("content")))),
            )
        )


def _event_messages(span: Span, direction: str) -> list[ChatMessage]:
    """Messages carried by span events: a ``gen_ai.input.messages`` / ``gen_ai.output.messages`` attribute on an
    event (Strands), or the older per-message events ``gen_ai.{system,user,assistant,tool}.message`` and
    ``gen_ai.choice``."""
    key = f"gen_ai.{direction}.messages"
    out: list[ChatMessage] = []
    for event in span.events:
        if key in event.attributes:
            found = _message_list(event.attributes[key], "assistant" if direction == "output" else "")
            if found:
                return found
        if direction == "input" and event.name in (
            "gen_ai.system.message",
            "gen_ai.user.message",
            "gen_ai.assistant.message",
            "gen_ai.tool.message",
        ):
            body = dict(event.attributes)
            body.setdefault("role", event.name.split(".")[1])
            message = _semconv_message(_event_body(body), "")
            if message is not None:
                out.append(message)
        elif direction == "output" and event.name == "gen_ai.choice":
            message = _semconv_message(_event_body(dict(event.attributes)), "assistant")
            if message is not None:
                out.append(message)
    return out


def _event_body(attrs: dict[str, Any]) -> dict[str, Any]:
    """Event attributes as a message: ``content`` / ``message`` may be JSON strings."""
    for key in ("message", "content", "tool_calls"):
        if key in attrs:
            parsed = parse_json_value(attrs[key])
            if key == "message" and isinstance(parsed, dict):
                return {**parsed, "role": parsed.get("role", attrs.get("role", "assistant"))}
            if key != "content" or not isinstance(parsed, (int, float)):
                attrs[key] = parsed
    return attrs
