"""Executed-agent records read from a trace's agent spans: a planner handing over to a researcher, which hands over
to a writer, gives one record each (span id, parent agent's span id, branch); a turn of one agent gives none."""

from __future__ import annotations

import json
from typing import Any

from _otlp_spans import otlp_export, otlp_span

from agentgauge.traces import extract_conversation, parse_traces


def _chat(span_id: str, parent: str, start: int, answer: str) -> dict[str, Any]:
    return otlp_span(
        span_id,
        "chat m",
        parent,
        start,
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps([{"role": "user", "content": "plan a trip"}]),
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "content": answer}]),
        },
    )


def _trace(*spans: dict[str, Any]) -> Any:
    [trace] = parse_traces(otlp_export(*spans))
    return trace


def test_hand_offs_become_executed_agent_records() -> None:
    trace = _trace(
        otlp_span("a1", "invoke_agent planner", "", 1, **{"gen_ai.operation.name": "invoke_agent"}),
        _chat("c1", "a1", 2, "asking the researcher"),
        otlp_span("a2", "invoke_agent researcher", "a1", 3, **{"gen_ai.agent.name": "researcher"}),
        _chat("c2", "a2", 4, "three museums"),
        otlp_span("a3", "invoke_agent writer", "a2", 5),
        _chat("c3", "a3", 6, "Three museums are open."),
    )
    [invocation] = extract_conversation(trace).invocations
    assert [(a.invocation_id, a.parent_invocation_id, a.name, a.branch) for a in invocation.agents] == [
        ("a1", "", "planner", "planner"),
        ("a2", "a1", "researcher", "planner/researcher"),
        ("a3", "a2", "writer", "planner/researcher/writer"),
    ]


def test_one_agent_hands_over_to_no_one() -> None:
    trace = _trace(otlp_span("a1", "invoke_agent solo", "", 1), _chat("c1", "a1", 2, "done"))
    [invocation] = extract_conversation(trace).invocations
    assert invocation.agents == []
