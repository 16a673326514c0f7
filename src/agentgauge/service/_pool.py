"""Bounded concurrency that keeps results in input order."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

__all__ = ["OneAtATime", "bounded_each", "bounded_map"]

T = TypeVar("T")
R = TypeVar("R")


def _check_limit(limit: int) -> None:
    # Generic utilities, public in agentgauge.service: with no worker, ``bounded_map`` would return a list of ``None``
    # and ``bounded_each`` would drop every item without a word. The run engine hands them validated RunOptions.
    if limit < 1:
        raise ValueError(f"parallelism must be at least 1, got {limit}")


async def bounded_map(fn: Callable[[T], Awaitable[R]], items: Sequence[T], limit: int) -> list[R]:
    """``[await fn(item) for item in items]`` with at most ``limit`` calls in flight, results in input order.

    ``min(limit, len(items))`` workers pull the next item as soon as they finish one, so one slow item never
    holds back the others. The first exception cancels the remaining work and propagates.
    """
    _check_limit(limit)
    results: list[R | None] = [None] * len(items)
    next_index = 0

    async def worker() -> None:
        nonlocal next_index
        while next_index < len(items):
            index = next_index
            next_index += 1
            results[index] = await fn(items[index])

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(min(limit, len(items))):
                group.create_task(worker())
    except BaseExceptionGroup as group_error:
        # Callers expect the failing call's own exception (e.g. a CallbackError), not a group.
        raise group_error.exceptions[0] from None
    return results  # type: ignore[return-value]


async def bounded_each(
    fn: Callable[[T], Awaitable[None]],
    items: Iterable[T],
    limit: int,
    *,
    started: Callable[[], object] | None = None,
) -> None:
    """``for item in items: await fn(item)`` with at most ``limit`` calls in flight, nothing collected.

    ``items`` is consumed lazily (one item per free worker), so a generator that reads its items from a file keeps
    only the items in flight alive. The first exception cancels the remaining work and propagates. ``started`` is
    called once every worker has taken its first step: each has begun its first item and is waiting (for an agent's
    answer, typically).
    """
    _check_limit(limit)
    source = iter(items)

    async def worker() -> None:
        for item in source:  # every worker pulls from the one shared iterator
            await fn(item)
            # An item that never suspends (a trace-mode case: no agent to wait for) would let this worker run through
            # every item before any other task got a turn; yield once per item so they all progress.
            await asyncio.sleep(0)

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(limit):
                group.create_task(worker())
            if started is not None:  # runs after the first steps of the tasks just created (the loop is FIFO)
                asyncio.get_running_loop().call_soon(started)
    except BaseExceptionGroup as group_error:
        raise group_error.exceptions[0] from None


class OneAtATime:
    """Lets waiting tasks go on one per event-loop iteration, in the order they asked, behind whatever else is ready.

    The run engine scores a case (CPU work, a few tenths of a millisecond) after ``await turns.wait()``. When hundreds
    of agent calls end together, the cases that go on talking to their agent then start their next turn at once, and
    the scoring of finished cases fills the time the agents take, instead of making a multi-turn case's next turn
    wait behind every other case's scoring (at 200 cases in flight that wait added ~40 ms to a 150 ms run).
    A waiter that is cancelled gives its turn to the next one.
    """

    def __init__(self) -> None:
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._loop: asyncio.AbstractEventLoop | None = None

    async def wait(self) -> None:
        """Return once every task waiting before this one has gone on, and one event-loop iteration later."""
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiters.append(waiter)
        if self._loop is None:
            self._loop = loop
            loop.call_soon(self._release)
        await waiter

    def _release(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                break
        if self._waiters and self._loop is not None:
            # The released task runs in the next iteration, before this callback releases the one after it; steps
            # that became ready meanwhile (an agent answered) run between the two.
            self._loop.call_soon(self._release)
        else:
            self._loop = None
