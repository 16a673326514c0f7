from __future__ import annotations

import time

import pytest
from chat_server import ChatServer, Reply, error, ok

from agentgauge.judges import JudgeEndpoint, JudgeError, OpenAIJudge, ResponseSchema, RetryPolicy

KEY = "sk-test-judge-KEY-0123456789"
FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0, request_timeout=5.0)
MESSAGES = [{"role": "user", "content": "Is 2+2 four?"}]


def judge_for(server: ChatServer, policy: RetryPolicy = FAST, **extra: object) -> OpenAIJudge:
    endpoint = JudgeEndpoint.resolve(
        model="judge-model", provider="openai", base_url=server.base_url, api_key=KEY, extra_fields=extra, env={}
    )
    return OpenAIJudge(endpoint, retry=policy)


async def test_answer_and_request_shape(chat_server: ChatServer) -> None:
    chat_server.queue(ok("yes"))
    judge = judge_for(chat_server, tenant="t1")
    config = {"max_tokens": 100, "temperature": 0.1, "stream": True, "thinking_enabled": True}
    answer = await judge.complete(MESSAGES, generation_config=config)
    assert answer == "yes"
    [request] = chat_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    body = request.body
    assert body["model"] == "judge-model"
    assert body["messages"] == MESSAGES
    assert body["stream"] is False
    assert body["max_tokens"] == 100 and body["temperature"] == 0.1
    # Non-standard options and extraFields travel in the request body as extra fields.
    assert body["thinking_enabled"] is True and body["tenant"] == "t1"
    assert "response_format" not in body
    await judge.aclose()


async def test_429_then_success_honours_retry_after(chat_server: ChatServer) -> None:
    chat_server.queue(error(429, "slow down", {"Retry-After": "0.3"}), ok("fine"))
    judge = judge_for(chat_server)
    started = time.monotonic()
    assert await judge.complete(MESSAGES, generation_config={}) == "fine"
    assert time.monotonic() - started >= 0.3  # the backoff alone would be 0.01 s
    assert len(chat_server.requests) == 2
    await judge.aclose()


async def test_persistent_500_fails_after_bounded_attempts(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: error(500, f"boom for {KEY}")
    judge = judge_for(chat_server)
    with pytest.raises(JudgeError) as info:
        await judge.complete(MESSAGES, generation_config={})
    message = str(info.value)
    assert info.value.status == 500
    assert "HTTP 500" in message and "after 3 attempt(s)" in message
    assert KEY not in message  # a server echoing the key does not leak it
    assert len(chat_server.requests) == 3  # the SDK's own retries are off
    await judge.aclose()


async def test_total_budget_stops_retrying(chat_server: ChatServer) -> None:
    chat_server.queue(ok("warm"))
    chat_server.responder = lambda body: error(503, "unavailable", {"Retry-After": "0.2"})
    # A budget of a few Retry-After waits, far below what max_attempts allows: only the budget can end the retries.
    policy = RetryPolicy(max_attempts=50, initial_delay=0.01, total_budget=3.0, request_timeout=5.0)
    judge = judge_for(chat_server, policy)
    # The SDK's one-off set-up on first use (platform detection) must not eat the budget on a loaded machine.
    assert await judge.complete(MESSAGES, generation_config={}, time_budget=30) == "warm"
    with pytest.raises(JudgeError, match="HTTP 503"):
        await judge.complete(MESSAGES, generation_config={})
    # The budget, not max_attempts, ended it (a loaded machine may fit only one attempt in 3 s).
    assert 1 <= len(chat_server.requests) - 1 < 50
    await judge.aclose()


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_are_not_retried(chat_server: ChatServer, status: int) -> None:
    chat_server.responder = lambda body: error(status, "nope")
    judge = judge_for(chat_server)
    with pytest.raises(JudgeError, match=f"HTTP {status}") as info:
        await judge.complete(MESSAGES, generation_config={})
    assert info.value.status == status
    assert len(chat_server.requests) == 1
    await judge.aclose()


async def test_connection_error_is_retried_then_reported() -> None:
    server = ChatServer().start()
    url = server.base_url
    server.stop()  # nothing listens on the port any more
    endpoint = JudgeEndpoint.resolve(model="m", provider="openai", base_url=url, api_key=KEY, env={})
    judge = OpenAIJudge(endpoint, retry=FAST)
    with pytest.raises(JudgeError, match=r"after 3 attempt\(s\).*connection error") as info:
        await judge.complete(MESSAGES, generation_config={})
    assert info.value.status is None
    await judge.aclose()


async def test_structured_output_sent_and_dropped_when_rejected(chat_server: ChatServer) -> None:
    schema = ResponseSchema("verdict", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    chat_server.queue(ok('{"ok": true}'))
    judge = judge_for(chat_server)
    assert await judge.complete(MESSAGES, generation_config={}, response_schema=schema) == '{"ok": true}'
    sent = chat_server.requests[0].body["response_format"]
    assert sent["type"] == "json_schema"
    assert sent["json_schema"]["name"] == "verdict" and sent["json_schema"]["strict"] is True

    # A server that rejects response_format: one 400, then the same request without it, and never again.
    chat_server.requests.clear()
    chat_server.responder = lambda body: (
        error(400, "response_format json_schema unsupported") if "response_format" in body else ok("plain")
    )
    other = judge_for(chat_server)
    assert await other.complete(MESSAGES, generation_config={}, response_schema=schema) == "plain"
    assert await other.complete(MESSAGES, generation_config={}, response_schema=schema) == "plain"
    assert ["response_format" in r.body for r in chat_server.requests] == [True, False, False]
    await judge.aclose()
    await other.aclose()


async def test_timeouts_are_retried_then_reported(chat_server: ChatServer) -> None:
    def slow(body: object) -> Reply:
        time.sleep(0.4)
        return ok("late")

    chat_server.responder = slow
    policy = RetryPolicy(max_attempts=2, initial_delay=0.01, jitter=0.0, request_timeout=0.1)
    judge = judge_for(chat_server, policy)
    with pytest.raises(JudgeError, match=r"after 2 attempt\(s\).*timeout after 0.1s"):
        await judge.complete(MESSAGES, generation_config={})
    await judge.aclose()
