"""Token usage and durations in ADK files: read from invocation events, written back as ADK expects, no loss."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentgauge.formats import parse_eval_set, to_adk_eval_set
from agentgauge.model import EvalCase, EvalSet, Invocation, Message, TokenUsage, Tool

RESPONSE = {"id": "c1", "name": "w", "response": {"r": 1}}
ADK_INVOCATION: dict[str, Any] = {
    "invocation_id": "i1",
    "user_content": {"role": "user", "parts": [{"text": "weather?"}]},
    "final_response": {"role": "model", "parts": [{"text": "sunny"}]},
    "intermediate_data": {
        "invocation_events": [
            {
                "author": "root",
                "content": {"role": "model", "parts": [{"function_call": {"id": "c1", "name": "w", "args": {}}}]},
                "usage_metadata": {
                    "prompt_token_count": 100,
                    "candidates_token_count": 7,
                    "thoughts_token_count": 3,
                    "cached_content_token_count": 40,
                },
                "model_version": "gemini-2.5-flash",
            },
            {
                "author": "root",
                "content": {
                    "role": "user",
                    "parts": [{"function_response": {"id": "c1", "name": "w", "response": {}}}],
                },
            },
            {"author": "root", "usage_metadata": {"prompt_token_count": 120, "candidates_token_count": 5}},
        ]
    },
    "duration": 2.5,
    "model_duration": 1.75,
    "tool_duration": 0.25,
}


def _adk_set(inv: dict[str, Any]) -> str:
    return json.dumps({"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [inv]}]})


def test_events_usage_and_durations_are_read() -> None:
    [case] = parse_eval_set(_adk_set(ADK_INVOCATION)).eval_cases
    [inv] = case.conversation or []
    assert (inv.duration, inv.model_duration, inv.tool_duration) == (2.5, 1.75, 0.25)
    assert inv.usage == TokenUsage(
        input_tokens=220,
        output_tokens=15,
        total_tokens=235,
        prompt_tokens=220,
        cached_tokens=40,
        candidates_tokens=12,
        reasoning_tokens=3,
        model_calls=2,
        model="gemini-2.5-flash",
    )


def test_adk_round_trip_is_unchanged() -> None:
    eval_set = parse_eval_set(_adk_set(ADK_INVOCATION))
    written = to_adk_eval_set(eval_set)
    assert written["eval_cases"][0]["conversation"][0] == ADK_INVOCATION


@pytest.mark.parametrize("cost", [None, 0.0042])
def test_native_usage_survives_the_adk_form_and_adk_accepts_it(cost: float | None) -> None:
    adk_set = pytest.importorskip("google.adk.evaluation.eval_set")
    inv = Invocation(
        user_content=Message(content="q"),
        final_response=Message(role="assistant", content="a"),
        tools=[Tool(id="t", name="f", arguments={"x": 1}, result={"y": 2})],
        duration=1.5,
        usage=TokenUsage(input_tokens=10, output_tokens=5, total_tokens=15, model_calls=2, model="gpt-4o", cost=cost),
    )
    native = EvalSet(eval_set_id="s", eval_cases=[EvalCase(eval_id="c", conversation=[inv])])
    doc = to_adk_eval_set(native)
    adk = adk_set.EvalSet.model_validate(doc)  # ADK reads usage from the events we write
    events = adk.eval_cases[0].conversation[0].intermediate_data.invocation_events
    assert [e.model_version for e in events if e.model_version is not None] == ["gpt-4o", "gpt-4o"]
    assert sum(e.usage_metadata.prompt_token_count for e in events if e.usage_metadata) == 10
    back = parse_eval_set(json.dumps(doc))
    assert back.model_dump(mode="json") == native.model_dump(mode="json")  # the cost too, kept beside the ADK form
