"""The one retry policy of outgoing calls (``agentgauge._util.retry``): which statuses are retried."""

from __future__ import annotations

import pytest

from agentgauge._util.retry import RetryPolicy, parse_retry_after, retryable_status


@pytest.mark.parametrize(
    ("status", "retried"),
    [
        (429, True),
        (500, True),
        (502, True),
        (503, True),
        (504, True),
        (529, True),  # overloaded, as some model servers say
        (501, False),  # not implemented: the same request fails again
        (505, False),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (408, True),  # the request was not processed
        (425, True),
        (409, False),  # a remote agent's verdict on the request (judges: see below)
        (422, False),
        (200, False),
        (307, False),
    ],
)
def test_only_unprocessed_requests_and_transient_server_errors_are_retried(status: int, retried: bool) -> None:
    assert retryable_status(status) is retried


def test_judges_also_retry_a_conflict() -> None:
    # OpenAI-compatible servers answer 409 for a request that met a lock; the same request may succeed.
    assert retryable_status(409, conflicts=True) and not retryable_status(400, conflicts=True)


@pytest.mark.parametrize("value", ["nan", "inf", "1e999"])
def test_a_retry_after_that_is_not_a_finite_number_is_ignored(value: str) -> None:
    assert parse_retry_after({"Retry-After": value}) is None


def test_the_judges_and_remote_agents_share_the_policy() -> None:
    from agentgauge.agents.remote import RemoteAgentSettings
    from agentgauge.judges import RetryPolicy as JudgePolicy

    assert JudgePolicy is RetryPolicy
    assert isinstance(RemoteAgentSettings().retry_policy(), RetryPolicy)
