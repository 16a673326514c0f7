"""ADK legacy forms: .test.json rows and [{name, data, initial_session}] entries."""

from __future__ import annotations

import json
from pathlib import Path

from agentgauge.formats import parse_eval_set, session_input_from_initial

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


SAVED_SESSION = {
    "id": "5f1c",
    "app_name": "app",
    "user_id": "u",
    "state": {"x": 1},
    "events": [{"author": "user", "content": {"role": "user", "parts": [{"text": "old"}]}}],
    "last_update_time": 1761134484.98,
}


def test_initial_session_keeps_only_app_user_and_state() -> None:
    # A saved ADK Session as initial_session: ADK builds SessionInput from app_name, user_id and state only.
    doc = [{"name": "one", "data": ROWS[:1], "initial_session": SAVED_SESSION}, {"name": "two", "data": ROWS[1:]}]
    session = parse_eval_set(json.dumps(doc), source="old.json").eval_cases[0].session_input
    assert session is not None
    assert session.model_dump(mode="json") == {"appName": "app", "userId": "u", "state": {"x": 1}}
    assert session_input_from_initial(SAVED_SESSION, "s.json").model_extra == {}


def test_empty_initial_session_gives_no_session_input() -> None:
    doc = [{"name": "one", "data": ROWS[:1], "initial_session": {}}]
    assert parse_eval_set(json.dumps(doc), source="old.json").eval_cases[0].session_input is None


def test_migrate_initial_session_drops_saved_session_fields(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentgauge.cli import app

    rows, session, target = tmp_path / "t.test.json", tmp_path / "initial.session.json", tmp_path / "t.evalset.json"
    rows.write_text(json.dumps(ROWS))
    session.write_text(json.dumps(SAVED_SESSION))
    res = CliRunner().invoke(app, ["migrate", str(rows), str(target), "--initial-session", str(session)])
    assert res.exit_code == 0, res.output
    written = json.loads(target.read_text())["evalCases"][0]["sessionInput"]
    assert written == {"appName": "app", "userId": "u", "state": {"x": 1}}


def test_tool_input_null_is_no_arguments() -> None:
    rows = [
        {
            "query": "q",
            "expected_tool_use": [{"tool_name": "a", "tool_input": None}, {"tool_name": "b", "tool_input": {}}],
        }
    ]
    [case] = parse_eval_set(json.dumps(rows), source="x.test.json").eval_cases
    assert [t.arguments for t in (case.conversation or [])[0].tools] == [None, {}]
