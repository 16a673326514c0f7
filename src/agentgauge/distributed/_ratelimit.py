"""Per-endpoint limits on outgoing calls: requests per minute and concurrent calls.

:class:`EndpointLimiter` is the plain asyncio logic; the Ray executor runs one inside a named actor so every worker
of the cluster draws from the same budget (:func:`limiter_gate` is the worker side).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

__all__ = ["EndpointLimiter", "RateLimit", "limiter_gate", "match_endpoint", "parse_rate_limit"]


@dataclass(frozen=True)
class RateLimit:
    """The limits of one endpoint: at most ``requests_per_minute`` call starts per minute (evenly spaced, no burst)
    and at most ``max_concurrent`` calls in flight; ``None`` leaves that side unlimited."""

    requests_per_minute: float | None = None
    max_concurrent: int | None = None

    def __post_init__(self) -> None:
        if self.requests_per_minute is not None and not self.requests_per_minute > 0:
            raise ValueError(f"requests per minute must be positive, got {self.requests_per_minute}")
        if self.max_concurrent is not None and self.max_concurrent < 1:
            raise ValueError(f"concurrent calls must be at least 1, got {self.max_concurrent}")


def parse_rate_limit(text: str) -> tuple[str, RateLimit]:
    """``ENDPOINT=RPM`` or ``ENDPOINT=RPM/CONCURRENT`` (an empty RPM: concurrency only), e.g. ``judge=600/8``.

    Raises ``ValueError`` with the reason for anything else.
    """
    name, sep, spec = text.partition("=")
    if not sep or not name.strip() or not spec.strip():
        raise ValueError(f"{text!r}: expected ENDPOINT=RPM or ENDPOINT=RPM/CONCURRENT, e.g. judge=600/8")
    rpm_text, _, concurrent_text = spec.partition("/")
    try:
        rpm = float(rpm_text) if rpm_text.strip() else None
        concurrent = int(concurrent_text) if concurrent_text.strip() else None
    except ValueError:
        raise ValueError(f"{text!r}: RPM must be a number and CONCURRENT a whole number") from None
    if rpm is None and concurrent is None:
        raise ValueError(f"{text!r}: give a rate, a concurrency or both")
    if rpm is not None and not rpm < float("inf"):
        raise ValueError(f"{text!r}: RPM must be finite")
    return name.strip(), RateLimit(rpm, concurrent)


def match_endpoint(endpoint: str, names: Mapping[str, Any] | frozenset[str]) -> str | None:
    """The configured name that governs ``endpoint``: itself, else its family before ``:`` (``judge:gpt-4o`` ->
    ``judge``), else ``None`` (not limited)."""
    if endpoint in names:
        return endpoint
    family = endpoint.split(":", 1)[0]
    return family if family in names else None


class EndpointLimiter:
    """Admits calls per endpoint within their :class:`RateLimit` (one event loop)."""

    def __init__(self, limits: Mapping[str, RateLimit], clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = dict(limits)
        self._clock = clock
        self._slots = {n: asyncio.Semaphore(lim.max_concurrent) for n, lim in self.limits.items() if lim.max_concurrent}
        self._next_start: dict[str, float] = {}
        self.admitted: dict[str, int] = dict.fromkeys(self.limits, 0)
        self.in_flight: dict[str, int] = dict.fromkeys(self.limits, 0)
        self.peak_in_flight: dict[str, int] = dict.fromkeys(self.limits, 0)

    async def acquire(self, endpoint: str) -> None:
        """Wait until a call to ``endpoint`` (a configured name) may start; pair with :meth:`release`."""
        limit = self.limits[endpoint]
        slot = self._slots.get(endpoint)
        if slot is not None:
            await slot.acquire()
        if limit.requests_per_minute is not None:
            # Each admission books the next start time; waiting callers are thereby spaced evenly.
            now = self._clock()
            start = max(now, self._next_start.get(endpoint, now))
            self._next_start[endpoint] = start + 60.0 / limit.requests_per_minute
            if start > now:
                try:
                    await asyncio.sleep(start - now)
                except BaseException:
                    if slot is not None:
                        slot.release()
                    raise
        self.admitted[endpoint] += 1
        self.in_flight[endpoint] += 1
        self.peak_in_flight[endpoint] = max(self.peak_in_flight[endpoint], self.in_flight[endpoint])

    def release(self, endpoint: str) -> None:
        """A call admitted by :meth:`acquire` ended."""
        self.in_flight[endpoint] -= 1
        slot = self._slots.get(endpoint)
        if slot is not None:
            slot.release()

    def stats(self) -> dict[str, dict[str, int]]:
        """Per endpoint: calls admitted, in flight now, and the most in flight at once."""
        return {
            name: {
                "admitted": self.admitted[name],
                "in_flight": self.in_flight[name],
                "peak": self.peak_in_flight[name],
            }
            for name in self.limits
        }


class RateLimiterActor:
    """The cluster-wide limiter: an :class:`EndpointLimiter` in a named async Ray actor (see the executor)."""

    def __init__(self, limits: Mapping[str, RateLimit]) -> None:
        self._limiter = EndpointLimiter(limits)

    async def acquire(self, endpoint: str) -> None:
        """Wait for ``endpoint``'s turn."""
        await self._limiter.acquire(endpoint)

    async def release(self, endpoint: str) -> None:
        """One call to ``endpoint`` ended."""
        self._limiter.release(endpoint)

    async def stats(self) -> dict[str, dict[str, int]]:
        """See :meth:`EndpointLimiter.stats`."""
        return self._limiter.stats()


def limiter_gate(limiter: Any, names: frozenset[str]) -> Callable[[str], AbstractAsyncContextManager[None]]:
    """A call gate (see :mod:`agentgauge._util.callgate`) that holds calls to the endpoints in ``names`` until the
    limiter actor ``limiter`` (a Ray actor handle) admits them; other endpoints pass straight through."""

    @asynccontextmanager
    async def gate(endpoint: str) -> AsyncIterator[None]:
        name = match_endpoint(endpoint, names)
        if name is None:
            yield
            return
        await limiter.acquire.remote(name)
        try:
            yield
        finally:
            limiter.release.remote(name)  # no need to wait for the acknowledgement

    return gate
