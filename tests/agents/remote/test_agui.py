"""``agui+http``: the calculator eval set scored in-process and over AG-UI gives identical invocations and scores
(the multi-turn case needs the history the client sends); what the request carries; faults fail their case with
one message."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _a2a_servers import SECRET_IN_BODY, evaluate_calculator, per_invocation
from _agui_servers import example_server_module, fault_app
from _servers import CALCULATOR, require, serving

from agentgauge._util.redact import register_secret
from agentgauge.agents import AgentRequest, load_agent
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent
from agentgauge.errors import AgentError
from agentgauge.model import Invocation, Message, Tool

FAST = RemoteAgentSettings(read_timeout=1.0, connect_timeout=2.0, retries=2, backoff=0.0)


@pytest.fixture(scope="module")
def agui_calculator() -> Iterator[str]:
    """``HOST:PORT`` of the AG-UI calculator (endpoint ``/agui``)."""
    module = example_server_module()
    require("uvicorn")
    with serving(lambda url: module.create_app()) as address:
        yield address


@pytest.fixture(scope="module")
def agui_faults() -> Iterator[str]:
    """``HOST:PORT`` of the AG-UI fault server."""
    require("ag_ui.core")
    require("uvicorn")
    register_secret(SECRET_IN_BODY)
    with serving(fault_app) as address:
        yield address


def _send(agent: Any, text: str, **fields: Any) -> Any:
    request = AgentRequest(user_content={"role": "user", "content": text}, session_id=f"s-{text}", **fields)
    return asyncio.run(agent.run(request))


def test_agui_calculator_scores_like_the_in_process_calculator(agui_calculator: str) -> None:
    reference = per_invocation(evaluate_calculator(load_agent(str(CALCULATOR / "agent.py"))), usage=False)
    remote = per_invocation(evaluate_calculator(load_remote_agent(f"agui+http://{agui_calculator}/agui")), usage=False)
    assert remote == reference
    assert remote[("calc_multi_turn", 1)]["tools"][0]["arguments"] == {"operation": "mul", "a": 5, "b": 4}


def test_the_request_carries_thread_history_state_and_user(agui_faults: str) -> None:
    earlier = Invocation(
        user_content=Message(role="user", content="calc add 2 3"),
        tools=[Tool(id="c1", name="calculator", arguments={"a": 2}, result={"result": 5})],
        final_response=Message(role="assistant", content="calc result: 5"),
    )
    agent = load_remote_agent(f"agui+http://{agui_faults}/agui")
    output = _send(agent, "ok", user_id="alice", state={"mode": "fast"}, history=[earlier])
    body = httpx.get(f"http://{agui_faults}/seen").json()["body"]
    assert body["threadId"] == "s-ok"
    assert body["state"] == {"mode": "fast"}
    assert body["forwardedProps"] == {"userId": "alice"}
    assert [(m["role"], m.get("content")) for m in body["messages"]] == [
        ("user", "calc add 2 3"),
        ("assistant", None),
        ("tool", '{"result": 5}'),
        ("assistant", "calc result: 5"),
        ("user", "ok"),
    ]
    assert body["messages"][1]["toolCalls"][0]["function"] == {"name": "calculator", "arguments": '{"a": 2}'}
    # chunked text joined, an unknown event type skipped, usage summed
    assert output.final_message().content == "fine"
    assert (output.usage.input_tokens, output.usage.output_tokens, output.usage.total_tokens) == (7, 3, 10)


@pytest.mark.parametrize(
    ("text", "detail", "attempts"),
    [
        ("status 500", """HTTP 500: body: '{"detail":"failing on purpose, token=***"}'""", 3),
        ("status 400", """HTTP 400: body: '{"detail":"failing on purpose, token=***"}'""", 1),
        ("json", """HTTP 200: not an event stream (application/json): body: '{"answer":"not a stream"}'""", 1),
        ("truncated", "HTTP 200: event stream ended in the middle of an event", 1),
        ("malformed", "HTTP 200: an event is not JSON: '{not json'", 1),
        ("invalid", "HTTP 200: invalid TOOL_CALL_START event: 1 validation error for tagged-union[", 1),
        ("run error", "RUN_ERROR UNAVAILABLE: the model is down", 1),
        ("no finish", "the event stream ended before RUN_FINISHED", 1),
        ("hang", "HTTP 200: event stream broke: no answer within the read timeout", 1),
    ],
)
def test_faults_fail_with_one_message(agui_faults: str, text: str, detail: str, attempts: int) -> None:
    with pytest.raises(AgentError) as caught:
        _send(load_remote_agent(f"agui+http://{agui_faults}/agui", FAST), text)
    assert str(caught.value).startswith(f"agui+http agent: POST http://{agui_faults}/agui: {detail}")
    assert SECRET_IN_BODY not in str(caught.value)
    assert httpx.get(f"http://{agui_faults}/seen").json()["attempts"][text] == attempts
