"""The endpoint limiter's logic (no Ray): spacing of call starts, concurrency, endpoint families, option parsing."""

from __future__ import annotations

import asyncio
import time

import pytest

from agentgauge._util.callgate import gated, set_call_gate
from agentgauge.distributed import EndpointLimiter, RateLimit, parse_rate_limit
from agentgauge.distributed._ratelimit import match_endpoint


async def test_call_starts_are_spaced_by_the_rate() -> None:
    limiter = EndpointLimiter({"agent": RateLimit(requests_per_minute=1200)})  # one start per 50 ms
    starts: list[float] = []

    async def call() -> None:
        await limiter.acquire("agent")
        starts.append(time.monotonic())
        limiter.release("agent")

    await asyncio.gather(*(call() for _ in range(8)))
    # The k-th call may start no earlier than k intervals after the first (a late wake-up only delays one start).
    assert all(start - starts[0] >= k * 0.05 - 0.003 for k, start in enumerate(starts))
    assert limiter.stats()["agent"]["admitted"] == 8


async def test_concurrent_calls_are_bounded() -> None:
    limiter = EndpointLimiter({"judge": RateLimit(max_concurrent=3)})

    async def call() -> None:
        await limiter.acquire("judge")
        await asyncio.sleep(0.01)
        limiter.release("judge")

    await asyncio.gather(*(call() for _ in range(12)))
    assert limiter.stats()["judge"] == {"admitted": 12, "in_flight": 0, "peak": 3}


def test_an_endpoint_falls_under_its_family() -> None:
    names = frozenset({"judge", "agent", "judge:gpt-4o"})
    assert match_endpoint("judge:gpt-4o", names) == "judge:gpt-4o"
    assert match_endpoint("judge:other-model", names) == "judge"
    assert match_endpoint("agent", names) == "agent"
    assert match_endpoint("tool:search", names) is None


@pytest.mark.parametrize(
    ("text", "name", "limit"),
    [
        ("judge=600", "judge", RateLimit(600.0, None)),
        ("judge=600/8", "judge", RateLimit(600.0, 8)),
        ("agent=/4", "agent", RateLimit(None, 4)),
        (" judge:gpt-4o = 30.5 ", "judge:gpt-4o", RateLimit(30.5, None)),
    ],
)
def test_rate_limit_options_parse(text: str, name: str, limit: RateLimit) -> None:
    assert parse_rate_limit(text) == (name, limit)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("judge", "expected ENDPOINT=RPM"),
        ("=5", "expected ENDPOINT=RPM"),
        ("judge=fast", "RPM must be a number"),
        ("judge=/", "give a rate, a concurrency or both"),
        ("judge=0", "requests per minute must be positive"),
        ("judge=10/0", "concurrent calls must be at least 1"),
        ("judge=inf", "RPM must be finite"),
    ],
)
def test_bad_rate_limit_options_say_why(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        parse_rate_limit(text)


async def test_the_call_gate_wraps_calls_only_once_installed() -> None:
    entered: list[str] = []

    class Gate:
        def __init__(self, endpoint: str) -> None:
            self.endpoint = endpoint

        async def __aenter__(self) -> None:
            entered.append(self.endpoint)

        async def __aexit__(self, *exc: object) -> None:
            return None

    async with gated("agent"):
        pass
    previous = set_call_gate(Gate)
    try:
        async with gated("judge:m"):
            pass
    finally:
        set_call_gate(previous)
    assert entered == ["judge:m"]
