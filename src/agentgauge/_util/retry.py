"""The one retry policy of outgoing HTTP calls (judge models and remote agents): which answers are worth another
attempt, how long to wait before it (exponential back-off with jitter, or the server's ``Retry-After``), and the
attempt and time budgets.

What may be retried is the caller's to say beyond the status: a remote agent's turn is never sent again once the
agent started answering, since it may already have acted (see :mod:`agentgauge.agents.remote`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

__all__ = ["RetryPolicy", "parse_retry_after", "retryable_status"]

# 501 Not Implemented and 505 HTTP Version Not Supported say what the server cannot do, not that it is busy.
_PERMANENT_SERVER_ERRORS = frozenset({501, 505})
# 408 Request Timeout and 425 Too Early say the request was not processed; 429 asks to come back later.
_TRANSIENT_CLIENT_ERRORS = frozenset({408, 425, 429})


def retryable_status(status: int, *, conflicts: bool = False) -> bool:
    """Whether an answer with HTTP ``status`` is worth another attempt: 408, 425 and 429 (the request was not
    processed, or should come back later) and the server errors that may be transient (5xx but 501 and 505). No
    other 4xx is, the same request would be refused again, except 409 with ``conflicts``: OpenAI-compatible model
    servers answer it for a request that met a lock and may be sent again (judges pass it; a remote agent's 409 is
    the agent's own verdict on the request)."""
    if status in _TRANSIENT_CLIENT_ERRORS or (conflicts and status == 409):
        return True
    return 500 <= status < 600 and status not in _PERMANENT_SERVER_ERRORS


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how long a call is retried after a retryable failure (:func:`retryable_status`, timeouts,
    connection errors, and for judges invalid answers).

    - ``max_attempts``: total attempts including the first (``1`` disables retries).
    - ``initial_delay`` / ``multiplier`` / ``max_delay``: backoff ``initial_delay * multiplier**(n-1)``, capped.
    - ``jitter``: the backoff is scaled by a random factor in ``[1 - jitter, 1 + jitter]`` so parallel callers
      spread out.
    - ``max_retry_after``: a server's ``Retry-After`` is honoured up to this many seconds.
    - ``total_budget``: the time budget of one call in seconds, every attempt and wait included (default 45, a
      judge call's): a request still running when it is spent is abandoned, and no retry starts that could not
      end in it.
    - ``request_timeout``: seconds one HTTP request may take before it counts as a timeout and is retried
      (default 30; never more than what is left of ``total_budget``).
    """

    max_attempts: int = 6
    initial_delay: float = 1.0
    multiplier: float = 2.0
    max_delay: float = 30.0
    jitter: float = 0.25
    max_retry_after: float = 120.0
    total_budget: float = 45.0
    request_timeout: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {self.max_attempts}")
        if min(self.initial_delay, self.max_delay, self.max_retry_after, self.total_budget) < 0:
            raise ValueError("retry delays and budgets must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"jitter must be within [0, 1], got {self.jitter}")
        if not self.request_timeout > 0:  # written so that nan is refused too
            raise ValueError(f"request_timeout must be > 0, got {self.request_timeout}")
        if not self.total_budget > 0:
            raise ValueError(f"total_budget must be > 0, got {self.total_budget}")

    def backoff(self, attempt: int, retry_after: float | None = None, *, rng: random.Random | None = None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based).

        A server-provided ``retry_after`` wins over the computed backoff (capped at ``max_retry_after``).
        """
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        base = min(self.initial_delay * self.multiplier ** max(attempt - 1, 0), self.max_delay)
        factor = 1.0 + (rng or random).uniform(-self.jitter, self.jitter)
        return max(base * factor, 0.0)


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date).

    Returns ``None`` when no usable header is present.
    """
    seconds = _retry_after_seconds(headers, now)
    return seconds if seconds is None or math.isfinite(seconds) else None


def _retry_after_seconds(headers: Mapping[str, str] | None, now: float | None) -> float | None:
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000.0, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)
