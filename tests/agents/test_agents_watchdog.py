"""The loop watchdog: a case's timeout holds even when an async agent blocks the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
from collections.abc import Iterator

import pytest

from agentgauge import AgentEvaluator
from agentgauge.agents import AgentRequest
from agentgauge.agents import _watchdog as watchdog
from agentgauge.model import EvalCase, EvalMetric, EvalSet, Invocation, Message
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGURG"), reason="the watchdog needs POSIX signals")


@pytest.fixture(autouse=True)
def _handler_is_restored() -> Iterator[None]:
    before = signal.getsignal(signal.SIGURG)
    yield
    assert signal.getsignal(signal.SIGURG) == before


def _case(eval_id: str, text: str) -> EvalCase:
    return EvalCase(
        eval_id=eval_id,
        conversation=[
            Invocation(
                user_content=Message(role="user", content=text),
                final_response=Message(role="assistant", content="ok"),
            )
        ],
    )


def _evaluate(agent: object, texts: dict[str, str], timeout: float, parallelism: int = 4) -> dict[str, str]:
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", EvalSet(eval_set_id="s", eval_cases=[_case(k, v) for k, v in texts.items()]))
    metrics.put_all("app", "s", [EvalMetric(metric_name="response_match_score", threshold=1)])
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        timeout=timeout,
        parallelism=parallelism,
    )
    result = evaluator.evaluate_sync("s")
    return {c.eval_id: c.error_message or c.final_eval_status.value for c in result.eval_set_result.eval_case_results}


def test_time_sleep_in_an_async_agent_times_out_its_case_only() -> None:
    async def agent(request: AgentRequest) -> str:
        if request.user_content.content == "block":
            time.sleep(30)
        await asyncio.sleep(0.01)
        return "ok"

    outcome = _evaluate(agent, {"stuck": "block", "fine": "hi", "also_fine": "hello"}, timeout=0.5, parallelism=1)
    assert outcome == {
        "stuck": "inference timed out after 0.5 s: the agent blocked the event loop on invocation 1 of 1",
        "fine": "passed",
        "also_fine": "passed",
    }


def test_agent_swallowing_exceptions_cannot_swallow_the_timeout() -> None:
    async def agent(request: AgentRequest) -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):  # the point of the test: the timeout is not an Exception
                time.sleep(0.01)
        return "ok"

    outcome = _evaluate(agent, {"stuck": "hi"}, timeout=0.3)
    assert outcome["stuck"].startswith("inference timed out after 0.3 s: the agent blocked the event loop")


def test_many_well_behaved_cases_are_not_disturbed() -> None:
    async def agent(request: AgentRequest) -> str:
        await asyncio.sleep(0.01)
        return "ok"

    outcome = _evaluate(agent, {f"c{i}": "hi" for i in range(60)}, timeout=5, parallelism=20)
    assert set(outcome.values()) == {"passed"}


def test_awaiting_agent_still_times_out_at_its_await() -> None:
    async def agent(request: AgentRequest) -> str:
        await asyncio.sleep(30)
        return "ok"

    assert _evaluate(agent, {"slow": "hi"}, timeout=0.2) == {"slow": "inference timed out after 0.2 s"}


def test_no_watchdog_off_the_main_thread_or_when_the_signal_is_taken() -> None:
    armed: list[object] = []
    thread = threading.Thread(target=lambda: armed.append(watchdog.arm(1.0)))
    thread.start()
    thread.join()
    assert armed == [None]
    assert watchdog.arm(None) is None

    def theirs(signum: int, frame: object) -> None:
        """Someone else's handler."""

    previous = signal.signal(signal.SIGURG, theirs)
    try:
        assert watchdog.arm(1.0) is None
        assert signal.getsignal(signal.SIGURG) is theirs
    finally:
        signal.signal(signal.SIGURG, previous)


def test_handler_only_raises_in_the_expired_case() -> None:
    budget = watchdog.arm(0.01)
    assert budget is not None
    try:
        time.sleep(0.02)
        watchdog._on_signal(signal.SIGURG, None)  # not inside the case: nothing happens
        token = watchdog.active.set(budget)
        try:
            with pytest.raises(watchdog.AgentTimeout):
                watchdog._on_signal(signal.SIGURG, None)
        finally:
            watchdog.active.reset(token)
    finally:
        watchdog.disarm(budget)
    token = watchdog.active.set(budget)
    try:
        watchdog._on_signal(signal.SIGURG, None)  # disarmed: the case is over
    finally:
        watchdog.active.reset(token)


def test_several_blocking_cases_in_flight_all_time_out() -> None:
    async def agent(request: AgentRequest) -> str:
        time.sleep(30)
        return "ok"

    outcome = _evaluate(agent, {f"c{i}": "hi" for i in range(3)}, timeout=0.3, parallelism=3)
    assert all(message.startswith("inference timed out after 0.3 s: the agent blocked") for message in outcome.values())
