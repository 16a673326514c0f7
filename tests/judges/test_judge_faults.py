"""Judges under faults: a time budget per call (retries included) and invalid answers retried, then reported in
plain words instead of Python internals."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from chat_server import HANG, ChatServer, Reply, completion, ok

from agentgauge.judges import (
    JudgeAnswerError,
    JudgeClient,
    JudgeEndpoint,
    JudgeError,
    JudgeTimeoutError,
    OpenAIJudge,
    RetryPolicy,
)
from agentgauge.judges._protocol import CallableJudge

KEY = "sk-test-faults-KEY-0123456789"
FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0, request_timeout=5.0)
MESSAGES = [{"role": "user", "content": "Is 2+2 four?"}]


def judge_for(server: ChatServer, policy: RetryPolicy = FAST) -> OpenAIJudge:
    endpoint = JudgeEndpoint.resolve(model="judge-model", provider="openai", base_url=server.base_url, api_key=KEY)
    return OpenAIJudge(endpoint, retry=policy)


def test_default_budget_is_well_under_a_minute() -> None:
    policy = RetryPolicy()
    assert policy.total_budget == 45.0
    assert policy.request_timeout <= policy.total_budget
    with pytest.raises(ValueError, match="total_budget"):
        RetryPolicy(total_budget=0)
    with pytest.raises(ValueError, match="total_budget"):
        RetryPolicy(total_budget=float("nan"))


async def test_a_judge_that_never_answers_is_bounded_by_the_budget(chat_server: ChatServer) -> None:
    chat_server.queue(ok("warm"))
    chat_server.responder = lambda body: HANG
    policy = RetryPolicy(max_attempts=6, initial_delay=0.01, jitter=0.0, request_timeout=0.6, total_budget=1.0)
    judge = judge_for(chat_server, policy)
    # A first call loads the SDK, whose one-off import time would otherwise count against the first budget.
    assert await judge.complete(MESSAGES, generation_config={}, time_budget=30) == "warm"
    started = time.monotonic()
    with pytest.raises(JudgeTimeoutError) as info:
        await judge.complete(MESSAGES, generation_config={})
    elapsed = time.monotonic() - started
    assert elapsed >= 0.95  # the budget was used up, not cut short (the message says which budget ended it)
    # The first request times out after 0.6 s; the retry gets only what is left of the 1 s budget (on a loaded
    # machine the first attempt may overrun it, and then no retry starts).
    assert len(chat_server.requests) - 1 in (1, 2)
    message = str(info.value)
    assert message.startswith(f"judge judge-model at {chat_server.base_url} did not answer within its 1s time budget")
    assert f"{len(chat_server.requests) - 1} attempt(s)" in message and "timeout after" in message
    await judge.aclose()


async def test_a_per_call_budget_overrides_the_policy(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: HANG
    judge = judge_for(chat_server, RetryPolicy(total_budget=300.0, request_timeout=120.0))
    with pytest.raises(JudgeTimeoutError, match=r"within its 0\.5s time budget"):  # not the policy's 300 s
        await judge.complete(MESSAGES, generation_config={}, time_budget=0.5)
    await judge.aclose()


INVALID = [
    (
        Reply(200, "<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
        "not JSON (text/html)",
    ),
    (Reply(200, "{not json at all"), "the body is not JSON (application/json): '{not json at all'"),
    (Reply(200, ""), "the body is not JSON (application/json): '<empty>'"),
    (Reply(200, ["a", "list"]), "the body is a list, not a chat completion object"),
    (Reply(200, {"id": "x"}), "'choices' is missing"),
    (Reply(200, {"choices": "yes"}), "'choices' is a string, not a list"),
    (Reply(200, {"choices": []}), "'choices' is empty"),
    (Reply(200, {"choices": ["yes"]}), "'choices[0]' is a string, not an object"),
    (Reply(200, {"choices": [{"message": None}]}), "'choices[0].message' is null, not an object"),
    (Reply(200, {"choices": [{"message": {"content": 5}}]}), "'choices[0].message.content' is an int, not a string"),
    (Reply(200, {"choices": [{"message": {"content": None}}]}), "'choices[0].message.content' is null, not a string"),
    (ok("   "), "the answer is empty"),
    (Reply(200, {"error": {"message": "overloaded"}}), "the body is an error object: 'overloaded'"),
]


@pytest.mark.parametrize(("reply", "description"), INVALID)
async def test_invalid_answers_are_retried_then_reported(
    chat_server: ChatServer, reply: Reply, description: str
) -> None:
    chat_server.responder = lambda body: reply
    judge = judge_for(chat_server)
    with pytest.raises(JudgeAnswerError) as info:
        await judge.complete(MESSAGES, generation_config={})
    error = info.value
    assert len(chat_server.requests) == 3  # retried like a 5xx
    assert error.attempts == 3
    assert error.judge == f"judge-model at {chat_server.base_url}"
    assert description in error.description and "(3 attempt(s) in " in error.description
    assert str(error).startswith(f"judge judge-model at {chat_server.base_url} returned an invalid answer: ")
    assert error.for_invocation(2).startswith(
        f"judge judge-model at {chat_server.base_url} returned an invalid answer for invocation 2: "
    )
    for internal in ("Expecting value", "object has no attribute", "Traceback", "NoneType"):
        assert internal not in str(error)
    await judge.aclose()


async def test_an_invalid_answer_then_a_good_one_recovers(chat_server: ChatServer) -> None:
    chat_server.queue(Reply(200, "<html>busy</html>", content_type="text/html"), Reply(200, {"choices": 1}), ok("yes"))
    judge = judge_for(chat_server)
    assert await judge.complete(MESSAGES, generation_config={}) == "yes"
    assert len(chat_server.requests) == 3
    await judge.aclose()


async def test_a_wrong_type_of_field_the_sdk_ignores_is_fine(chat_server: ChatServer) -> None:
    body: dict[str, Any] = completion("fine")
    body["usage"] = "not an object"  # only the answer matters
    chat_server.queue(Reply(200, body))
    judge = judge_for(chat_server)
    assert await judge.complete(MESSAGES, generation_config={}) == "fine"
    await judge.aclose()


async def test_client_budget_bounds_injected_judges() -> None:
    async def stuck(messages: Any) -> str:
        await asyncio.sleep(30)
        return "never"

    client = JudgeClient(CallableJudge(stuck), label="stuck", time_budget=0.3)
    # (the stuck judge would answer after 30 s: the error is the budget's doing)
    with pytest.raises(JudgeTimeoutError, match=r"judge stuck did not answer within its 0.3s time budget"):
        await client.ask(MESSAGES, generation_config={})
    # A call's own budget wins over the client's.
    with pytest.raises(JudgeTimeoutError, match=r"within its 0\.1s"):
        await client.ask(MESSAGES, generation_config={}, time_budget=0.1)


async def test_a_timeout_raised_by_the_judge_itself_is_not_the_budget() -> None:
    async def raises(messages: Any) -> str:
        raise TimeoutError("backend timed out")

    client = JudgeClient(CallableJudge(raises), label="raises", time_budget=10)
    with pytest.raises(JudgeError, match="raised TimeoutError: backend timed out") as info:
        await client.ask(MESSAGES, generation_config={})
    assert not isinstance(info.value, JudgeTimeoutError)
