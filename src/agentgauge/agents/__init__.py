"""Agents: the request/response contract, adapters for Python callables and Google ADK agents, an
OpenAI-compatible tool-calling agent, and the loader used by the command line.

``mockable`` (from :mod:`agentgauge.mocks`) decorates a Python agent's own tool functions so that eval-set tool
mocks apply to them.
"""

from ._adapt import CallableAgent, as_agent, to_output
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
from ._loader import load_agent, looks_like_agent_spec
from ._openai import OpenAIAgent
from ._timing import time_model, time_tool
from ._tools import FunctionTool, parse_docstring
from ._types import Agent, AgentError, AgentOutput, AgentRequest

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


def __getattr__(name: str) -> object:
    # The ADK adapter imports nothing heavy at module level, but keep it out of the eager import list anyway.
    if name in ("AdkAgent", "adk_events_to_output"):
        from . import _adk

        return getattr(_adk, name)
    if name == "mockable":  # agentgauge.mocks imports this package, so it is looked up on first use
        from ..mocks import mockable

        return mockable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
