"""ADK events of one invocation as an :class:`AgentOutput`, from ADK ``Event`` objects (in-process agents) or from
their JSON form (ADK's HTTP API), through one neutral view so both give the same invocation and the same scores.

Nothing here imports ``google.adk``: the in-process view reads the event's attributes, the JSON view reads the
camelCase keys ADK's API sends (``Event.model_dump(by_alias=True, exclude_none=True)``; snake_case is accepted
too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import AgentError
from ..model import Message, Tool, new_tool_id
from ..model._usage import usage_from_adk_events
from ._types import AgentOutput

__all__ = ["AdkEventView", "AdkPartView", "adk_views_to_output", "view_of_adk_event", "view_of_adk_json"]


@dataclass(frozen=True)
class AdkPartView:
    """One part of an event's content: text, a function call or a function response."""

    kind: Literal["text", "call", "response", "other"]
    text: str = ""
    thought: bool = False
    name: str = ""
    id: str | None = None
    payload: Any = None  # the call's arguments or the response's body


@dataclass(frozen=True)
class AdkEventView:
    """What the conversion reads of one ADK event. ``final`` is ADK's ``Event.is_final_response()``; ``raw`` is
    the event itself, for token usage (:func:`usage_from_adk_events` reads objects and dicts alike)."""

    author: str | None
    partial: bool
    error_code: str | None
    error_message: str | None
    final: bool
    parts: list[AdkPartView] = field(default_factory=list)
    raw: Any = None


def view_of_adk_event(event: Any) -> AdkEventView:
    """The view of an ADK ``Event`` object."""
    parts: list[AdkPartView] = []
    for part in event.content.parts if event.content and event.content.parts else []:
        if part.function_call is not None:
            call = part.function_call
            parts.append(AdkPartView("call", name=call.name or "", id=call.id, payload=call.args))
        elif part.function_response is not None:
            response = part.function_response
            parts.append(AdkPartView("response", name=response.name or "", id=response.id, payload=response.response))
        elif part.text:
            parts.append(AdkPartView("text", text=part.text, thought=bool(part.thought)))
        else:
            parts.append(AdkPartView("other"))
    return AdkEventView(
        author=event.author,
        partial=bool(event.partial),
        error_code=event.error_code or None,
        error_message=event.error_message or None,
        final=bool(event.is_final_response()),
        parts=parts,
        raw=event,
    )


def _get(data: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = data.get(camel)
    return data.get(snake) if value is None else value


def _json_part(part: Any) -> AdkPartView:
    if not isinstance(part, Mapping):
        return AdkPartView("other")
    call = _get(part, "functionCall", "function_call")
    if isinstance(call, Mapping):
        return AdkPartView("call", name=str(call.get("name") or ""), id=call.get("id"), payload=call.get("args"))
    response = _get(part, "functionResponse", "function_response")
    if isinstance(response, Mapping):
        name = str(response.get("name") or "")
        return AdkPartView("response", name=name, id=response.get("id"), payload=response.get("response"))
    text = part.get("text")
    if isinstance(text, str) and text:
        return AdkPartView("text", text=text, thought=bool(part.get("thought")))
    return AdkPartView("other")


def view_of_adk_json(data: Mapping[str, Any]) -> AdkEventView:
    """The view of one event as ADK's HTTP API sends it; ``final`` follows ``Event.is_final_response()``:
    a skipped summarization or a long-running tool is final; else an error without function calls; else an event
    with neither function calls nor responses, not partial and not ending in a code execution result."""
    content = data.get("content")
    raw_parts = content.get("parts") if isinstance(content, Mapping) else None
    raw_parts = raw_parts if isinstance(raw_parts, list) else []
    parts = [_json_part(part) for part in raw_parts]
    partial = bool(data.get("partial"))
    error_code = _get(data, "errorCode", "error_code")
    calls = any(p.kind == "call" for p in parts)
    responses = any(p.kind == "response" for p in parts)
    actions = data.get("actions")
    skip = isinstance(actions, Mapping) and bool(_get(actions, "skipSummarization", "skip_summarization"))
    last = raw_parts[-1] if raw_parts else None
    trailing_code_result = isinstance(last, Mapping) and (
        _get(last, "codeExecutionResult", "code_execution_result") is not None
    )
    long_running = bool(_get(data, "longRunningToolIds", "long_running_tool_ids"))
    if skip or long_running or (error_code and not partial and not calls):
        final = True
    else:
        final = not calls and not responses and not partial and not trailing_code_result
    author = data.get("author")
    message = _get(data, "errorMessage", "error_message")
    return AdkEventView(
        author=author if isinstance(author, str) else None,
        partial=partial,
        error_code=str(error_code) if error_code else None,
        error_message=str(message) if message else None,
        final=final,
        parts=parts,
        raw=data,
    )


def _attach_result(tools: list[Tool], answered: set[int], part: AdkPartView) -> None:
    candidates = [i for i, t in enumerate(tools) if part.id and t.id == part.id]
    if not candidates:
        candidates = [i for i, t in enumerate(tools) if i not in answered and t.name == part.name]
    if not candidates:
        raise AgentError(f"ADK function response for {part.name!r} (id {part.id!r}) without a matching call")
    index = candidates[-1]
    tools[index].result = part.payload
    answered.add(index)


def adk_views_to_output(events: Sequence[AdkEventView]) -> AgentOutput:
    """Convert the events of one invocation into an :class:`AgentOutput`.

    Function calls become tools (in order of appearance; missing ids are generated), function responses fill
    the matching tool's ``result`` (by id, else the latest unanswered call of that name), the text of the last
    final-response event is the final response and the text of other non-partial agent events becomes
    intermediate responses (with the ADK ``author`` kept). An event carrying an error code raises
    :class:`AgentError`. ``usage`` sums the events' ``usage_metadata``; its ``model_calls`` counts the events with
    usage metadata or a model version (ADK's inference calls).
    """
    tools: list[Tool] = []
    answered: set[int] = set()
    intermediate: list[Message] = []
    final: Message | None = None
    for event in events:
        if event.author == "user" or event.partial:
            continue
        if event.error_code or event.error_message:
            raise AgentError(f"ADK agent error {event.error_code or ''}: {event.error_message or ''}".strip())
        texts: list[str] = []
        for part in event.parts:
            if part.kind == "call":
                tools.append(Tool(id=part.id or new_tool_id(), name=part.name, arguments=part.payload))
            elif part.kind == "response":
                _attach_result(tools, answered, part)
            elif part.kind == "text" and not part.thought:
                texts.append(part.text)
        text = "".join(texts)
        if not text:
            continue
        message = Message(role="assistant", content=text, author=event.author)
        if event.final:
            if final is not None:
                intermediate.append(final)
            final = message
        else:
            intermediate.append(message)
    usage = usage_from_adk_events(e.raw for e in events if e.author != "user" and not e.partial)
    return AgentOutput(final_response=final, tools=tools, intermediate_responses=intermediate, usage=usage)
