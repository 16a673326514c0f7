"""A turn's tool calls read from its spans: the calls the model requested, matched with the tool spans that ran
them (ADK's, the GenAI conventions', trpc-agent-go's and OpenInference's attributes) and the tool messages fed
back to the model, into :class:`~agentgauge.model.Tool` records (results as ADK stores them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Tool
from ._agents import OPENINFERENCE_KIND
from ._messages import ChatMessage, MessageToolCall, ToolResponse, is_withheld, parse_json_value
from ._spans import Span

__all__ = ["turn_tools"]


def turn_tools(
    requested: list[MessageToolCall],
    tool_spans: list[Span],
    inputs: list[list[ChatMessage]],
    where: str,
    warnings: list[str],
) -> list[Tool]:
    """A turn's tool calls in the order the model asked for them (``requested``), completed from its tool spans
    (arguments the request lacks, results) and from the tool messages of its model inputs; calls only seen as tool
    spans follow in start order. Calls without a recorded result are named in ``warnings`` (at ``where``)."""
    from_spans = [_span_call(s) for s in tool_spans]
    used = [False] * len(from_spans)
    responses: dict[str, ToolResponse] = {}
    for messages in inputs:
        for message in messages:
            for response in message.tool_responses:
                if response.id:
                    responses.setdefault(response.id, response)
    out: list[Tool] = []
    missing: list[str] = []
    seen_ids: set[str] = set()
    for call in requested:
        if call.id and call.id in seen_ids:
            continue  # cumulative outputs repeat earlier calls
        seen_ids.add(call.id)
        index = _match_span(call, from_spans, used)
        arguments, result, recorded = call.arguments, None, False
        if index is not None:
            used[index] = True
            span_call = from_spans[index]
            if span_call.arguments not in (None, {}, "") and arguments in (None, {}, ""):
                arguments = span_call.arguments
            result, recorded = span_call.result, span_call.has_result
        if not recorded and call.id in responses:
            result, recorded = _wrap_result(responses[call.id].response), True
        if not recorded:
            missing.append(call.name)
        out.append(_tool(call.id, call.name, arguments, result))
    for index, span_call in enumerate(from_spans):
        if not used[index]:
            if not span_call.has_result:
                missing.append(span_call.name)
            out.append(_tool(span_call.id, span_call.name, span_call.arguments, span_call.result))
    if missing and tool_spans:
        warnings.append(f"{where}: no result recorded for {', '.join(missing)}")
    return out


@dataclass(slots=True)
class _SpanCall:
    id: str
    name: str
    arguments: Any
    result: Any
    has_result: bool


_ARGUMENT_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args", "trpc.go.agent.tool_call_args")
_RESULT_KEYS = ("gcp.vertex.agent.tool_response", "gen_ai.tool.call.result", "trpc.go.agent.tool_response")
# An OpenInference TOOL span records its call as the span's input and output (input.value / output.value).
_OPENINFERENCE_TOOL = (("tool.name",), ("input.value",), ("output.value",))


def _span_call(span: Span) -> _SpanCall:
    openinference = span.attributes.get(OPENINFERENCE_KIND) == "TOOL"
    names, argument_keys, result_keys = (
        _OPENINFERENCE_TOOL if openinference else (("gen_ai.tool.name",), _ARGUMENT_KEYS, _RESULT_KEYS)
    )
    name = span.attributes.get(names[0])
    if not isinstance(name, str) or not name:
        name = span.name.removeprefix("execute_tool").strip()
    call_id = span.attributes.get("gen_ai.tool.call.id", span.attributes.get("tool_call.id"))
    arguments: Any = None
    for key in argument_keys:
        if key in span.attributes:
            arguments = parse_json_value(span.attributes[key])
            break
    result: Any = None
    has_result = False
    for key in result_keys:
        if key in span.attributes and not is_withheld(span.attributes[key]):
            result, has_result = _wrap_result(parse_json_value(span.attributes[key])), True
            break
    arguments = {} if arguments in (None, "") else arguments
    return _SpanCall(str(call_id) if call_id else "", name, arguments, result, has_result)


def _wrap_result(value: Any) -> Any:
    """A tool result as ADK stores it: an object; any other JSON value is wrapped as ``{"result": value}``."""
    if value is None or isinstance(value, dict):
        return value
    return {"result": value}


def _match_span(call: MessageToolCall, spans: list[_SpanCall], used: list[bool]) -> int | None:
    if call.id:
        for index, span_call in enumerate(spans):
            if not used[index] and span_call.id == call.id:
                return index
    for index, span_call in enumerate(spans):
        if not used[index] and span_call.name == call.name and (not call.id or not span_call.id):
            return index
    return None


def _tool(call_id: str, name: str, arguments: Any, result: Any) -> Tool:
    if call_id:
        return Tool(id=call_id, name=name, arguments=arguments, result=result)
    return Tool(name=name, arguments=arguments, result=result)
