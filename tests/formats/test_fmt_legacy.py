"""ADK legacy forms: .test.json rows and [{name, data, initial_session}] entries."""

from __future__ import annotations

import json

from agentgauge.formats import parse_eval_set

ROWS = [
    {
        "query": "hi",
        "expected_tool_use": [{"tool_name": "t", "tool_input": {"a": 1}, "mock_tool_output": "m"}],
        "expected_intermediate_agent_responses": [{"author": "sub", "text": "working"}],
        "reference": "hello",
    },
    {"query": "bye"},
]


def test_rows_become_one_case_named_after_the_file() -> None:
    es = parse_eval_set(json.dumps(ROWS), source="dir/greeting.test.json")
    assert es.eval_set_id == "greeting"
    [case] = es.eval_cases
    assert case.eval_id == "greeting"
    first, second = case.conversation or []
    assert first.invocation_id == "greeting-1"
    assert (first.tools[0].name, first.tools[0].arguments, first.tools[0].id) == ("t", {"a": 1}, "greeting-1-tool-1")
    assert first.intermediate_responses[0].content == "working"
    assert first.final_response is not None and first.final_response.content == "hello"
    assert second.final_response is not None and second.final_response.content == ""
    assert second.tools == []


def test_named_entries_with_initial_session() -> None:
    doc = [
        {"name": "one", "data": ROWS[:1], "initial_session": {"state": {"x": 1}, "app_name": "app", "user_id": "u"}},
        {"name": "two", "data": ROWS[1:]},
    ]
    es = parse_eval_set(json.dumps(doc), source="old.json")
    assert [c.eval_id for c in es.eval_cases] == ["one", "two"]
    session = es.eval_cases[0].session_input
    assert session is not None and (session.app_name, session.user_id, session.state) == ("app", "u", {"x": 1})
    assert es.eval_cases[1].session_input is None
