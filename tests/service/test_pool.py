"""bounded_map and bounded_each: concurrency limits, order, errors and fairness."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agentgauge.service import bounded_each, bounded_map


async def test_bounded_map_limits_concurrency_and_keeps_order() -> None:
    active = peak = 0

    async def work(i: int) -> int:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0.01 * (i % 3))
        active -= 1
        return i * i

    assert await bounded_map(work, list(range(20)), 4) == [i * i for i in range(20)]
    assert peak == 4


async def test_bounded_map_propagates_the_first_error_itself() -> None:
    async def work(i: int) -> int:
        if i == 3:
            raise KeyError("three")
        return i

    with pytest.raises(KeyError, match="three"):
        await bounded_map(work, list(range(6)), 2)
    with pytest.raises(ValueError, match="parallelism must be at least 1"):
        await bounded_map(work, [1], 0)


async def test_bounded_each_pulls_items_lazily_and_limits_concurrency() -> None:
    pulled: list[int] = []
    in_flight = peak = 0

    def items() -> Iterator[int]:
        for i in range(20):
            pulled.append(i)
            yield i

    async def work(item: int) -> None:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        # Never more items taken from the source than are in flight (plus the one being started).
        assert len(pulled) <= item + 4
        await asyncio.sleep(0.001)
        in_flight -= 1

    await bounded_each(work, items(), 3)
    assert pulled == list(range(20)) and peak == 3


async def test_bounded_each_propagates_the_first_error_itself() -> None:
    async def work(item: int) -> None:
        if item == 2:
            raise KeyError("two")
        await asyncio.sleep(0.01)

    with pytest.raises(KeyError):
        await bounded_each(work, range(10), 4)


async def test_bounded_each_lets_other_tasks_run_between_items_that_never_suspend() -> None:
    """Trace-mode cases never wait for an agent: without a turn for other tasks per item, tasks started meanwhile
    (e.g. cases deferred until the scorers are imported) starved until every item was read, keeping them all."""
    seen_by_other_task: list[int] = []
    started: list[asyncio.Future[None]] = []
    processed = 0

    async def other_task() -> None:
        seen_by_other_task.append(processed)

    async def work(item: int) -> None:
        nonlocal processed
        if item == 0:
            started.append(asyncio.ensure_future(other_task()))
        processed += 1  # no await: the item completes without suspending

    await bounded_each(work, range(1000), 4)
    assert processed == 1000
    assert seen_by_other_task and seen_by_other_task[0] < 20
