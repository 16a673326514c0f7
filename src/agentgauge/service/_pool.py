"""Bounded concurrency that keeps results in input order."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

__all__ = ["bounded_each", "bounded_map"]

T = TypeVar("T")
R = TypeVar("R")


async def bounded_map(fn: Callable[[T], Awaitable[R]], items: Sequence[T], limit: int) -> list[R]:
    """``[await fn(item) for item in items]`` with at most ``limit`` calls in flight, results in input order.

    ``min(limit, len(items))`` workers pull the next item as soon as they finish one, so one slow item never
    holds back the others. The first exception cancels the remaining work and propagates.
    """
    if limit < 1:
        raise ValueError(f"parallelism must be at least 1, got {limit}")
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


async def bounded_each(fn: Callable[[T], Awaitable[None]], items: Iterable[T], limit: int) -> None:
    """``for item in items: await fn(item)`` with at most ``limit`` calls in flight, nothing collected.

    ``items`` is consumed lazily (one item per free worker), so a generator that reads its items from a file keeps
    only the items in flight alive. The first exception cancels the remaining work and propagates.
    """
    if limit < 1:
        raise ValueError(f"parallelism must be at least 1, got {limit}")
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
    except BaseExceptionGroup as group_error:
        raise group_error.exceptions[0] from None
