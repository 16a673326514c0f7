"""The AG-UI events of one run as an :class:`~agentgauge.agents.AgentOutput`, and the conversation as AG-UI
messages.

Events (``ag_ui.core`` types, validated one by one):

- ``TEXT_MESSAGE_START`` / ``CONTENT`` / ``END`` and ``TEXT_MESSAGE_CHUNK``: text messages, by message id; the last
  one is the final response, the others intermediate responses (reasoning events are not answer text);
- ``TOOL_CALL_START`` / ``ARGS`` / ``END`` and ``TOOL_CALL_CHUNK``: tool calls, arguments streamed as JSON text;
  ``TOOL_CALL_RESULT``: the result of a call by id (JSON text is parsed);
- ``RUN_FINISHED`` ends the run (its ``usage`` entries are summed), ``RUN_ERROR`` fails it;
- state, snapshot, step, activity, custom and raw events, and event types this version does not know, are skipped.
"""

from __future__ import annotations

import json
from typing import Any

from ...errors import AgentError
from ...model import Invocation, Message, TokenUsage, Tool
from .._types import AgentOutput

__all__ = ["AguiTurn", "agui_messages"]


def _maybe_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(getattr(part, "text", "") or "" for part in content or [])


def _add(total: int | None, value: int | None) -> int | None:
    return total if value is None else (total or 0) + value


class AguiTurn:
    """Folds the events of one AG-UI run; :meth:`output` gives the invocation once ``finished``."""

    def __init__(self) -> None:
        self.finished = False
        self.error: str | None = None
        self.tools: list[Tool] = []
        self._texts: dict[str, list[str]] = {}
        self._open_text: str | None = None
        self._echoes: set[str] = set()
        self._args: dict[str, list[str]] = {}
        self._open_call: str | None = None
        self._usage: TokenUsage | None = None

    def add(self, event: Any) -> None:
        """Fold one validated ``ag_ui.core`` event."""
        kind = event.type.value
        if kind in ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK"):
            self._text(kind, event)
        elif kind.startswith("TOOL_CALL_"):
            self._tool(kind, event)
        elif kind == "RUN_FINISHED":
            self.finished = True
            self._count(event.usage)
        elif kind == "RUN_ERROR":
            self.error = f"{event.code}: {event.message}" if event.code else event.message
            self.finished = True

    def _text(self, kind: str, event: Any) -> None:
        message_id = getattr(event, "message_id", None) or self._open_text
        if kind == "TEXT_MESSAGE_END":
            self._open_text = None
            return
        if message_id is None:
            raise AgentError(f"AG-UI {kind} outside any text message")
        self._open_text = message_id
        if getattr(event, "role", None) not in (None, "assistant"):
            self._echoes.add(message_id)  # a user or system echo is not the agent's answer
        if message_id in self._echoes:
            return
        self._texts.setdefault(message_id, [])
        delta = getattr(event, "delta", None)
        if delta:
            self._texts[message_id].append(delta)

    def _tool(self, kind: str, event: Any) -> None:
        if kind == "TOOL_CALL_RESULT":
            tool = self._call(event.tool_call_id, kind)
            tool.result = _maybe_json(_content_text(event.content))
            return
        call_id = getattr(event, "tool_call_id", None) or self._open_call
        if call_id is None:
            raise AgentError(f"AG-UI {kind} outside any tool call")
        if call_id not in self._args:
            name = getattr(event, "tool_call_name", None)
            if not name:
                raise AgentError(f"AG-UI {kind} opens tool call {call_id!r} without a name")
            self._args[call_id] = []
            self.tools.append(Tool(id=call_id, name=name, arguments={}))
        self._open_call = call_id
        delta = getattr(event, "delta", None)
        if delta:
            self._args[call_id].append(delta)
        if kind == "TOOL_CALL_END":
            self._open_call = None
        text = "".join(self._args[call_id])
        self._call(call_id, kind).arguments = _maybe_json(text) if text else {}

    def _call(self, call_id: str, kind: str) -> Tool:
        for tool in self.tools:
            if tool.id == call_id:
                return tool
        raise AgentError(f"AG-UI {kind} for unknown tool call {call_id!r}")

    def _count(self, usage: Any) -> None:
        for entry in usage or []:
            total = self._usage = self._usage or TokenUsage()
            total.input_tokens = _add(total.input_tokens, entry.input_tokens)
            total.output_tokens = _add(total.output_tokens, entry.output_tokens)
            total.cached_tokens = _add(total.cached_tokens, entry.cached_input_tokens)
            total.reasoning_tokens = _add(total.reasoning_tokens, entry.reasoning_tokens)
            total.total_tokens = _add(total.total_tokens, entry.total_tokens)
            total.model = entry.model or total.model

    def output(self) -> AgentOutput:
        """The invocation: the last text message is the final response."""
        texts = [Message(role="assistant", content="".join(parts)) for parts in self._texts.values()]
        texts = [message for message in texts if message.content]
        final = texts.pop() if texts else None
        return AgentOutput(final_response=final, tools=self.tools, intermediate_responses=texts, usage=self._usage)


def agui_messages(history: list[Invocation], context: list[Message], text: str, turn: int) -> list[dict[str, Any]]:
    """The conversation so far as AG-UI messages (JSON, camelCase): context messages, each earlier turn (user
    message, assistant tool calls, tool results, intermediate and final answers), then the new user message.

    Servers that keep the thread themselves (trpc-agent-go) read only the last user message; stateless ones read
    all of it.
    """
    messages: list[dict[str, Any]] = []
    for index, message in enumerate(context):
        role = message.role if message.role in ("system", "user", "assistant", "developer") else "user"
        messages.append({"id": f"context-{index}", "role": role, "content": message.content})
    for number, invocation in enumerate(history, start=1):
        messages.append({"id": f"user-{number}", "role": "user", "content": invocation.user_content.content})
        if invocation.tools:
            calls = [
                {"id": t.id, "type": "function", "function": {"name": t.name, "arguments": json.dumps(t.arguments)}}
                for t in invocation.tools
            ]
            messages.append({"id": f"calls-{number}", "role": "assistant", "toolCalls": calls})
            for tool in invocation.tools:
                result = tool.result if isinstance(tool.result, str) else json.dumps(tool.result)
                messages.append({"id": f"result-{tool.id}", "role": "tool", "toolCallId": tool.id, "content": result})
        for index, reply in enumerate(invocation.intermediate_responses or []):
            messages.append({"id": f"step-{number}-{index}", "role": "assistant", "content": reply.content})
        if invocation.final_response is not None:
            messages.append(
                {"id": f"answer-{number}", "role": "assistant", "content": invocation.final_response.content}
            )
    messages.append({"id": f"user-{turn}", "role": "user", "content": text})
    return messages
