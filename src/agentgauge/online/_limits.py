"""How many sessions a rule scores: the seeded sampler, the per-hour cap and the judge budget.

The sampler hashes the seed, the rule's name and the session's key, so the decision is the same on every run, on
every restart and in every process, and the share of sessions chosen is ``sample_rate`` within the binomial spread
(the same seed gives the same sessions: a test can know the exact count). The cap and the budget count per clock
hour (or day), in UTC.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from .._util.callgate import CallGate, set_call_gate
from ..judges import JudgeError

__all__ = ["JudgeMeter", "PeriodCounter", "install_judge_meter", "period_start", "sampled"]

_SCALE = float(1 << 64)


def sampled(seed: int, rule: str, key: str, rate: float) -> bool:
    """Whether the session ``key`` is among the ``rate`` share of sessions that rule ``rule`` scores."""
    if rate >= 1.0:
        return True
    if rate <= 0.0:
        return False
    digest = hashlib.blake2b(f"{seed}\x00{rule}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / _SCALE < rate


def period_start(now: float, per: str) -> int:
    """The start (UTC epoch seconds) of the clock hour or day holding ``now``."""
    size = 3600 if per == "hour" else 86400
    return int(now // size) * size


class PeriodCounter:
    """A count that starts again at every clock hour or day (``per``), bounded by ``limit`` (``None``: none)."""

    def __init__(self, limit: int | None, per: str, clock: Callable[[], float] = time.time) -> None:
        self.limit, self.per, self._clock = limit, per, clock
        self._period = -1
        self.used = 0
        self._lock = threading.Lock()

    def _roll(self) -> None:
        period = period_start(self._clock(), self.per)
        if period != self._period:
            self._period, self.used = period, 0

    def take(self) -> bool:
        """Count one if the limit allows it (``True``), else ``False``."""
        with self._lock:
            self._roll()
            if self.limit is not None and self.used >= self.limit:
                return False
            self.used += 1
            return True

    def reserve(self) -> int:
        """Take everything the limit leaves in the current period (a limit of ``None``: nothing is taken, 0 is
        returned); :meth:`give_back` returns what was not used."""
        with self._lock:
            self._roll()
            if self.limit is None:
                return 0
            left = max(self.limit - self.used, 0)
            self.used += left
            return left

    def give_back(self, count: int) -> None:
        """Return ``count`` of what :meth:`reserve` took."""
        with self._lock:
            self.used = max(self.used - count, 0)

    @property
    def spent(self) -> bool:
        """Whether the limit is reached in the current period."""
        with self._lock:
            self._roll()
            return self.limit is not None and self.used >= self.limit

    def current(self) -> int:
        """What was counted in the current period."""
        with self._lock:
            self._roll()
            return self.used


class JudgeMeter:
    """The judge budget of one rule, held (as :data:`_METER`) while the rule scores a session: every judge request
    made then takes one call from it, and a request beyond it is refused as a judge error (the metric fails with
    that reason, the session's other metrics are scored)."""

    def __init__(self, rule: str, counter: PeriodCounter) -> None:
        self.rule, self.counter = rule, counter
        self.refused = 0

    def charge(self) -> None:
        """Take one judge call, or raise :class:`~agentgauge.judges.JudgeError` when the budget is spent."""
        if not self.counter.take():
            self.refused += 1
            raise JudgeError(
                f"the judge budget of online rule {self.rule!r} ({self.counter.limit} calls per {self.counter.per}) "
                "is spent"
            )

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Charge the judge calls made in this context (and the tasks it starts) to this meter."""
        token = _METER.set(self)
        try:
            yield
        finally:
            _METER.reset(token)


_METER: contextvars.ContextVar[JudgeMeter | None] = contextvars.ContextVar("agentgauge_judge_meter", default=None)


@asynccontextmanager
async def _open() -> AsyncIterator[None]:
    yield


def install_judge_meter() -> Callable[[], None]:
    """Install the process's call gate that charges judge calls to the meter in context (around the gate already
    installed, if any); returns the function that puts the previous gate back."""
    previous: CallGate | None = None

    def gate(endpoint: str) -> AbstractAsyncContextManager[None]:
        meter = _METER.get()
        if meter is not None and endpoint.startswith("judge:"):
            meter.charge()
        return previous(endpoint) if previous is not None else _open()

    previous = set_call_gate(gate)

    def restore() -> None:
        set_call_gate(previous)

    return restore
