"""Token usage in ADK files: read from ``invocation_events`` (``usage_metadata``, ``model_version``) and written
back as events, the only place an ADK ``Invocation`` has for it.

A native invocation with ``usage`` is written in ADK's ``InvocationEvents`` form: its tool calls, tool responses
and intermediate texts as events, then one event per model call (the first carries the summed
``usage_metadata``, all carry the ``model_version``), so ADK's ``token_usage_v1`` and ``inference_call_count_v1``
give the same figures. ``cost`` has no ADK field and is not written.
"""

from __future__ import annotations

from typing import Any

from ..model import Invocation, TokenUsage
from ..model._usage import usage_from_adk_events

__all__ = ["events_form", "usage_from_data", "usage_of"]

_META = (
    ("prompt_token_count", "prompt_tokens"),
    ("tool_use_prompt_token_count", "tool_use_tokens"),
    ("candidates_token_count", "candidates_tokens"),
    ("thoughts_token_count", "reasoning_tokens"),
    ("cached_content_token_count", "cached_tokens"),
)


def usage_from_data(data: Any) -> dict[str, Any] | None:
    """The native ``usage`` of ADK ``intermediate_data`` in events form (``None`` for the other form)."""
    if not isinstance(data, dict):
        return None
    events = data.get("invocation_events", data.get("invocationEvents"))
    if not isinstance(events, list):
        return None
    usage = usage_from_adk_events(e for e in events if isinstance(e, dict))
    return usage.model_dump(mode="json", exclude_none=True, by_alias=False)


def usage_of(inv: Invocation) -> dict[str, Any] | None:
    """What of ``inv.usage`` an ADK file can hold (everything but the cost)."""
    if inv.usage is None:
        return None
    return inv.usage.model_dump(mode="json", exclude_none=True, by_alias=False, exclude={"cost"})


def _metadata(usage: TokenUsage) -> dict[str, int]:
    meta = {key: getattr(usage, name) for key, name in _META if getattr(usage, name) is not None}
    if usage.prompt_tokens is None and usage.input_tokens is not None:
        meta["prompt_token_count"] = usage.input_tokens - (usage.tool_use_tokens or 0)
    if usage.candidates_tokens is None and usage.output_tokens is not None:
        meta["candidates_token_count"] = usage.output_tokens - (usage.reasoning_tokens or 0)
    if usage.total_tokens is not None:
        meta["total_token_count"] = usage.total_tokens
    return meta


def events_form(inv: Invocation, unpaired: list[Any], author: str = "agent") -> dict[str, Any]:
    """``inv``'s tools, intermediate texts and usage as ADK ``InvocationEvents``."""
    events: list[dict[str, Any]] = []
    for tool in inv.tools:
        call: dict[str, Any] = {"id": tool.id, "name": tool.name}
        if tool.arguments is not None:
            call["args"] = tool.arguments if isinstance(tool.arguments, dict) else {"value": tool.arguments}
        events.append({"author": author, "content": {"role": "model", "parts": [{"function_call": call}]}})
        if tool.result is not None:
            body = tool.result if isinstance(tool.result, dict) else {"result": tool.result}
            response = {"id": tool.id, "name": tool.name, "response": body}
            events.append({"author": author, "content": {"role": "user", "parts": [{"function_response": response}]}})
    for response in unpaired:
        events.append({"author": author, "content": {"role": "user", "parts": [{"function_response": response}]}})
    for message in inv.intermediate_responses:
        who = str((message.model_extra or {}).get("author") or author)
        events.append({"author": who, "content": {"role": "model", "parts": [{"text": message.content}]}})
    usage = inv.usage
    if usage is not None:
        calls = usage.model_calls if usage.model_calls is not None else 1
        meta = _metadata(usage)
        for k in range(calls):
            event: dict[str, Any] = {"author": author, "model_version": usage.model or ""}
            if k == 0 and meta:
                event["usage_metadata"] = meta
            events.append(event)
    return {"invocation_events": events}
