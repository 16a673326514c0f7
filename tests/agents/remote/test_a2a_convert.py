# ruff: noqa: E501  (the tables quote protocol messages whole)
"""What an A2A agent sends, as an invocation: the part shapes of google-adk's converters (A2A 1.0 JSON, as the SDK
client hands them over) and of trpc-agent-go (A2A 0.3 JSON, from its interaction spec), streamed and not."""

from __future__ import annotations

import json
from typing import Any

import pytest
from _servers import HERE
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.agents.remote._a2a_convert import A2aTurn, task_state
from agentgauge.errors import AgentError

USAGE = {"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55}


def _status(
    state: str, parts: list[dict[str, Any]] | None = None, meta: dict[str, Any] | None = None, mid: str = ""
) -> dict[str, Any]:
    status: dict[str, Any] = {"state": state}
    if parts is not None:
        status["message"] = {"messageId": mid or f"m{id(parts)}", "role": "ROLE_AGENT", "parts": parts}
    return {"statusUpdate": {"taskId": "t", "contextId": "c", "status": status, "metadata": meta or {}}}


def _data(kind: str, data: dict[str, Any], key: str = "adk_type") -> dict[str, Any]:
    return {"data": data, "metadata": {key: kind}}


def _turn(items: list[dict[str, Any]]) -> A2aTurn:
    turn = A2aTurn()
    for item in items:
        turn.add(item)
    return turn


ADK_LEGACY = [  # google-adk's legacy executor (the default of to_a2a), as the a2a-sdk 1.x client yields it
    {"task": {"id": "t", "contextId": "c", "status": {"state": "TASK_STATE_SUBMITTED"},
              "history": [{"messageId": "u", "role": "ROLE_USER", "parts": [{"text": "calc add 2 3"}]}]}},
    _status("TASK_STATE_WORKING", meta={"adk_app_name": "calculator"}),
    _status("TASK_STATE_WORKING", [_data("function_call", {"id": "c1", "name": "calculator", "args": {"a": 2, "b": 3}})],
            {"adk_author": "calculator", "adk_usage_metadata": USAGE}),
    _status("TASK_STATE_WORKING", [_data("function_response", {"id": "c1", "name": "calculator", "response": {"result": 5}})],
            {"adk_author": "calculator"}),
    _status("TASK_STATE_WORKING", [{"text": "calc result: 5"}], {"adk_author": "calculator", "adk_usage_metadata": USAGE}),
    {"artifactUpdate": {"taskId": "t", "contextId": "c", "lastChunk": True, "metadata": {"adk_author": "calculator"},
                        "artifact": {"artifactId": "a1", "parts": [{"text": "calc result: 5"}]}}},
    _status("TASK_STATE_COMPLETED", meta={"adk_author": "calculator"}),
]  # fmt: skip

TRPC_UNARY = {  # trpc-agent-go, message/send with a tool call (its interaction spec, "Non-streaming")
    "kind": "task", "id": "task-001", "contextId": "ctx-001", "status": {"state": "completed"},
    "history": [
        {"kind": "message", "messageId": "msg-tool-call", "role": "agent", "parts": [
            {"kind": "data", "data": {"id": "call_001", "type": "function", "name": "get_weather",
                                      "args": "{\"city\":\"Beijing\"}"}, "metadata": {"type": "function_call"}}]},
        {"kind": "message", "messageId": "msg-tool-resp", "role": "agent", "parts": [
            {"kind": "data", "data": {"id": "call_001", "name": "get_weather",
                                      "response": "{\"temp\":\"20°C\",\"condition\":\"sunny\"}"},
             "metadata": {"type": "function_response"}}]},
    ],
    "artifacts": [{"artifactId": "msg-final", "parts": [
        {"kind": "text", "text": "The current temperature in Beijing is 20°C, sunny."}]}],
}  # fmt: skip

TRPC_REASONING = {  # a bare message answer with reasoning (its interaction spec)
    "kind": "message", "messageId": "msg-thinking-001", "role": "agent", "contextId": "ctx-001",
    "parts": [{"kind": "text", "text": "Let me analyze this step by step...", "metadata": {"thought": True}},
              {"kind": "text", "text": "The current temperature in Beijing is 20°C."}],
}  # fmt: skip


def test_google_adk_legacy_stream() -> None:
    turn = _turn(ADK_LEGACY)
    output = turn.output()
    assert (turn.state, turn.context_id, turn.task_id, turn.ended) == ("completed", "c", "t", True)
    assert output.final_message().model_dump(exclude_none=True) == {
        "role": "assistant", "content": "calc result: 5", "author": "calculator"
    }  # fmt: skip
    assert output.intermediate_responses == []  # the status message the artifact repeats is not counted twice
    assert [(t.id, t.name, t.arguments, t.result) for t in output.tools] == [
        ("c1", "calculator", {"a": 2, "b": 3}, {"result": 5})
    ]
    assert output.usage is not None
    assert (output.usage.model_calls, output.usage.input_tokens, output.usage.output_tokens) == (2, 100, 10)


@pytest.mark.parametrize(
    ("items", "final", "tools"),
    [
        ([TRPC_UNARY], "The current temperature in Beijing is 20°C, sunny.",
         [("call_001", "get_weather", {"city": "Beijing"}, {"temp": "20°C", "condition": "sunny"})]),
        (json.loads((HERE / "_a2a_trpc_stream.json").read_text(encoding="utf-8")),
         "The current temperature in Beijing is 20°C, sunny.", [("call_001", "get_weather", {"city": "Beijing"}, {"temp": "20°C"})]),
        ([TRPC_REASONING], "The current temperature in Beijing is 20°C.", []),
    ],
    ids=["trpc-unary-task", "trpc-stream", "trpc-reasoning-message"],
)  # fmt: skip
def test_trpc_agent_go_shapes(items: list[dict[str, Any]], final: str, tools: list[Any]) -> None:
    turn = _turn(items)
    output = turn.output()
    assert turn.ended
    assert output.final_message().content == final
    assert [(t.id, t.name, t.arguments, t.result) for t in output.tools] == tools
    assert output.intermediate_responses == [] and output.usage is None


def test_progress_texts_are_intermediate_and_the_last_artifact_is_final() -> None:
    output = _turn([
        _status("working", [{"text": "Looking up rates..."}]),
        {"kind": "artifact-update", "artifact": {"artifactId": "x", "parts": [{"kind": "text", "text": "draft"}]}},
        {"kind": "artifact-update", "artifact": {"artifactId": "y", "parts": [{"kind": "text", "text": "1 EUR = 1.1 USD"}]}},
        _status("completed"),
    ]).output()  # fmt: skip
    assert output.final_message().content == "1 EUR = 1.1 USD"
    assert [m.content for m in output.intermediate_responses] == ["Looking up rates...", "draft"]


def test_artifact_append_replace_and_untyped_data() -> None:
    def update(text: str, append: bool) -> dict[str, Any]:
        return {"artifactUpdate": {"artifact": {"artifactId": "a", "parts": [{"text": text}]}, "append": append}}

    assert _turn([update("Hel", False), update("lo", True)]).output().final_message().content == "Hello"
    assert _turn([update("Hel", False), update("Hello!", False)]).output().final_message().content == "Hello!"
    data = {"kind": "message", "role": "agent", "parts": [{"kind": "data", "data": {"rate": 1.1}}]}
    assert _turn([data]).output().final_message().content == '{"rate": 1.1}'


def test_interrupted_and_failed_tasks() -> None:
    waiting = _turn([_status("input-required", [{"text": "Which city?"}])])
    assert (waiting.state, waiting.ended, waiting.output().final_message().content) == (
        "input_required",
        True,
        "Which city?",
    )
    failed = _turn([_status("TASK_STATE_FAILED", [{"text": "the tool broke"}])])
    assert (failed.state, failed.error_text) == ("failed", "the tool broke")


def test_a_response_without_its_call_fails() -> None:
    with pytest.raises(AgentError, match="A2A function response for 'lookup' \\(id 'x'\\) without a matching call"):
        _turn([_status("working", [_data("function_response", {"id": "x", "name": "lookup", "response": {}}, "type")])])


def test_a_task_snapshot_repeating_streamed_messages_adds_nothing() -> None:
    streamed = _status("working", [{"text": "step"}], mid="m1")
    snapshot = {"task": {"id": "t", "status": {"state": "completed"},
                         "history": [streamed["statusUpdate"]["status"]["message"]],
                         "artifacts": [{"artifactId": "a", "parts": [{"text": "done"}]}]}}  # fmt: skip
    output = _turn([streamed, snapshot]).output()
    assert [m.content for m in output.intermediate_responses] == ["step"]
    assert output.final_message().content == "done"


def test_unknown_items_fail() -> None:
    with pytest.raises(AgentError, match="unknown A2A stream item"):
        A2aTurn().add({"surprise": {}})


@pytest.mark.parametrize(
    ("raw", "state"),
    [("TASK_STATE_INPUT_REQUIRED", "input_required"), ("input-required", "input_required"), ("completed", "completed")],
)
def test_task_state_spellings(raw: str, state: str) -> None:
    assert task_state(raw) == state


@given(st.lists(st.text(min_size=1), min_size=1, max_size=8), st.booleans())
def test_streamed_chunks_rebuild_the_answer(chunks: list[str], trpc_style: bool) -> None:
    """Chunks with ``append`` (A2A) or trpc-agent-go's chunk object type, whatever their text, join in order."""
    turn = A2aTurn()
    for index, chunk in enumerate(chunks):
        meta = {"object_type": "chat.completion.chunk"} if trpc_style else {}
        artifact = {"artifactId": "a", "parts": [{"kind": "text", "text": chunk}]}
        turn.add(
            {"kind": "artifact-update", "artifact": artifact, "append": index > 0 and not trpc_style, "metadata": meta}
        )
    assert turn.output().final_message().content == "".join(chunks)
