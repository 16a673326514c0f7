"""The common case of ADK invocation reading, done with as little Python work per object as possible.

Loading is dominated by per-object overhead, so the usual shape (snake_case keys, one plain text part per message,
tool calls with ids and one matching response each) is converted here directly. Anything else returns ``None`` and
goes through the general reader in :mod:`._adk_read`, which yields the same result for these inputs.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["fast_invocation", "fast_parts"]

_FAST_KEYS = frozenset({"invocation_id", "user_content", "final_response", "intermediate_data", "creation_timestamp"})
_FAST_DATA_KEYS = frozenset({"tool_uses", "tool_responses", "intermediate_responses"})


def _plain_text(content: Any, role: str) -> str | None:
    # The text of a Content that is exactly {"role": role, "parts": [{"text": "..."}]}, else None.
    if type(content) is not dict or len(content) != 2 or content.get("role") != role:
        return None
    parts = content.get("parts")
    if type(parts) is not list or len(parts) != 1:
        return None
    part = parts[0]
    if type(part) is not dict or len(part) != 1:
        return None
    text = part.get("text")
    return text if type(text) is str else None


def fast_parts(inv: dict[str, Any]) -> tuple[str, str | None, list[tuple[str, str, Any, Any]]] | None:
    """The user text, final text (``None`` when absent) and ``(id, name, args, response)`` tool calls of a
    snake_case ADK invocation of the usual shape; ``None`` for anything else. Invocation id and timestamp are not
    checked here."""
    if not _FAST_KEYS.issuperset(inv):
        return None
    user = _plain_text(inv.get("user_content"), "user")
    if user is None:
        return None
    final = inv.get("final_response")
    if final is not None:
        final = _plain_text(final, "model")
        if final is None:
            return None
    data = inv.get("intermediate_data")
    if type(data) is not dict or not _FAST_DATA_KEYS.issuperset(data) or data.get("intermediate_responses"):
        return None
    calls = data.get("tool_uses") or []
    responses = data.get("tool_responses") or []
    if type(calls) is not list or type(responses) is not list or len(responses) != len(calls):
        return None
    tools = []
    for call, resp in zip(calls, responses, strict=True):
        if type(call) is not dict or type(resp) is not dict or len(resp) != 3:
            return None
        call_id, name, args, body = call.get("id"), call.get("name"), call.get("args"), resp.get("response")
        if type(args) is not dict:
            # A call without arguments: ADK omits ``args`` (None, never {}); an explicit null goes the general way.
            if args is not None or len(call) != 2 or "args" in call:
                return None
        elif len(call) != 3:
            return None
        if type(call_id) is not str or not call_id or type(name) is not str:
            return None
        if resp.get("id") != call_id or resp.get("name") != name or type(body) is not dict:
            return None
        tools.append((call_id, sys.intern(name), args, body))
    if len(tools) > 1 and len({t[0] for t in tools}) != len(tools):
        return None  # duplicate ids pair differently (last response wins); let the general path decide
    return user, final, tools


def fast_invocation(inv: dict[str, Any]) -> dict[str, Any] | None:
    """The usual snake_case ADK invocation (plain text messages, id-paired tool calls) converted without the
    general machinery; ``None`` sends anything unusual down the general path, which gives the same result."""
    parts = fast_parts(inv)
    if parts is None:
        return None
    user, final, tools = parts
    out: dict[str, Any] = {"user_content": {"role": "user", "content": user}}
    if final is not None:
        out["final_response"] = {"role": "assistant", "content": final}
    out["tools"] = [{"id": i, "name": name, "arguments": args, "result": body} for i, name, args, body in tools]
    if "invocation_id" in inv:
        out["invocation_id"] = inv["invocation_id"]
    if "creation_timestamp" in inv:
        out["creation_timestamp"] = inv["creation_timestamp"]
    return out
