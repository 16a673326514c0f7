"""Replay on the OpenAI-compatible tool loop (``OpenAIAgent`` against a scripted loopback chat server): every call is
answered from the recording, the model sees the recorded results, a drifted call gets the refusal as its tool
result, and the turn's record says so."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer
from test_tool_mocks import _completion, _run, _tool_call, get_weather

from agentgauge.agents import OpenAIAgent
from agentgauge.mocks import replay_case
from agentgauge.model import EvalCase, EvalStatus, Invocation

RECORDED = Invocation.model_validate(
    {
        "userContent": {"content": "Weather in Paris and Oslo?"},
        "finalResponse": {"content": "Paris: rain, Oslo: snow."},
        "tools": [
            {"name": "get_weather", "arguments": {"city": "Paris"}, "result": {"condition": "rain"}},
            {"name": "get_weather", "arguments": {"city": "Oslo"}, "result": {"condition": "snow"}},
        ],
    }
)


def _calls(*cities: str) -> list[dict[str, Any]]:
    """The scripted model: one completion per city calling ``get_weather``, then the answer."""
    calls = [
        _completion(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_tool_call(f"c{i}", "get_weather", json.dumps({"city": c}))],
            }
        )
        for i, c in enumerate(cities, start=1)
    ]
    return [*calls, _completion({"role": "assistant", "content": "Paris: rain, Oslo: snow."})]


def _replay_case() -> dict[str, Any]:
    case, warnings = replay_case(EvalCase(eval_id="two_cities", conversation=[RECORDED]), "strict")
    assert warnings == []
    return case.model_dump(mode="json", by_alias=True, exclude_none=True)


@pytest.mark.parametrize(("cities", "fidelity"), [(("Paris", "Oslo"), 1.0), (("Paris", "Rome"), 0.5)])
async def test_the_openai_tool_loop_is_served_from_the_recording(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch, cities: tuple[str, str], fidelity: float
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chat_server.queue(*_calls(*cities))
    agent = OpenAIAgent("m", base_url=chat_server.base_url, tools=[get_weather])
    case = _replay_case()
    results = await _run(agent, [case])
    [turn] = results["two_cities"].eval_metric_result_per_invocation
    tool_messages = [m["content"] for m in chat_server.requests[-1].body["messages"] if m["role"] == "tool"]
    record = turn.actual_invocation.replay
    assert record is not None and record.mode == "strict" and record.recorded == 2
    assert tool_messages[0] == '{"condition": "rain"}'  # the model saw the recorded result, not the real tool's
    assert turn.actual_invocation.tools[0].result == {"condition": "rain"}
    assert record.fidelity == fidelity
    if fidelity == 1.0:
        assert tool_messages[1] == '{"condition": "snow"}' and not record.drift and not record.unconsumed
        return
    assert "replay: no recorded result for get_weather" in tool_messages[1]  # the drifted call's refusal
    [drift] = record.drift
    assert (drift.name, drift.recorded, drift.arguments, drift.served) == (
        "get_weather",
        {"city": "Oslo"},
        {"city": "Rome"},
        False,
    )
    assert [(c.name, c.arguments) for c in record.unconsumed] == [("get_weather", {"city": "Oslo"})]
    assert results["two_cities"].final_eval_status is not EvalStatus.ERROR  # a refusal is a tool result, not a crash
