"""Describing whatever an agent raised, and checking its output can be saved, without ever raising ourselves."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel

from ..errors import AgentError
from ._types import AgentOutput

__all__ = ["MAX_OUTPUT_DEPTH", "check_output_depth", "depth_exceeds", "describe_exception"]

MAX_OUTPUT_DEPTH = 100
"""How deeply JSON arrays and objects may nest inside one value of an agent's output (a tool's arguments or
result, a message with its extra fields). The result file wraps these values in about ten more levels, JSON
writers stop at a few hundred levels (orjson: 255) and readers of result files limit nesting as well: a deeper
value would only fail when the result is saved or read back, after every case has run."""


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception as inner:  # an exception whose __str__ raises must not take the run down with it
        try:
            detail = f"{type(inner).__name__}: {inner}"
        except Exception:
            detail = type(inner).__name__
        return f"<message unavailable: str() raised {detail}>"


def describe_exception(exc: BaseException) -> str:
    """``"Type: message"`` for ``exc`` (just ``message`` for an :class:`AgentError`), safe for any exception.

    Never raises: an exception whose ``__str__`` raises is described by its type and what ``str()`` raised.
    ``SystemExit`` and ``KeyboardInterrupt`` say that the agent raised them, since a reader would otherwise take
    them for a stopped run.
    """
    name = type(exc).__name__
    if isinstance(exc, SystemExit):
        return f"{name}: the agent called sys.exit({exc.code!r})" if _safe_code(exc) else f"{name}: the agent exited"
    if isinstance(exc, KeyboardInterrupt):
        return f"{name}: raised by the agent"
    text = _text(exc)
    if isinstance(exc, AgentError):
        return text
    return f"{name}: {text}" if text else name


def _safe_code(exc: SystemExit) -> bool:
    try:
        repr(exc.code)
    except Exception:
        return False
    return True


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` levels deep (iterative: no recursion limit)."""
    if _few_containers(value, limit):
        return False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple | set | frozenset):
            children = item
        elif isinstance(item, BaseModel):
            children = [*vars(item).values(), *(item.__pydantic_extra__ or {}).values()]
        else:
            continue
        depth += 1
        if depth > limit:
            return True
        stack.extend((child, depth) for child in children)
    return False


def _few_containers(value: Any, limit: int) -> bool:
    """A cheap sufficient test: a JSON value with at most ``limit`` brackets cannot nest deeper than ``limit``."""
    if value is None or isinstance(value, str | int | float | bool):
        return True
    try:
        data = orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # not plain JSON (or deeper than orjson goes): walk it
        return False
    return data.count(b"[") + data.count(b"{") <= limit


def check_output_depth(output: AgentOutput, limit: int = MAX_OUTPUT_DEPTH) -> None:
    """Raise :class:`AgentError` naming the field when a value of ``output`` nests deeper than ``limit`` levels."""
    fields: list[tuple[str, Any]] = []
    for index, tool in enumerate(output.tools):
        fields += [(f"tools[{index}].arguments", tool.arguments), (f"tools[{index}].result", tool.result)]
    if isinstance(output.final_response, BaseModel):
        fields.append(("final_response", output.final_response))
    fields += [(f"intermediate_responses[{i}]", m) for i, m in enumerate(output.intermediate_responses)]
    for where, value in fields:
        if depth_exceeds(value, limit):
            raise AgentError(
                f"agent output {where} is nested more than {limit} levels deep; "
                f"results are limited to {limit} levels of JSON nesting"
            )
