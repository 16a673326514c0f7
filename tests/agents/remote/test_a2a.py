"""``a2a+http``: the calculator eval set scored in-process and over A2A (the a2a-sdk example server, streaming and
not, and google-adk's own ``to_a2a``) gives identical invocations and scores; an A2A 0.3 server streaming the way
trpc-agent-go does is understood; headers and the user id reach the server."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _a2a_servers import adk_a2a_app, evaluate_calculator, example_server_module, fault_app, per_invocation
from _servers import CALCULATOR, require, serving

from agentgauge.agents import AgentRequest, load_agent
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent

pytestmark = pytest.mark.filterwarnings("ignore:.*EXPERIMENTAL.*:UserWarning")


@pytest.fixture(scope="session")
def a2a_calculator() -> Iterator[str]:
    """``HOST:PORT`` of the a2a-sdk calculator server (streaming)."""
    module = example_server_module()
    require("uvicorn")
    with serving(module.create_app) as address:
        yield address


@pytest.fixture(scope="session")
def a2a_calculator_unary() -> Iterator[str]:
    """The same server advertising no streaming: answers come as one task."""
    module = example_server_module()
    require("uvicorn")
    with serving(lambda url: module.create_app(url, streaming=False)) as address:
        yield address


@pytest.fixture(scope="session")
def a2a_calculator_rest() -> Iterator[str]:
    """The same server offering the HTTP+JSON (REST) binding instead of JSON-RPC."""
    module = example_server_module()
    require("uvicorn")
    with serving(lambda url: module.create_app(url.rstrip("/"), binding="HTTP+JSON")) as address:
        yield address


@pytest.fixture(scope="session")
def adk_a2a() -> Iterator[str]:
    """``HOST:PORT`` of google-adk's ``to_a2a(root_agent)`` serving the scripted ADK calculator."""
    require("uvicorn")
    with serving(adk_a2a_app) as address:
        yield address


@pytest.fixture(scope="session")
def a2a_faults() -> Iterator[str]:
    """``HOST:PORT`` of the hand-written fault / A2A 0.3 server."""
    require("a2a.client")
    require("uvicorn")
    with serving(fault_app) as address:
        yield address


@pytest.fixture(scope="session")
def in_process_calculator() -> dict[tuple[str, int], dict[str, Any]]:
    """The reference: examples/calculator/agent.py evaluated in-process."""
    return per_invocation(evaluate_calculator(load_agent(str(CALCULATOR / "agent.py"))), usage=False)


@pytest.mark.parametrize("server", ["a2a_calculator", "a2a_calculator_unary", "a2a_calculator_rest"])
def test_a2a_sdk_server_scores_like_the_in_process_calculator(
    server: str, request: pytest.FixtureRequest, in_process_calculator: dict[tuple[str, int], dict[str, Any]]
) -> None:
    address = request.getfixturevalue(server)
    remote = per_invocation(evaluate_calculator(load_remote_agent(f"a2a+http://{address}")), usage=False)
    assert remote == in_process_calculator
    assert remote[("calc_multi_turn", 1)]["final"]["content"] == "calc result: 20"  # "that" (5) came from the context
    assert remote[("calc_add", 0)]["tools"] == [
        {"id": "calc_1", "name": "calculator", "arguments": {"operation": "add", "a": 2, "b": 3},
         "result": {"a": 2, "b": 3, "operation": "add", "result": 5}}
    ]  # fmt: skip


def test_adk_to_a2a_scores_like_the_same_adk_agent_in_process(adk_a2a: str) -> None:
    require("google.adk")
    from calculator_adk.agent import root_agent

    from agentgauge.agents import as_agent

    reference = per_invocation(evaluate_calculator(as_agent(root_agent)))
    remote = per_invocation(evaluate_calculator(load_remote_agent(f"a2a+http://{adk_a2a}")))
    assert remote == reference
    # usage came over the wire: two model calls (tool call, then answer) of 50 + 5 tokens each
    assert remote[("calc_add", 0)]["usage"] == {
        "inputTokens": 100, "outputTokens": 10, "totalTokens": 110, "promptTokens": 100,
        "candidatesTokens": 10, "modelCalls": 2,
    }  # fmt: skip
    assert remote[("calc_add", 0)]["final"]["author"] == "calculator"


def test_the_card_url_itself_names_the_agent(a2a_calculator: str) -> None:
    agent = load_remote_agent(f"a2a+http://{a2a_calculator}/.well-known/agent-card.json")
    output = _run(agent, "calc mul 6 7")
    assert output.final_message().content == "calc result: 42"


def test_trpc_agent_go_style_stream_over_a2a_0_3(a2a_faults: str) -> None:
    """Card at the older ``agent.json`` path, 0.3 JSON-RPC, ``type`` metadata, JSON-string args and response,
    answer chunks of one artifact without ``append``."""
    output = _run(load_remote_agent(f"a2a+http://{a2a_faults}/legacy"), "What's the weather in Beijing?")
    assert output.final_message().content == "The current temperature in Beijing is 20°C, sunny."
    assert [(t.id, t.name, t.arguments, t.result) for t in output.tools] == [
        ("call_001", "get_weather", {"city": "Beijing"}, {"temp": "20°C"})
    ]
    assert output.intermediate_responses == []
    assert output.usage is None  # trpc-agent-go reports none


def test_a_task_still_working_is_polled_until_it_finishes(a2a_faults: str) -> None:
    import httpx

    output = _run(load_remote_agent(f"a2a+http://{a2a_faults}/polled"), "later please")
    assert output.final_message().content == "done later"
    assert httpx.get(f"http://{a2a_faults}/seen").json()["attempts"]["GetTask"] == 2


def test_headers_and_user_id_reach_the_server(a2a_faults: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    monkeypatch.setenv("R2_A2A_TOKEN", "tok-a2a-secret-1234")
    settings = RemoteAgentSettings(headers={"Authorization": "Bearer ${R2_A2A_TOKEN}"})
    agent = load_remote_agent(f"a2a+http://{a2a_faults}", settings)
    output = _run(agent, "ok", user_id="alice")
    assert output.final_message().content == "fine"
    seen = httpx.get(f"http://{a2a_faults}/seen").json()
    assert seen["authorization"] == "Bearer tok-a2a-secret-1234"
    assert seen["x-user-id"] == "alice"


def test_a_missing_header_variable_is_an_input_error(a2a_faults: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.errors import InputError

    monkeypatch.delenv("R2_UNSET_VARIABLE", raising=False)
    settings = RemoteAgentSettings(headers={"X-Api-Key": "${R2_UNSET_VARIABLE}"})
    with pytest.raises(InputError, match="R2_UNSET_VARIABLE"):
        load_remote_agent(f"a2a+http://{a2a_faults}", settings)


def _run(agent: Any, text: str, *, user_id: str = "user", session: str = "s1") -> Any:
    import asyncio

    request = AgentRequest(user_content={"role": "user", "content": text}, session_id=session, user_id=user_id)
    return asyncio.run(agent.run(request))
