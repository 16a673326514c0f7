"""ADK's HTTP API (``adk+http://``): the same conversion as in-process ADK agents, identical scores for the
calculator eval set, the ``/run`` fallback, session creation, and faults that fail one case with one message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from _fault_service import SECRET_IN_BODY
from _servers import CALCULATOR, HERE, require

try:
    from google.adk.events import Event
    from google.adk.events.event_actions import EventActions
    from google.genai import types
except ImportError:  # skipped without google-adk, failed under CI=true
    require("google.adk")
    raise

from _in_memory import evaluate_in_memory

from agentgauge._util.redact import clear_secrets, register_secret
from agentgauge.agents import AgentError, load_agent
from agentgauge.agents._adk import adk_events_to_output
from agentgauge.agents._adk_convert import adk_views_to_output, view_of_adk_json
from agentgauge.agents.remote import load_remote_agent
from agentgauge.agents.remote._adk_http import AdkHttpAgent, parse_adk_url
from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.model import EvalCase, EvalSet, Invocation, Message, SessionInput


def _part_call(name: str, args: dict[str, Any] | None, call_id: str = "c1") -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args))


def _part_response(name: str, response: dict[str, Any], call_id: str = "c1") -> types.Part:
    return types.Part(function_response=types.FunctionResponse(id=call_id, name=name, response=response))


def _event(author: str = "agent", parts: list[types.Part] | None = None, **fields: Any) -> Event:
    content = types.Content(role="model", parts=parts) if parts is not None else None
    return Event(author=author, content=content, **fields)


USAGE = types.GenerateContentResponseUsageMetadata(
    prompt_token_count=11, candidates_token_count=4, thoughts_token_count=2
)

# Each row: a name and the events of one invocation. Both conversions must give the same output.
CONVERSION_CASES: list[tuple[str, list[Event]]] = [
    (
        "tool call, response, final text",
        [
            _event(parts=[types.Part(text="Looking."), _part_call("lookup", {"q": "x"})], usage_metadata=USAGE),
            _event(parts=[_part_response("lookup", {"hits": 3})]),
            _event(parts=[types.Part(text="3 hits")], model_version="m-1", usage_metadata=USAGE),
        ],
    ),
    ("thought text is not an answer", [_event(parts=[types.Part(text="hmm", thought=True), types.Part(text="ok")])]),
    (
        "partial events are skipped",
        [_event(parts=[types.Part(text="par")], partial=True), _event(parts=[types.Part(text="full")])],
    ),
    ("user events are skipped", [_event("user", [types.Part(text="hi")]), _event(parts=[types.Part(text="hello")])]),
    (
        "two final texts: the last is final, the first intermediate",
        [_event("planner", [types.Part(text="plan")]), _event("writer", [types.Part(text="answer")])],
    ),
    (
        "skip summarization makes a tool response final",
        [
            _event(parts=[_part_call("t", {})]),
            _event(
                parts=[_part_response("t", {"r": 1}), types.Part(text="raw")],
                actions=EventActions(skip_summarization=True),
            ),
        ],
    ),
    (
        "a long-running tool call with text is final",
        [_event(parts=[types.Part(text="waiting"), _part_call("approve", None)], long_running_tool_ids={"c1"})],
    ),
    (
        "a trailing code execution result is not final",
        [
            _event(
                parts=[
                    types.Part(text="ran"),
                    types.Part(code_execution_result=types.CodeExecutionResult(outcome="OUTCOME_OK", output="1")),
                ]
            ),
            _event(parts=[types.Part(text="done")]),
        ],
    ),
    (
        "response matched by name when ids differ",
        [_event(parts=[_part_call("t", {"a": 1}, "x")]), _event(parts=[_part_response("t", {"v": 2}, "")])],
    ),
    ("model call without usage counts", [_event(parts=[types.Part(text="a")], model_version="m-2")]),
]


def _as_json(event: Event) -> dict[str, Any]:
    # What ADK's API server sends for an event.
    return event.model_dump(exclude_none=True, by_alias=True, mode="json")  # type: ignore[no-any-return]


@pytest.mark.parametrize(("name", "events"), CONVERSION_CASES, ids=[c[0] for c in CONVERSION_CASES])
def test_json_events_convert_exactly_as_adk_event_objects(name: str, events: list[Event]) -> None:
    in_process = adk_events_to_output(events)
    over_http = adk_views_to_output([view_of_adk_json(_as_json(e)) for e in events])
    assert over_http.model_dump() == in_process.model_dump(), name
    assert [view_of_adk_json(_as_json(e)).final for e in events] == [e.is_final_response() for e in events]


def test_error_events_fail_the_same_way() -> None:
    events = [_event(parts=[types.Part(text="x")], error_code="SAFETY", error_message="blocked")]
    with pytest.raises(AgentError) as in_process:
        adk_events_to_output(events)
    with pytest.raises(AgentError) as over_http:
        adk_views_to_output([view_of_adk_json(_as_json(e)) for e in events])
    assert str(over_http.value) == str(in_process.value) == "ADK agent error SAFETY: blocked"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("adk+http://127.0.0.1:8000/apps/calc", ("adk+http", "http://127.0.0.1:8000", "calc")),
        ("adk+https://h.example/api/v1/apps/calc/", ("adk+https", "https://h.example/api/v1", "calc")),
    ],
)
def test_adk_urls(spec: str, expected: tuple[str, str, str]) -> None:
    assert parse_adk_url(spec) == expected


@pytest.mark.parametrize("spec", ["adk+http://127.0.0.1:8000", "adk+http://h/apps/", "adk+http://h/apps/a/b"])
def test_adk_urls_without_an_app_are_refused(spec: str) -> None:
    with pytest.raises(InputError, match="adk\\+http://HOST:PORT\\[/PREFIX\\]/apps/APP_NAME"):
        load_remote_agent(spec)


def _scores(result: Any) -> dict[tuple[str, int], list[tuple[str, float | None, str]]]:
    table = {}
    for case in result.eval_case_results:
        for index, per in enumerate(case.eval_metric_result_per_invocation):
            table[(case.eval_id, index)] = [
                (m.metric_name, m.score, m.eval_status.value) for m in per.eval_metric_results
            ]
    return table


def _actual(result: Any) -> dict[tuple[str, int], Any]:
    return {
        (case.eval_id, i): per.actual_invocation.model_dump(
            include={"final_response", "tools", "intermediate_responses", "usage"}
        )
        for case in result.eval_case_results
        for i, per in enumerate(case.eval_metric_result_per_invocation)
    }


def test_calculator_scores_identical_in_process_and_over_adk_http(adk_server: str) -> None:
    eval_set = load_eval_set(CALCULATOR / "calculator.evalset.json")
    metrics = load_metrics(CALCULATOR / "calculator.metrics.json")
    reference = evaluate_in_memory(load_agent(str(HERE / "calculator_adk")), eval_set, metrics, parallelism=8)
    remote = evaluate_in_memory(f"adk+http://{adk_server}/apps/calculator_adk", eval_set, metrics, parallelism=8)
    assert [c.error_message for c in remote.eval_case_results] == [None] * len(eval_set.eval_cases)
    assert _scores(remote) == _scores(reference)
    assert len(_scores(reference)) >= len(eval_set.eval_cases)
    assert _actual(remote) == _actual(reference)  # tools, answers, authors, token usage and model calls


def test_run_is_used_when_the_server_has_no_run_sse(adk_server_without_sse: str) -> None:
    agent = load_remote_agent(f"adk+http://{adk_server_without_sse}/apps/calculator_adk")
    assert isinstance(agent, AdkHttpAgent)
    eval_set = load_eval_set(CALCULATOR / "calculator.evalset.json")
    result = evaluate_in_memory(agent, eval_set, load_metrics(CALCULATOR / "calculator.metrics.json"), parallelism=8)
    assert {c.final_eval_status.value for c in result.eval_case_results} == {"passed"}
    assert agent._sse is False


def test_the_session_is_created_with_the_cases_user_and_state(adk_server: str) -> None:
    case = EvalCase(
        eval_id="stateful",
        session_input=SessionInput(app_name="calculator_adk", user_id="ada", state={"plan": "pro", "n": 2}),
        conversation=[Invocation(user_content=Message(role="user", content="calc add 1 1"))],
    )
    result = evaluate_in_memory(
        f"adk+http://{adk_server}/apps/calculator_adk", EvalSet(eval_set_id="s", eval_cases=[case]), [], parallelism=8
    )
    (case_result,) = result.eval_case_results
    assert case_result.error_message is None
    sessions = httpx.get(f"http://{adk_server}/apps/calculator_adk/users/ada/sessions").json()
    states = [s["state"] for s in sessions]
    assert {"plan": "pro", "n": 2} in states


FAULTS = {
    "ok": None,
    "truncated": "event stream ended in the middle of an event",
    "malformed": "an event is not JSON",
    "agent error": "agent error: ValueError: the tool broke",
    "status 500": "HTTP 500",
    "status 404": "HTTP 404",
    "status 422": "HTTP 422",
}


def test_faults_fail_their_own_case_with_one_clear_message(fault_server: str) -> None:
    register_secret(SECRET_IN_BODY)
    try:
        cases = [
            EvalCase(eval_id=text.replace(" ", "_"), conversation=[Invocation(user_content=Message(content=text))])
            for text in FAULTS
        ]
        from agentgauge.agents.remote import RemoteAgentSettings

        settings = RemoteAgentSettings(retries=1, backoff=0)
        agent = load_agent(f"adk+http://{fault_server}/adk/apps/faulty", remote=settings)
        result = evaluate_in_memory(agent, EvalSet(eval_set_id="faults", eval_cases=cases), [], parallelism=8)
    finally:
        clear_secrets()
    by_id = {c.eval_id: c for c in result.eval_case_results}
    for text, expected in FAULTS.items():
        case = by_id[text.replace(" ", "_")]
        if expected is None:
            assert case.error_message is None
            continue
        message = case.error_message or ""
        assert expected in message, message
        assert f"adk+http agent: POST http://{fault_server}/adk/run_sse" in message, message
        assert "\n" not in message and SECRET_IN_BODY not in message
    assert "***" in by_id["status_500"].error_message  # the echoed token, masked


def test_a_server_that_stops_answering_fails_at_the_read_timeout(fault_server: str) -> None:
    from agentgauge.agents.remote import RemoteAgentSettings

    agent = load_agent(f"adk+http://{fault_server}/adk/apps/faulty", remote=RemoteAgentSettings(read_timeout=0.3))
    case = EvalCase(eval_id="hang", conversation=[Invocation(user_content=Message(content="hang"))])
    (result,) = evaluate_in_memory(
        agent, EvalSet(eval_set_id="t", eval_cases=[case]), [], parallelism=8
    ).eval_case_results
    assert (result.error_message or "").endswith(
        f"adk+http agent: POST http://{fault_server}/adk/run_sse: no answer within the read timeout"
    )


def test_a_refused_connection_fails_after_the_retries(tmp_path: Path) -> None:
    from _servers import free_port

    from agentgauge.agents.remote import RemoteAgentSettings

    port = free_port()
    agent = load_agent(f"adk+http://127.0.0.1:{port}/apps/x", remote=RemoteAgentSettings(retries=2, backoff=0))
    case = EvalCase(eval_id="down", conversation=[Invocation(user_content=Message(content="hi"))])
    (result,) = evaluate_in_memory(
        agent, EvalSet(eval_set_id="t", eval_cases=[case]), [], parallelism=8
    ).eval_case_results
    message = result.error_message or ""
    assert f"adk+http agent: POST http://127.0.0.1:{port}/apps/x/users/user/sessions/" in message, message
    assert "cannot connect" in message and "(after 3 attempts)" in message
