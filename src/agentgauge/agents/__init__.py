"""Agents: the request/response contract, adapters for Python callables and Google ADK agents, an
OpenAI-compatible tool-calling agent, and the loader used by the command line.

``mockable`` (from :mod:`agentgauge.mocks`) decorates a Python agent's own tool functions so that eval-set tool
mocks apply to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._adapt import CallableAgent, as_agent, to_output
from ._loader import load_agent, looks_like_agent_spec
from ._timing import time_model, time_tool
from ._types import Agent, AgentError, AgentOutput, AgentRequest

if TYPE_CHECKING:
    from ._events import (
        AgentEvent,
        FinalText,
        IntermediateMessage,
        TextDelta,
        ToolCall,
        ToolResult,
        collect_events,
        collect_events_sync,
    )
    from ._openai import OpenAIAgent
    from ._tools import FunctionTool, parse_docstring

__all__ = [
    "Agent",
    "AgentError",
    "AgentEvent",
    "AgentOutput",
    "AgentRequest",
    "CallableAgent",
    "FinalText",
    "FunctionTool",
    "IntermediateMessage",
    "OpenAIAgent",
    "TextDelta",
    "ToolCall",
    "ToolResult",
    "as_agent",
    "collect_events",
    "collect_events_sync",
    "load_agent",
    "looks_like_agent_spec",
    "parse_docstring",
    "time_model",
    "time_tool",
    "to_output",
]


# Loaded on first use: a plain agent (a coroutine function, the usual case) needs neither the streamed-event
# classes nor the OpenAI-compatible agent and its tool introspection (~2 ms of every eval's start-up).
_MODULE_OF = {
    **dict.fromkeys(
        (
            "AgentEvent",
            "FinalText",
            "IntermediateMessage",
            "TextDelta",
            "ToolCall",
            "ToolResult",
            "collect_events",
            "collect_events_sync",
        ),
        "._events",
    ),
    "OpenAIAgent": "._openai",
    "FunctionTool": "._tools",
    "parse_docstring": "._tools",
}


def __getattr__(name: str) -> object:
    module = _MODULE_OF.get(name)
    if module is not None:
        import importlib

        value = getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value
        return value
    # The ADK adapter imports nothing heavy at module level, but keep it out of the eager import list anyway.
    if name in ("AdkAgent", "adk_events_to_output"):
        from . import _adk

        return getattr(_adk, name)
    if name == "mockable":  # agentgauge.mocks imports this package, so it is looked up on first use
        from ..mocks import mockable

        return mockable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, "AdkAgent", "adk_events_to_output", "mockable"})
