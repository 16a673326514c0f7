from __future__ import annotations

import random
from email.utils import formatdate

import pytest

from agentgauge.judges import RetryPolicy, parse_retry_after


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "3"}, 3.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250"}, 0.25),
        ({"Retry-After-Ms": "1500", "Retry-After": "9"}, 1.5),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_parse_retry_after_seconds(headers: dict[str, str] | None, expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    now = 1_700_000_000.0
    header = formatdate(now + 42, usegmt=True)
    assert parse_retry_after({"Retry-After": header}, now=now) == pytest.approx(42.0)
    past = formatdate(now - 100, usegmt=True)
    assert parse_retry_after({"Retry-After": past}, now=now) == 0.0


def test_backoff_grows_exponentially_within_jitter_and_cap() -> None:
    policy = RetryPolicy(initial_delay=1.0, multiplier=2.0, max_delay=5.0, jitter=0.25)
    rng = random.Random(7)
    for attempt, base in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        for _ in range(50):
            delay = policy.backoff(attempt, rng=rng)
            assert base * 0.75 <= delay <= base * 1.25


def test_backoff_without_jitter_is_exact() -> None:
    policy = RetryPolicy(initial_delay=0.5, multiplier=3.0, max_delay=100.0, jitter=0.0)
    assert [policy.backoff(n) for n in (1, 2, 3)] == [0.5, 1.5, 4.5]


def test_retry_after_wins_and_is_capped() -> None:
    policy = RetryPolicy(initial_delay=10.0, max_retry_after=3.0)
    assert policy.backoff(1, 0.2) == 0.2
    assert policy.backoff(1, 60.0) == 3.0


@pytest.mark.parametrize(
    "kwargs",
    [{"max_attempts": 0}, {"initial_delay": -1.0}, {"jitter": 1.5}, {"request_timeout": 0.0}],
)
def test_invalid_policies_are_rejected(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]
