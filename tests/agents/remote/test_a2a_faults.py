"""``a2a+http`` faults: a refused connection, HTTP errors (5xx retried, 4xx not), truncated and malformed event
streams, a server that stops answering, a stream that ends early, a failed task. Each fails its case with one
message naming the scheme, the endpoint, the status and the start of the body, with secrets masked; the other
cases go on."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _a2a_servers import SECRET_IN_BODY, fault_app
from _servers import free_port, require, serving

from agentgauge._util.redact import register_secret
from agentgauge.agents import AgentRequest
from agentgauge.agents.remote import RemoteAgentSettings, load_remote_agent
from agentgauge.errors import AgentError

FAST = RemoteAgentSettings(read_timeout=1.0, connect_timeout=2.0, retries=2, backoff=0.0)


@pytest.fixture(scope="module")
def faults() -> Iterator[str]:
    """``HOST:PORT`` of the fault server."""
    require("a2a.client")
    require("uvicorn")
    register_secret(SECRET_IN_BODY)
    with serving(fault_app) as address:
        yield address


def _send(agent: Any, text: str) -> Any:
    request = AgentRequest(user_content={"role": "user", "content": text}, session_id=f"s-{text}", user_id="u")
    return asyncio.run(agent.run(request))


def _attempts(address: str, text: str) -> int:
    return int(httpx.get(f"http://{address}/seen").json()["attempts"].get(text, 0))


def test_a_refused_connection_names_the_card_url_after_the_retries() -> None:
    port = free_port()
    agent = load_remote_agent(f"a2a+http://127.0.0.1:{port}", FAST)
    with pytest.raises(AgentError) as caught:
        _send(agent, "ok")
    message = str(caught.value)
    assert message.startswith(
        f"a2a+http agent: GET http://127.0.0.1:{port}/.well-known/agent-card.json: cannot connect"
    )
    assert message.endswith("(after 3 attempts)")


def test_no_agent_card_names_every_card_url_tried(faults: str) -> None:
    with pytest.raises(AgentError) as caught:
        _send(load_remote_agent(f"a2a+http://{faults}/nowhere", FAST), "ok")
    assert str(caught.value) == (
        f"a2a+http agent: GET http://{faults}/nowhere/.well-known/agent-card.json: HTTP 404: no agent card there"
        f" nor at http://{faults}/nowhere/.well-known/agent.json"
    )


@pytest.mark.parametrize(
    ("path", "detail"),
    [
        ("list", "HTTP 200: not an agent card: Agent card must be a JSON object: body: '[1,2]'"),
        ("grpc", "the agent card offers no JSON-RPC or HTTP+JSON interface (GRPC)"),
    ],
)
def test_unusable_agent_cards(faults: str, path: str, detail: str) -> None:
    with pytest.raises(AgentError) as caught:
        _send(load_remote_agent(f"a2a+http://{faults}/{path}", FAST), "ok")
    assert str(caught.value) == f"a2a+http agent: GET http://{faults}/{path}/.well-known/agent-card.json: {detail}"


@pytest.mark.parametrize(
    ("text", "status", "attempts"),
    [("status 500", 500, 3), ("status 503", 503, 3), ("status 400", 400, 1), ("status 404", 404, 1)],
)
def test_http_errors_fail_with_status_and_masked_body(faults: str, text: str, status: int, attempts: int) -> None:
    agent = load_remote_agent(f"a2a+http://{faults}", FAST)
    with pytest.raises(AgentError) as caught:
        _send(agent, text)
    assert str(caught.value) == (
        f"a2a+http agent: POST http://{faults}/: HTTP {status}: "
        """body: '{"detail":"failing on purpose, token=***"}'"""
    )
    assert SECRET_IN_BODY not in str(caught.value)
    assert _attempts(faults, text) == attempts  # 5xx retried twice, 4xx never


def test_a_transient_503_is_retried_and_the_turn_succeeds(faults: str) -> None:
    output = _send(load_remote_agent(f"a2a+http://{faults}", FAST), "flaky one")
    assert output.final_message().content == "fine"
    assert _attempts(faults, "flaky one") == 2


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        ("truncated", "the event stream ended before the task finished (last state: submitted)"),
        ("ends early", "the event stream ended before the task finished (last state: working)"),
        ("malformed", "Invalid JSON-RPC response in SSE stream: Expecting property name enclosed in double quotes"),
        ("hang", "no answer within the read timeout"),
        ("stall", "no answer within the read timeout"),
        ("failed", "the A2A task ended failed: the tool broke"),
    ],
)
def test_broken_answers_fail_with_one_message(faults: str, text: str, detail: str) -> None:
    with pytest.raises(AgentError) as caught:
        _send(load_remote_agent(f"a2a+http://{faults}", FAST), text)
    assert str(caught.value).startswith(f"a2a+http agent: POST http://{faults}/: {detail}")
    assert _attempts(faults, text) == 1  # an answer that started is never sent again


def test_one_failing_case_does_not_stop_the_others(faults: str) -> None:
    from agentgauge.model import EvalCase, EvalMetric, EvalSet, Invocation, Message
    from agentgauge.run import AgentEvaluator
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    def case(eval_id: str, text: str) -> EvalCase:
        turn = Invocation(user_content=Message(role="user", content=text), final_response=Message(content="fine"))
        return EvalCase(eval_id=eval_id, conversation=[turn])

    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put(
        "app",
        EvalSet(eval_set_id="s", eval_cases=[case("good", "ok"), case("bad", "status 400"), case("slow", "hang")]),
    )
    metrics.put_all("app", "s", [EvalMetric(metric_name="response_match_score", threshold=1)])
    agent = load_remote_agent(f"a2a+http://{faults}", FAST)
    result = AgentEvaluator(
        "app", agent, eval_set_manager=sets, metric_manager=metrics, result_manager=InMemoryEvalResultManager()
    ).evaluate_sync("s")
    outcome = {
        c.eval_id: (c.final_eval_status.value, c.error_message) for c in result.eval_set_result.eval_case_results
    }
    assert outcome["good"] == ("passed", None)
    assert outcome["bad"][0] == "error" and "HTTP 400" in (outcome["bad"][1] or "")
    assert outcome["slow"][0] == "error" and "no answer within the read timeout" in (outcome["slow"][1] or "")


def test_a_connection_dropped_after_the_message_was_sent_is_not_sent_again() -> None:
    """The server read the message and closed the connection without answering: it may have acted on it, so the
    message is not sent again (only failures to connect are), and the case fails naming the broken connection."""
    import json
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    card = {
        "name": "dropper", "description": "closes the connection", "version": "1",
        "supportedInterfaces": [{"url": f"http://127.0.0.1:{port}/", "protocolBinding": "JSONRPC",
                                 "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    }  # fmt: skip
    messages: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                head = connection.recv(65536)
                if head.startswith(b"GET "):
                    body = json.dumps(card).encode()
                    connection.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                        + f"Content-Length: {len(body)}\r\n\r\n".encode()
                        + body
                    )
                else:
                    messages.append(head)  # read, then dropped without a word

    threading.Thread(target=serve, daemon=True).start()
    try:
        agent = load_remote_agent(f"a2a+http://127.0.0.1:{port}", FAST)
        with pytest.raises(AgentError) as caught:
            _send(agent, "hello")
    finally:
        listener.close()
    assert len(messages) == 1
    expected = f"a2a+http agent: POST http://127.0.0.1:{port}/: the connection broke (Server disconnected)"
    assert str(caught.value) == expected
