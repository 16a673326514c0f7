"""Eval cases of the common shapes built straight into models, skipping the per-object work of validation.

:func:`build_case` takes a parsed case (native/trpc camelCase, snake_case, or ADK-shaped invocations that
:func:`~._adk_fast.fast_invocation` converts) and builds the models with :func:`~._construct.constructor`. It
checks every value it takes exactly as validation would (types, literals, required fields, defaults) and returns
``None`` for anything else -- an unknown key (extras), a value of another type, rubrics, a scenario, a key given in
both spellings. The caller then converts and validates that case the general way, which gives the same models or
the precise error message, so this module never decides what is valid. Repeated small strings (roles, tool names,
session app and user names) are shared instead of kept once per object.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic.alias_generators import to_camel

from ..model import EvalCase, Invocation, Message, SessionInput, Tool, new_tool_id
from ._adk_fast import fast_parts
from ._adk_read import is_genai_invocation
from ._construct import constructor

__all__ = ["build_case"]

M = TypeVar("M")

_BAD: Any = object()  # "not a value this module checks": the caller validates the case instead

_MESSAGE = constructor(Message)
_TOOL = constructor(Tool)
_INVOCATION = constructor(Invocation)
_SESSION = constructor(SessionInput)
_CASE = constructor(EvalCase)

_ROLES = {role: role for role in ("system", "user", "assistant", "tool")}
_EVAL_MODES = {mode: mode for mode in ("", "trace")}
_MESSAGE_KEYS = frozenset({"role", "content"})
_TOOL_KEYS = frozenset({"id", "name", "arguments", "result"})


def _fields(*names: str) -> dict[str, str]:
    # Input key (snake_case or camelCase, as validation accepts them) -> field name.
    return {key: name for name in names for key in (name, to_camel(name))}


_INVOCATION_FIELDS = _fields(
    "invocation_id",
    "context_messages",
    "user_content",
    "final_response",
    "tools",
    "intermediate_responses",
    "creation_timestamp",
)
_CASE_FIELDS = _fields(
    "eval_id",
    "eval_mode",
    "context_messages",
    "conversation",
    "actual_conversation",
    "session_input",
    "rubrics",
    "creation_timestamp",
)
_SESSION_FIELDS = _fields("app_name", "user_id", "state")


def _by_field(raw: Any, fields: dict[str, str]) -> dict[str, Any] | None:
    # The object's values keyed by field name; None when it has an unknown key or one field in both spellings.
    if type(raw) is not dict:
        return None
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = fields.get(key)
        if name is None or name in out:
            return None
        out[name] = value
    return out


def _string(value: Any, default: str = "") -> Any:
    if value is _BAD:  # absent
        return default
    return value if type(value) is str else _BAD


def _timestamp(value: Any) -> Any:
    # float | None, as validation reads it: an integer becomes a float.
    if value is _BAD or value is None:
        return None
    if type(value) is float:
        return value
    return float(value) if type(value) is int else _BAD


def _message(raw: Any) -> Message | None:
    if type(raw) is not dict or not _MESSAGE_KEYS.issuperset(raw):
        return None
    role = raw.get("role", "user")
    content = raw.get("content", "")
    role = _ROLES.get(role) if type(role) is str else None
    if role is None or type(content) is not str:
        return None
    return _MESSAGE(role, content)


def _each(items: list[Any], build: Callable[[Any], M | None]) -> list[M] | None:
    # All items built, or None as soon as one is not (``None in models`` would call pydantic's slow __eq__).
    out: list[M] = []
    for item in items:
        built = build(item)
        if built is None:
            return None
        out.append(built)
    return out


def _messages(raw: Any) -> list[Message] | None:
    if raw is _BAD:
        return []
    return _each(raw, _message) if type(raw) is list else None


def _tool(raw: Any) -> Tool | None:
    if type(raw) is not dict or not _TOOL_KEYS.issuperset(raw):
        return None
    name = raw.get("name")
    tool_id = raw.get("id", _BAD)
    if type(name) is not str:
        return None
    if tool_id is _BAD:
        tool_id = new_tool_id()
    elif type(tool_id) is not str:
        return None
    return _TOOL(tool_id, sys.intern(name), raw.get("arguments", {}), raw.get("result"))


def _native_invocation(raw: Any) -> Invocation | None:
    values = _by_field(raw, _INVOCATION_FIELDS)
    if values is None:
        return None
    get = values.get
    invocation_id = _string(get("invocation_id", _BAD))
    user = _message(get("user_content"))
    final = get("final_response")
    if final is not None:
        final = _message(final)
        if final is None:
            return None
    tools_raw = get("tools", _BAD)
    tools = [] if tools_raw is _BAD else _each(tools_raw, _tool) if type(tools_raw) is list else None
    context = _messages(get("context_messages", _BAD))
    intermediate = _messages(get("intermediate_responses", _BAD))
    timestamp = _timestamp(get("creation_timestamp", _BAD))
    if (
        invocation_id is _BAD
        or user is None
        or tools is None
        or context is None
        or intermediate is None
        or timestamp is _BAD
    ):
        return None
    # Durations and usage come from live runs; a file with them takes the validating path.
    return _INVOCATION(
        invocation_id,
        context,
        user,
        final,
        tools,
        intermediate,
        timestamp,
        *(None, None, None, None, None, None),  # durations, usage, tool mocks and replay: live runs only
        [],
        None,
    )


def _adk_invocation(raw: dict[str, Any]) -> Invocation | None:
    parts = fast_parts(raw)
    if parts is None:
        return None
    user, final, calls = parts
    invocation_id = _string(raw.get("invocation_id", _BAD))
    timestamp = _timestamp(raw.get("creation_timestamp", _BAD))
    if invocation_id is _BAD or timestamp is _BAD:
        return None
    tools = [_TOOL(call_id, name, args, body) for call_id, name, args, body in calls]
    final_message = None if final is None else _MESSAGE("assistant", final)
    return _INVOCATION(
        invocation_id,
        [],
        _MESSAGE("user", user),
        final_message,
        tools,
        [],
        timestamp,
        *(None, None, None, None, None, None),  # durations, usage, tool mocks and replay: live runs only
        [],
        None,
    )


def _invocation(raw: Any) -> Invocation | None:
    if type(raw) is dict and is_genai_invocation(raw):
        return _adk_invocation(raw)  # what fast_invocation converts, built directly
    return _native_invocation(raw)


def _conversation(raw: Any) -> Any:
    if raw is _BAD or raw is None:
        return None
    if type(raw) is not list:
        return _BAD
    out = _each(raw, _invocation)
    return _BAD if out is None else out


def _session(raw: Any) -> Any:
    if raw is _BAD or raw is None:
        return None
    values = _by_field(raw, _SESSION_FIELDS)
    if values is None:
        return _BAD
    app = _string(values.get("app_name", _BAD))
    user = _string(values.get("user_id", _BAD))
    state = values.get("state", _BAD)
    if state is _BAD:
        state = {}
    elif type(state) is dict and all(type(key) is str for key in state):
        state = dict(state)  # validation copies it too: the model must not share the caller's dict
    else:
        return _BAD
    if app is _BAD or user is _BAD:
        return _BAD
    return _SESSION(sys.intern(app), sys.intern(user), state)


def build_case(raw: Any) -> EvalCase | None:
    """The eval case ``raw`` describes, or ``None`` when it is not of a shape checked here (see the module doc)."""
    values = _by_field(raw, _CASE_FIELDS)
    if values is None:
        return None
    get = values.get
    eval_id = get("eval_id")
    mode = get("eval_mode", "")
    mode = _EVAL_MODES.get(mode) if type(mode) is str else None
    rubrics = get("rubrics", _BAD)
    if type(eval_id) is not str or mode is None or not (rubrics is _BAD or rubrics == []):
        return None
    context = _messages(get("context_messages", _BAD))
    conversation = _conversation(get("conversation", _BAD))
    actual = _conversation(get("actual_conversation", _BAD))
    session = _session(get("session_input", _BAD))
    timestamp = _timestamp(get("creation_timestamp", _BAD))
    if context is None or conversation is _BAD or actual is _BAD or session is _BAD or timestamp is _BAD:
        return None
    return _CASE(eval_id, mode, context, conversation, actual, None, session, [], timestamp, False)
