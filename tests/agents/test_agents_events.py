"""The event vocabulary and how a stream of events becomes an AgentOutput."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.agents import (
    AgentError,
    FinalText,
    IntermediateMessage,
    TextDelta,
    ToolCall,
    ToolResult,
    collect_events,
    collect_events_sync,
)
from agentgauge.model import Message, Tool


def test_text_after_last_tool_call_is_final_and_earlier_text_is_intermediate() -> None:
    out = collect_events_sync(
        [
            "Let me ",
            TextDelta("check."),
            ToolCall("weather", {"city": "Paris"}, id="c1"),
            ToolResult({"temp": 21}, id="c1"),
            "It is ",
            "21 degrees.",
        ]
    )
    assert out.final_response == Message(role="assistant", content="It is 21 degrees.")
    assert out.intermediate_responses == [Message(role="assistant", content="Let me check.")]
    assert [(t.id, t.name, t.arguments, t.result) for t in out.tools] == [
        ("c1", "weather", {"city": "Paris"}, {"temp": 21})
    ]


def test_final_text_replaces_streamed_text() -> None:
    out = collect_events_sync(["draft ", "answer", FinalText("clean answer")])
    assert out.final_message() == Message(role="assistant", content="clean answer")


def test_no_text_means_no_final_response() -> None:
    out = collect_events_sync([ToolCall("t"), ToolResult(1)])
    assert out.final_response is None
    assert out.tools[0].result == 1


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ("", {}),
        ("not json", "not json"),
        (None, {}),
        ([1, 2], [1, 2]),
    ],
)
def test_tool_arguments_are_parsed_from_json_strings(arguments: Any, expected: Any) -> None:
    out = collect_events_sync([ToolCall("t", arguments)])
    assert out.tools[0].arguments == expected


def test_results_match_by_id_then_name_then_latest_pending() -> None:
    out = collect_events_sync(
        [
            ToolCall("a", id="1"),
            ToolCall("b", id="2"),
            ToolCall("a", id="3"),
            ToolResult("r-b", name="b"),
            ToolResult("r-1", id="1"),
            ToolResult("r-latest"),
        ]
    )
    assert [t.result for t in out.tools] == ["r-1", "r-b", "r-latest"]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([ToolResult(1, id="zz")], "tool result for unknown tool call id 'zz'"),
        ([ToolCall("a"), ToolResult(1, name="b")], "tool result for 'b' without a pending call to that tool"),
        ([ToolResult(1)], "tool result without a pending tool call"),
        ([42], "agent yielded int"),
        ([{"type": "bogus"}], "unknown type 'bogus'"),
        ([{"type": "tool_call"}], "lacks the key 'name'"),
    ],
)
def test_protocol_violations_raise_agent_error(events: list[Any], message: str) -> None:
    with pytest.raises(AgentError, match=message):
        collect_events_sync(events)


def test_dict_events_and_complete_tools() -> None:
    out = collect_events_sync(
        [
            {"type": "intermediate", "text": "thinking"},
            {"type": "tool_call", "name": "calc", "arguments": '{"x": 2}', "id": "k"},
            {"type": "tool_result", "id": "k", "result": 4},
            Tool(id="t2", name="log", arguments={}, result="ok"),
            {"type": "text_delta", "text": "four"},
            IntermediateMessage("note", role="system"),
        ]
    )
    assert out.final_message() == Message(role="assistant", content="four")
    assert [(t.name, t.result) for t in out.tools] == [("calc", 4), ("log", "ok")]
    assert [m.content for m in out.intermediate_responses] == ["thinking", "note"]


async def test_async_stream() -> None:
    async def stream() -> Any:
        yield ToolCall("t", {"q": 1}, id="x")
        yield ToolResult("done", id="x")
        yield FinalText("ok")

    out = await collect_events(stream())
    assert out.final_message() == Message(role="assistant", content="ok")
    assert out.tools[0].result == "done"


@given(st.lists(st.text(max_size=5), max_size=8))
def test_streamed_deltas_concatenate(chunks: list[str]) -> None:
    out = collect_events_sync(chunks)
    joined = "".join(chunks)
    assert (out.final_message().content if out.final_message() else "") == joined  # type: ignore[union-attr]
