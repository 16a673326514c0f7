"""as_agent: every supported kind of Python agent, and what counts as garbage output."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from agentgauge.agents import (
    AgentError,
    AgentOutput,
    AgentRequest,
    CallableAgent,
    FinalText,
    ToolCall,
    ToolResult,
    as_agent,
)
from agentgauge.model import Message, Tool


def _request(text: str = "hi") -> AgentRequest:
    return AgentRequest(user_content=Message(role="user", content=text), session_id="s1", user_id="u1")


def sync_str(request: AgentRequest) -> str:
    return f"echo {request.user_content.content}"


async def async_output(request: AgentRequest) -> AgentOutput:
    return AgentOutput(final_response="async", tools=[Tool(name="t", arguments={"a": 1}, result=2)])


async def async_events(request: AgentRequest) -> Any:
    yield ToolCall("lookup", {"q": request.user_content.content}, id="c")
    yield ToolResult("found", id="c")
    yield FinalText("answer")


def sync_events(request: AgentRequest) -> Any:
    yield "part one, "
    yield "part two"


class RunObject:
    def run(self, request: AgentRequest) -> Message:
        return Message(role="assistant", content="from run")


class AsyncRunObject:
    async def run(self, request: AgentRequest) -> dict[str, Any]:
        return {"finalResponse": {"role": "assistant", "content": "dict"}, "tools": [{"name": "x", "id": "i"}]}


class AsyncCallable:
    async def __call__(self, request: AgentRequest) -> str:
        return "callable object"


@pytest.mark.parametrize(
    ("obj", "final"),
    [
        (sync_str, "echo hi"),
        (async_output, "async"),
        (async_events, "answer"),
        (sync_events, "part one, part two"),
        (RunObject(), "from run"),
        (AsyncRunObject(), "dict"),
        (AsyncCallable(), "callable object"),
        (lambda request: "lambda", "lambda"),
    ],
)
async def test_every_agent_shape_produces_output(obj: object, final: str) -> None:
    out = await as_agent(obj).run(_request())
    message = out.final_message()
    assert message is not None
    assert message.content == final
    assert message.role == "assistant"


async def test_events_record_tools() -> None:
    out = await as_agent(async_events).run(_request("cats"))
    assert [(t.id, t.name, t.arguments, t.result) for t in out.tools] == [("c", "lookup", {"q": "cats"}, "found")]


async def test_sync_agents_run_off_the_event_loop_thread() -> None:
    seen: list[str] = []

    def agent(request: AgentRequest) -> str:
        seen.append(threading.current_thread().name)
        return "ok"

    await as_agent(agent).run(_request())
    assert seen and seen[0] != threading.main_thread().name


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (42, "agent returned int: expected str, Message, AgentOutput"),
        ({"tools": "nope"}, "agent returned a dict that is not an AgentOutput: tools"),
        (None, "agent returned NoneType"),
    ],
)
async def test_garbage_output_raises_agent_error(value: object, message: str) -> None:
    async def agent(request: AgentRequest) -> object:
        return value

    with pytest.raises(AgentError, match=message):
        await as_agent(agent).run(_request())


def test_native_agents_are_returned_unchanged_and_non_agents_rejected() -> None:
    wrapped = as_agent(sync_str)
    assert isinstance(wrapped, CallableAgent)
    assert as_agent(wrapped) is wrapped
    with pytest.raises(TypeError, match="int is not an agent"):
        as_agent(3)
