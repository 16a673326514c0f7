"""AG-UI events of one run, as an invocation; the conversation as AG-UI messages."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _servers import require
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.agents.remote._agui_convert import AguiTurn, agui_messages
from agentgauge.errors import AgentError
from agentgauge.model import Invocation, Message, Tool


def _events(raw: list[dict[str, Any]]) -> AguiTurn:
    require("ag_ui.core")
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    adapter: TypeAdapter[Any] = TypeAdapter(Event)
    turn = AguiTurn()
    for event in raw:
        turn.add(adapter.validate_python(event))
    return turn


def test_text_tools_results_and_usage() -> None:
    turn = _events([
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Let me check."},
        {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
        {"type": "REASONING_MESSAGE_CHUNK", "messageId": "r1", "delta": "thinking..."},
        {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "lookup", "delta": '{"city": '},
        {"type": "TOOL_CALL_CHUNK", "delta": '"Paris"}'},
        {"type": "TOOL_CALL_RESULT", "messageId": "x", "toolCallId": "c1", "content": '{"temp": 20}'},
        {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "now"},
        {"type": "TOOL_CALL_END", "toolCallId": "c2"},
        {"type": "TOOL_CALL_RESULT", "messageId": "y", "toolCallId": "c2", "content": "noon"},
        {"type": "STATE_SNAPSHOT", "snapshot": {"k": 1}},
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "delta": "20 degrees"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": " at noon."},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "usage": [
            {"model": "m", "inputTokens": 10, "outputTokens": 4, "totalTokens": 14, "cachedInputTokens": 2},
            {"model": "m", "inputTokens": 5, "outputTokens": 1, "totalTokens": 6},
        ]},
    ])  # fmt: skip
    output = turn.output()
    assert turn.finished and turn.error is None
    assert output.final_message().content == "20 degrees at noon."
    assert [m.content for m in output.intermediate_responses] == ["Let me check."]
    assert [(t.id, t.name, t.arguments, t.result) for t in output.tools] == [
        ("c1", "lookup", {"city": "Paris"}, {"temp": 20}),
        ("c2", "now", {}, "noon"),
    ]
    usage = output.usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.cached_tokens, usage.model) == (
        15, 5, 20, 2, "m"
    )  # fmt: skip


def test_run_error_and_user_echoes() -> None:
    turn = _events([
        {"type": "TEXT_MESSAGE_START", "messageId": "u", "role": "user"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "u", "delta": "echo of the question"},
        {"type": "RUN_ERROR", "message": "boom"},
    ])  # fmt: skip
    assert (turn.finished, turn.error, turn.output().final_response) == (True, "boom", None)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([{"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "nope", "content": "1"}],
         "AG-UI TOOL_CALL_RESULT for unknown tool call 'nope'"),
        ([{"type": "TOOL_CALL_CHUNK", "delta": "{}"}], "AG-UI TOOL_CALL_CHUNK outside any tool call"),
        ([{"type": "TOOL_CALL_CHUNK", "toolCallId": "c", "delta": "{}"}],
         "AG-UI TOOL_CALL_CHUNK opens tool call 'c' without a name"),
        ([{"type": "TEXT_MESSAGE_CHUNK", "delta": "hi"}], "AG-UI TEXT_MESSAGE_CHUNK outside any text message"),
    ],
)  # fmt: skip
def test_events_out_of_place_fail(events: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(AgentError, match=message.replace("(", r"\(")):
        _events(events)


def test_the_conversation_as_agui_messages() -> None:
    earlier = Invocation(
        user_content=Message(role="user", content="hi"),
        tools=[Tool(id="c1", name="lookup", arguments={"q": 1}, result="plain text")],
        intermediate_responses=[Message(role="assistant", content="looking")],
        final_response=Message(role="assistant", content="done"),
    )
    messages = agui_messages([earlier], [Message(role="system", content="be brief")], "again", 2)
    assert [(m["id"], m["role"], m.get("content")) for m in messages] == [
        ("context-0", "system", "be brief"),
        ("user-1", "user", "hi"),
        ("calls-1", "assistant", None),
        ("result-c1", "tool", "plain text"),
        ("step-1-0", "assistant", "looking"),
        ("answer-1", "assistant", "done"),
        ("user-2", "user", "again"),
    ]
    assert messages[2]["toolCalls"] == [
        {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": 1}'}}
    ]


@given(
    st.lists(st.text(min_size=1), min_size=1, max_size=6),
    st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=4),
    st.integers(min_value=1, max_value=5),
)
def test_streamed_text_and_arguments_reassemble(deltas: list[str], arguments: dict[str, Any], pieces: int) -> None:
    """However the answer and the arguments are cut into deltas, the invocation has them whole."""
    text = json.dumps(arguments)
    step = max(1, len(text) // pieces)
    arg_deltas = [text[i : i + step] for i in range(0, len(text), step)]
    events: list[dict[str, Any]] = [{"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"}]
    events += [{"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": d} for d in arg_deltas]
    events += [{"type": "TOOL_CALL_END", "toolCallId": "c"}, {"type": "TEXT_MESSAGE_START", "messageId": "m"}]
    events += [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": d} for d in deltas]
    events += [{"type": "TEXT_MESSAGE_END", "messageId": "m"}, {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}]
    output = _events(events).output()
    assert output.tools[0].arguments == arguments
    assert output.final_message().content == "".join(deltas)
