"""Agents: the request/response contract, adapters for Python callables and Google ADK agents, an
OpenAI-compatible tool-calling agent, the loader used by the command line, and the :class:`TextFields` protocol of
an agent's rewritable texts (what ``agentgauge optimize`` changes).

``mockable`` (from :mod:`agentgauge.mocks`) decorates a Python agent's own tool functions so that eval-set tool
mocks apply to them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._util.lazy import lazy_exports
from ..errors import AgentError
from ._adapt import CallableAgent, as_agent, to_output
from ._loader import load_agent, load_agent_object, load_named_object, load_python_object, looks_like_agent_spec
from ._texts import TextFields, has_text_fields
from ._timing import time_model, time_tool
from ._types import Agent, AgentOutput, AgentRequest

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
    "TextFields",
    "ToolCall",
    "ToolResult",
    "as_agent",
    "collect_events",
    "collect_events_sync",
    "has_text_fields",
    "load_agent",
    "load_agent_object",
    "load_named_object",
    "load_python_object",
    "looks_like_agent_spec",
    "parse_docstring",
    "time_model",
    "time_tool",
    "to_output",
]


# Loaded on first use: a plain agent (a coroutine function, the usual case) needs neither the streamed-event
# classes nor the OpenAI-compatible agent and its tool introspection (~2 ms of every eval's start-up), nor the ADK
# adapter; ``mockable`` lives in agentgauge.mocks, which imports this package.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
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
        "AdkAgent": "._adk",
        "adk_events_to_output": "._adk",
        "mockable": "..mocks",
    },
    __all__,
)
