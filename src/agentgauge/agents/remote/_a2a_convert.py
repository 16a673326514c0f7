"""What an A2A agent sends for one message (a task, messages, status and artifact updates) as an
:class:`~agentgauge.agents.AgentOutput`.

The items are plain JSON objects (``dict``: what JSON parsers and :func:`~._a2a_json.proto_json` give; tested with
``isinstance(..., dict)``, which is ten times cheaper than against ``Mapping`` on every field of every event), in
either protocol generation: A2A 1.0 (``{"statusUpdate": {...}}``,
``"TASK_STATE_COMPLETED"``, ``"ROLE_AGENT"``, parts ``{"text": ...}`` / ``{"data": ...}``) or A2A 0.3
(``{"kind": "status-update", ...}``, ``"completed"``, ``"agent"``, parts ``{"kind": "text", ...}``). Nothing here
imports ``a2a``, so the rules are tested on plain data.

Understood shapes (see docs/agents.md, "A2A"):

- a text part is answer text, except when its metadata marks it as reasoning (``adk_thought`` / ``thought``);
- a data part whose metadata ``adk_type`` (google-adk's converter) or ``type`` (trpc-agent-go) is
  ``function_call`` is a tool call: ``{"id", "name", "args"}`` (``args`` an object or a JSON string);
  ``function_response`` is its result: ``{"id", "name", "response"}`` (an object or a JSON string), matched by id,
  else the latest unanswered call of that name; other data parts without such a type are answer text (their JSON);
- token usage: ``adk_usage_metadata`` (google-adk's genai usage metadata, camelCase or snake_case) in the metadata
  of a status or artifact update, a message or an artifact; each item that carries it counts one model call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import AgentError
from ...model import Message, TokenUsage, Tool, new_tool_id
from ...model._usage import add_adk_usage
from .._types import AgentOutput

__all__ = ["FAILED_STATES", "TERMINAL_STATES", "A2aTurn", "task_state"]

TERMINAL_STATES = frozenset({"completed", "failed", "canceled", "rejected", "input_required", "auth_required"})
"""States after which the agent sends nothing more for this message (the interrupted ones wait for the user)."""
FAILED_STATES = frozenset({"failed", "canceled", "rejected"})

_KINDS = {"task": "task", "message": "message", "statusUpdate": "status-update", "artifactUpdate": "artifact-update"}
# trpc-agent-go streams answer text as artifact updates of one artifact id without ``append``; this object type
# marks such a delta (every later chunk continues the text instead of replacing it).
_CHUNK_OBJECT_TYPE = "chat.completion.chunk"


def task_state(value: Any) -> str:
    """A task state in one spelling: ``TASK_STATE_INPUT_REQUIRED`` / ``input-required`` → ``input_required``."""
    text = str(value or "").lower().replace("-", "_")
    return text.removeprefix("task_state_")


def _unwrap(item: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    kind = item.get("kind")
    if isinstance(kind, str):
        return kind, item
    for key, name in _KINDS.items():
        body = item.get(key)
        if isinstance(body, dict):
            return name, body
    raise AgentError(f"unknown A2A stream item with keys {sorted(item)[:6]}")


def _meta(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _is_agent(message: Mapping[str, Any]) -> bool:
    return str(message.get("role", "")).lower().removeprefix("role_") != "user"


def _maybe_json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _lookup(key: str, *metas: Mapping[str, Any]) -> Any:
    for meta in metas:
        value = meta.get(f"adk_{key}", meta.get(key))
        if value is not None:
            return value
    return None


@dataclass
class _Segment:
    """Text the agent sent: ``progress`` (a message or a status message) or one ``artifact`` (a task output)."""

    kind: str
    text: str
    author: str | None


class A2aTurn:
    """Accumulates the items an A2A agent sends for one user message; :meth:`output` gives the invocation.

    The final response is the text of the last artifact holding text (A2A's task outputs), else the last text
    the agent sent; every other text is an intermediate response. A status message repeating the final answer
    just before it (google-adk sends the last event both as a status message and as the closing artifact) is not
    counted twice.
    """

    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self.state: str | None = None
        self.context_id: str | None = None
        self.task_id: str | None = None
        self.error_text = ""
        self.ended = False  # a terminal state or a bare message answer was seen
        self._answered: set[int] = set()
        self._segments: list[_Segment] = []
        self._artifacts: dict[str, _Segment] = {}
        self._messages: set[str] = set()
        self._usage: TokenUsage | None = None

    def add(self, item: Mapping[str, Any]) -> None:
        """Fold one stream item (a task, message, status update or artifact update) into the turn."""
        kind, body = _unwrap(item)
        self.context_id = body.get("contextId") or body.get("context_id") or self.context_id
        if kind == "message":
            self._message(body, {})
            self.ended = True
            return
        if kind == "task":
            self.task_id = body.get("id") or self.task_id
            for message in body.get("history") or []:
                self._message(message, {})
            for artifact in body.get("artifacts") or []:
                self._artifact(artifact, append=False, event_meta={})
            self._status(body.get("status"), _meta(body.get("metadata")))
        elif kind == "status-update":
            self.task_id = body.get("taskId") or body.get("task_id") or self.task_id
            self._status(body.get("status"), _meta(body.get("metadata")))
        elif kind == "artifact-update":
            self.task_id = body.get("taskId") or body.get("task_id") or self.task_id
            self._artifact(
                _meta(body.get("artifact")), append=bool(body.get("append")), event_meta=_meta(body.get("metadata"))
            )
        else:
            raise AgentError(f"unknown A2A stream item kind {kind!r}")

    def _status(self, status: Any, event_meta: Mapping[str, Any]) -> None:
        status = _meta(status)
        state = task_state(status.get("state"))
        message = _meta(status.get("message"))
        if state in FAILED_STATES:
            texts = [p.get("text") for p in message.get("parts") or [] if isinstance(p, dict)]
            self.error_text = " ".join(t for t in texts if isinstance(t, str)) or self.error_text
            self._count_usage(event_meta, _meta(message.get("metadata")))
        elif message:
            self._message(message, event_meta)
        else:
            self._count_usage(event_meta)
        if state:
            self.state = state
            self.ended = self.ended or state in TERMINAL_STATES

    def _message(self, message: Mapping[str, Any], event_meta: Mapping[str, Any]) -> None:
        message_id = message.get("messageId") or message.get("message_id")
        if message_id and message_id in self._messages:
            return  # a task snapshot repeating a message already streamed
        if message_id:
            self._messages.add(message_id)
        if not _is_agent(message):
            return
        meta = _meta(message.get("metadata"))
        self._count_usage(event_meta, meta)
        text = self._parts(message.get("parts") or [])
        if text:
            author = _lookup("author", meta, event_meta)
            self._segments.append(_Segment("progress", text, author if isinstance(author, str) else None))

    def _artifact(self, artifact: Mapping[str, Any], *, append: bool, event_meta: Mapping[str, Any]) -> None:
        meta = _meta(artifact.get("metadata"))
        self._count_usage(event_meta, meta)
        text = self._parts(artifact.get("parts") or [])
        key = artifact.get("artifactId") or artifact.get("artifact_id")
        if not key:
            key = f"#{len(self._artifacts)}"
        existing = self._artifacts.get(key)
        if existing is not None:
            chunked = append or _lookup("object_type", event_meta, meta) == _CHUNK_OBJECT_TYPE
            existing.text = existing.text + text if chunked else text
            return
        if not text:
            return
        author = _lookup("author", meta, event_meta)
        segment = _Segment("artifact", text, author if isinstance(author, str) else None)
        self._artifacts[key] = segment
        self._segments.append(segment)

    def _parts(self, parts: list[Any]) -> str:
        """Record the tool parts; the answer text of the others."""
        texts: list[str] = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            meta = _meta(part.get("metadata"))
            if isinstance(part.get("text"), str):
                if not _lookup("thought", meta):
                    texts.append(part["text"])
            elif "data" in part:
                kind = _lookup("type", meta)
                data = _meta(part.get("data"))
                if kind == "function_call":
                    self._call(data)
                elif kind == "function_response":
                    self._response(data)
                elif kind is None:
                    texts.append(json.dumps(part.get("data"), ensure_ascii=False))
        return "".join(texts)

    def _call(self, data: Mapping[str, Any]) -> None:
        call_id = data.get("id")
        if call_id and any(tool.id == call_id for tool in self.tools):
            return  # the same call again (a closing artifact repeating the last event)
        arguments = _maybe_json(data["args"] if "args" in data else data.get("arguments", {}))
        self.tools.append(Tool(id=call_id or new_tool_id(), name=str(data.get("name") or ""), arguments=arguments))

    def _response(self, data: Mapping[str, Any]) -> None:
        call_id, name = data.get("id"), data.get("name")
        candidates = [i for i, tool in enumerate(self.tools) if call_id and tool.id == call_id]
        if not candidates:
            candidates = [i for i, t in enumerate(self.tools) if i not in self._answered and t.name == name]
        if not candidates:
            raise AgentError(f"A2A function response for {name!r} (id {call_id!r}) without a matching call")
        index = candidates[-1]
        self.tools[index].result = _maybe_json(data.get("response"))
        self._answered.add(index)

    def _count_usage(self, *metas: Mapping[str, Any]) -> None:
        for meta in metas:
            usage = _maybe_json(meta.get("adk_usage_metadata"))
            if isinstance(usage, dict):
                self._usage = self._usage or TokenUsage(model_calls=0)
                self._usage.model_calls = (self._usage.model_calls or 0) + 1
                add_adk_usage(self._usage, usage)
                return

    def output(self) -> AgentOutput:
        """The invocation: final response, intermediate responses, tools and usage (when reported)."""
        texts = [s for s in self._segments if s.text]
        artifacts = [s for s in texts if s.kind == "artifact"]
        final = artifacts[-1] if artifacts else (texts[-1] if texts else None)
        others = [s for s in texts if s is not final]
        if final is not None and final.kind == "artifact":
            progress = [s for s in others if s.kind == "progress"]
            if progress and progress[-1].text == final.text and texts.index(progress[-1]) < texts.index(final):
                others.remove(progress[-1])
        return AgentOutput(
            final_response=_message(final) if final is not None else None,
            tools=self.tools,
            intermediate_responses=[_message(s) for s in others],
            usage=self._usage,
        )


def _message(segment: _Segment) -> Message:
    if segment.author:
        return Message(role="assistant", content=segment.text, author=segment.author)
    return Message(role="assistant", content=segment.text)
