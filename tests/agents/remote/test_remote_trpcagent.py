"""The tRPC-Agent API (``trpcagent+http://``) against a loopback server written from trpc-agent-go's protocol: the
calculator scores exactly as in-process, the request is trpc's, sub-agent hand-offs become executed-agent records,
a trace-only answer gives its tool calls, and faults fail their case with one message."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _in_memory import evaluate_in_memory
from _servers import CALCULATOR, free_port
from _trpcagent_service import calculator_agent

from agentgauge.agents import AgentRequest
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent, preflight_remote_agents
from agentgauge.agents.remote._trpcagent import TrpcAgent, parse_trpcagent_url
from agentgauge.agents.remote._trpcagent_convert import executed_agents, run_output
from agentgauge.errors import AgentError, InputError
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.model import EvalCase, EvalSet, Invocation, Message, SessionInput


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (
            "trpcagent+http://127.0.0.1:8081/travel",
            ("trpcagent+http", "http://127.0.0.1:8081/trpc-agent/v1/apps/travel", "travel"),
        ),
        (
            "trpcagent+https://h.example/custom/base/travel/",
            ("trpcagent+https", "https://h.example/custom/base/travel", "travel"),
        ),
        (
            "TRPCAGENT+HTTP://h:1/trpc-agent/v1/apps/a.b",
            ("trpcagent+http", "http://h:1/trpc-agent/v1/apps/a.b", "a.b"),
        ),
    ],
)
def test_trpcagent_urls(spec: str, expected: tuple[str, str, str]) -> None:
    assert parse_trpcagent_url(spec) == expected
    assert isinstance(load_remote_agent(spec), TrpcAgent)


@pytest.mark.parametrize("spec", ["trpcagent+http://127.0.0.1:8081", "trpcagent+http://h/", "trpcagent+http://h/a?x=1"])
def test_trpcagent_urls_without_an_app_are_refused(spec: str) -> None:
    with pytest.raises(InputError, match=r"trpcagent\+http://HOST:PORT\[/BASE_PATH\]/APP"):
        load_remote_agent(spec)


def _scores(result: Any) -> dict[Any, Any]:
    table: dict[Any, Any] = {}
    for case in result.eval_case_results:
        table[case.eval_id] = (case.final_eval_status.value, case.score)
        for index, per in enumerate(case.eval_metric_result_per_invocation):
            table[(case.eval_id, index)] = [
                (m.metric_name, m.score, m.eval_status.value) for m in per.eval_metric_results
            ]
    return table


def _actual(result: Any) -> dict[Any, Any]:
    return {
        (case.eval_id, i): per.actual_invocation.model_dump(include={"final_response", "tools"})
        for case in result.eval_case_results
        for i, per in enumerate(case.eval_metric_result_per_invocation)
    }


@pytest.mark.parametrize("base", ["", "/custom/base"])
def test_calculator_scores_identical_in_process_and_over_trpcagent(
    trpcagent_server: tuple[str, Any], base: str
) -> None:
    address, _ = trpcagent_server
    eval_set = load_eval_set(CALCULATOR / "calculator.evalset.json")
    metrics = load_metrics(CALCULATOR / "calculator.metrics.json")
    reference = evaluate_in_memory(calculator_agent(), eval_set, metrics)
    remote = evaluate_in_memory(f"trpcagent+http://{address}{base}/calculator", eval_set, metrics)
    assert [c.error_message for c in remote.eval_case_results] == [None] * len(eval_set.eval_cases)
    assert _scores(remote) == _scores(reference)
    assert {c.score for c in remote.eval_case_results} == {1.0}  # trpc's case score, as in-process
    assert _actual(remote) == _actual(reference)
    first = remote.eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert first.execution_trace["RootAgentName"] == "calculator"  # kept as sent
    assert [(a.name, a.parent_invocation_id) for a in first.agents] == [("calculator", "")]
    assert first.invocation_id == first.agents[0].invocation_id == first.execution_trace["RootInvocationID"]


def test_the_run_request_is_trpcs(trpcagent_server: tuple[str, Any]) -> None:
    address, service = trpcagent_server
    case = EvalCase(
        eval_id="stateful",
        session_input=SessionInput(user_id="ada", state={"plan": "pro"}),
        conversation=[Invocation(user_content=Message(role="user", content="calc add 1 1"))],
    )
    before = len(service.requests)
    result = evaluate_in_memory(
        f"trpcagent+http://{address}/calculator", EvalSet(eval_set_id="s", eval_cases=[case]), []
    )
    (case_result,) = result.eval_case_results
    assert case_result.error_message is None
    (sent,) = service.requests[before:]
    assert set(sent) == {"session", "input", "runOptions"}
    assert sent["session"] == {"userId": "ada", "sessionId": case_result.session_id}
    assert sent["input"] == {"role": "user", "content": "calc add 1 1"}
    options = sent["runOptions"]
    assert options["executionTraceEnabled"] is True and options["runtimeState"] == {"plan": "pro"}
    assert len(options["requestID"]) == 32


def _turn(agent: Any, text: str = "museums in Lyon?") -> Any:
    request = AgentRequest(user_content=Message(role="user", content=text), session_id="s1", user_id="u")
    return asyncio.run(agent.run(request))


def test_a_hand_off_to_a_sub_agent_is_recorded(trpcagent_server: tuple[str, Any]) -> None:
    address, _ = trpcagent_server
    output = _turn(load_remote_agent(f"trpcagent+http://{address}/relay"))
    assert output.final_message().content == "Three museums are open in Lyon."
    assert [(t.name, t.arguments, t.result) for t in output.tools] == [("lookup", {"city": "Lyon"}, {"museums": 3})]
    assert [m.content for m in output.intermediate_responses] == ["Lyon has 3 museums open today."]
    root, child = output.agents
    assert (root.name, root.branch, root.parent_invocation_id) == ("relay", "relay", "")
    assert (child.name, child.branch, child.parent_invocation_id) == (
        "researcher",
        "relay/researcher",
        root.invocation_id,
    )
    assert output.invocation_id == root.invocation_id


def test_a_trace_only_answer_gives_its_tool_calls(trpcagent_server: tuple[str, Any]) -> None:
    address, _ = trpcagent_server
    output = _turn(load_remote_agent(f"trpcagent+http://{address}/traceonly"), "calc mul 6 7")
    assert output.final_message().content == "calc result: 42"
    assert [(t.name, t.arguments, t.result["result"]) for t in output.tools] == [
        ("calculator", {"operation": "mul", "a": 6, "b": 7}, 42)
    ]


def test_a_failed_run_fails_its_case_with_the_agents_error(trpcagent_server: tuple[str, Any]) -> None:
    address, _ = trpcagent_server
    with pytest.raises(AgentError) as caught:
        _turn(load_remote_agent(f"trpcagent+http://{address}/failing"))
    assert str(caught.value) == (
        f"trpcagent+http agent: POST http://{address}/trpc-agent/v1/apps/failing/runs: HTTP 200: "
        "agent error: run_error: the travel tool is down"
    )


def test_the_preflight_checks_the_app(trpcagent_server: tuple[str, Any]) -> None:
    address, _ = trpcagent_server
    asyncio.run(preflight_remote_agents([load_remote_agent(f"trpcagent+http://{address}/calculator")]))
    with pytest.raises(InputError) as caught:
        asyncio.run(preflight_remote_agents([load_remote_agent(f"trpcagent+http://{address}/nowhere")]))
    assert (
        f"trpcagent+http agent: GET http://{address}/trpc-agent/v1/apps/nowhere/runs: HTTP 404: the server serves "
        "no tRPC-Agent app 'nowhere' here" in str(caught.value)
    )


def test_a_closed_port_fails_after_the_retries() -> None:
    port = free_port()
    agent = load_remote_agent(f"trpcagent+http://127.0.0.1:{port}/x", RemoteAgentSettings(retries=1, backoff=0))
    with pytest.raises(AgentError, match=r"cannot connect .*\(after 2 attempts\)"):
        _turn(agent)


def _completion(request_id: str = "r", invocation: str = "root", **extra: Any) -> dict[str, Any]:
    return {"requestID": request_id, "invocationId": invocation, "object": "runner.completion", "done": True, **extra}


def _final(text: str, invocation: str = "root", request_id: str = "r") -> dict[str, Any]:
    choice = {"index": 0, "message": {"role": "assistant", "content": text}}
    return {"requestID": request_id, "invocationId": invocation, "done": True, "choices": [choice]}


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"status": "failed", "errorMessage": "no runner"}, "no runner"),
        ({"events": {"a": 1}}, "the answer's events are not a list of objects"),
        ({"events": [_final("x", request_id="other"), _completion()]}, "event 0 belongs to request 'other'"),
        ({"events": [_final("x")]}, "the last event is not the runner completion"),
        ({"status": "incomplete", "events": [_completion()]}, "the run is incomplete"),
        (
            {
                "events": [
                    {"requestID": "r", "invocationId": "root", "choices": [{"message": {"tool_id": "ghost"}}]},
                    _completion(),
                ]
            },
            "a tool result names tool call id 'ghost'",
        ),
        ({"events": [_completion(error={"type": "run_error", "message": "boom"})]}, "agent error: run_error: boom"),
    ],
)
def test_answers_that_are_no_complete_run_are_refused(answer: dict[str, Any], problem: str) -> None:
    with pytest.raises(AgentError, match=problem):
        run_output(answer, "r")


def test_the_final_response_is_the_root_invocations_and_the_others_are_intermediate() -> None:
    events = [_final("sub answer", "child"), _final("draft"), _final("answer"), _completion()]
    output = run_output({"status": "completed", "events": events}, "r")
    assert output.final_message().content == "answer"
    assert [m.content for m in output.intermediate_responses] == ["sub answer", "draft"]


def test_executed_agents_are_listed_once_even_when_parents_form_a_cycle() -> None:
    observed = [("a", "b", "x/a", ""), ("b", "a", "x/b", ""), ("r", "", "r", "root"), ("c", "r", "", "helper")]
    agents = executed_agents(observed, root="r")
    assert [(a.invocation_id, a.name) for a in agents] == [("r", "r"), ("c", "helper"), ("a", "a"), ("b", "b")]
    chain = [(f"i{n}", f"i{n - 1}" if n else "", "", "user") for n in range(20_000)]  # deep, not recursive
    assert len(executed_agents(chain, root="i0")) == 20_000
