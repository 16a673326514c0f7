"""A cancelled GEPA search (an interrupted optimisation, a caller's time limit) ends at once: the evaluation in
flight is cancelled, GEPA's thread makes no further call and has ended when the cancellation reaches the caller."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

import pytest

from agentgauge.optimize import (
    Budget,
    ScoredBatch,
    ScoredCase,
    SearchSession,
    SearchSettings,
    Spending,
    Surface,
    load_optimizer,
)


def test_a_cancelled_search_stops_its_thread_and_the_call_in_flight() -> None:
    calls: list[str] = []
    cancelled: list[str] = []
    blocked = asyncio.Event()

    async def evaluate(texts: Mapping[str, str], split: str, ids: Sequence[str], feedback: bool) -> ScoredBatch:
        calls.append(split)
        if split == "train":  # the first minibatch of the first iteration never answers
            blocked.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                cancelled.append(split)
                raise
        return ScoredBatch([ScoredCase(i, 0.0, False, {"case": i}) for i in ids])

    async def reflect(prompt: str) -> str:
        return "```\nnew text\n```"

    async def main() -> float:
        worker = ThreadPoolExecutor(1)  # GEPA's thread: free again only once the search has ended
        asyncio.get_running_loop().set_default_executor(worker)
        session = SearchSession(
            {"prompt": "old text"},
            [Surface(surface_id="prompt", kind="text", owner="", text="old text")],
            ["a", "b", "c"],
            ["d", "e"],
            SearchSettings(max_metric_calls=50, minibatch=2),
            evaluate=evaluate,
            reflect=reflect,
            budget=Budget(metric_calls=50),
            spending=Spending(),
        )
        search = asyncio.create_task(load_optimizer("gepa").search(session))
        await asyncio.wait_for(blocked.wait(), 30)
        started = time.perf_counter()
        search.cancel()
        with pytest.raises(asyncio.CancelledError):
            await search
        ended = time.perf_counter() - started
        assert cancelled == ["train"]
        assert worker.submit(lambda: "free").result(timeout=1) == "free"
        made = len(calls)
        await asyncio.sleep(0.3)  # a thread still running would call again by now
        assert len(calls) == made
        return ended

    ended = asyncio.run(main())
    assert calls == ["validation", "train"]  # GEPA's first look at validation, then the minibatch that hung
    assert ended < 10  # the thread ended at its next step, not at the grace period's end
