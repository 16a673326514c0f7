"""The driver's side of a Ray run: batches of work items sent to the least busy actor with free slots, results handed
on as they arrive, and the cases of a worker that died sent again (at most ``max_attempts`` times each).

Every work item is keyed by its dispatch position (``seq``); a result that arrives for a key already done is dropped.
Ray is imported when a dispatcher is made, never at module import.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..model import EvalCaseResult, EvalStatus
from ..service import CompactResult, Emit, EvaluateRequest, InferenceRequest, WorkItem

__all__ = ["Dispatcher"]

_log = logging.getLogger("agentgauge.distributed")


@dataclass
class _Pending:
    items: list[WorkItem]
    actor: int
    attempt: int
    ref: Any


class Dispatcher:
    """Sends ``items`` to ``actors`` (each running at most ``slots`` cases at once, ``batch_size`` per call) until every
    item has a result for ``emit``; ``worker_pids`` is updated as restarted actors answer again."""

    def __init__(
        self,
        actors: list[Any],
        slots: int,
        batch_size: int,
        max_attempts: int,
        items: Iterable[WorkItem],
        emit: Emit,
        worker_pids: list[int],
    ) -> None:
        import ray

        self._ray = ray
        self.actors, self.slots, self.batch_size, self.max_attempts = actors, slots, batch_size, max_attempts
        self.emit, self.worker_pids = emit, worker_pids
        self.retried = 0
        """How many cases were sent again after their worker died."""
        self.load = [0] * len(actors)  # cases in flight per actor
        self.down = [False] * len(actors)  # restarting after its process died: no new work until it answers again
        self.pending: dict[asyncio.Future[Any], _Pending] = {}
        self.probes: dict[asyncio.Future[Any], int] = {}
        self.again: deque[tuple[list[WorkItem], int]] = deque()
        self.source = iter(items)
        self.held: list[WorkItem] = []  # an item pulled for the next batch (it belongs to another run)
        self.exhausted = False
        self.done = bytearray()  # one flag per dispatch position: a million cases cost a megabyte
        self.requests: dict[int, tuple[Any, Any]] = {}

    async def run(self) -> None:
        """Dispatch every item and hand on every result; on any exception (cancellation included) the calls in
        flight are cancelled."""
        try:
            while True:
                self._fill()
                if not self.pending and not (self.again and self.probes):
                    for task in self.probes:
                        task.cancel()  # an actor still restarting that no case waits for
                    return
                waiting = [*self.pending, *self.probes]
                finished, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for future in finished:
                    self._collect(future)
        except BaseException:
            for task in self.probes:
                task.cancel()
            for future, entry in self.pending.items():
                future.cancel()  # nobody awaits it any more: no "exception never retrieved" when Ray cancels it
                with contextlib.suppress(Exception):
                    self._ray.cancel(entry.ref)
            raise

    def _fill(self) -> None:
        """Send batches while an actor that is up has free slots and there are items."""
        while True:
            up = [i for i in range(len(self.actors)) if not self.down[i]]
            if not up:
                return
            index = min(up, key=self.load.__getitem__)
            free = self.slots - self.load[index]
            if free <= 0:
                return
            batch, attempt = self._next_batch(min(self.batch_size, free))
            if not batch:
                return
            self._submit(batch, attempt, index)

    def _next_batch(self, limit: int) -> tuple[list[WorkItem], int]:
        if self.again:
            return self.again.popleft()
        batch = self.held[:]
        self.held.clear()
        while len(batch) < limit and not self.exhausted:
            item = next(self.source, None)
            if item is None:
                self.exhausted = True
            elif batch and item.run is not batch[0].run:
                self.held.append(item)  # a batch holds one run's cases: they share its requests
                break
            else:
                batch.append(item)
        return batch, 1

    def _submit(self, batch: list[WorkItem], attempt: int, index: int) -> None:
        run = batch[0].run
        shipped = self.requests.get(run.run_id)
        if shipped is None:
            # Once per run, into the object store: the requests without their per-case lists (the case ids of the
            # whole run, results a set-level callback collects), which would make every call carry O(N).
            infer, evaluate = run.inference_request, run.evaluate_request
            shipped = self.requests[run.run_id] = (
                self._ray.put(InferenceRequest(infer.app_name, infer.eval_set_id, [])),
                self._ray.put(EvaluateRequest(evaluate.app_name, evaluate.eval_set_id, [], evaluate.evaluate_config)),
            )
        ref = self.actors[index].run.remote(run.run_id, shipped[0], shipped[1], [item.case for item in batch])
        self.pending[asyncio.wrap_future(ref.future())] = _Pending(batch, index, attempt, ref)
        self.load[index] += len(batch)

    def _collect(self, future: asyncio.Future[Any]) -> None:
        """Take a finished actor call (or a probe of a restarting actor) and hand on its results."""
        if future in self.probes:
            index = self.probes.pop(future)
            self.down[index] = False
            self.worker_pids[index] = future.result()
            return
        entry = self.pending.pop(future)
        self.load[entry.actor] -= len(entry.items)
        try:
            results: list[CompactResult] = future.result()
        except self._ray.exceptions.RayActorError as exc:  # the worker process died: send its cases again
            self._worker_died(entry, exc)
            return
        except Exception as exc:  # an error of the worker machinery itself, not of a case
            for item in entry.items:
                self._finish(item, _lost(item, f"worker error: {type(exc).__name__}: {exc}"))
            return
        for item, result in zip(entry.items, results, strict=True):
            self._finish(item, result)

    def _worker_died(self, entry: _Pending, exc: BaseException) -> None:
        if not self.down[entry.actor]:
            self.down[entry.actor] = True
            self.probes[asyncio.ensure_future(self._probe(entry.actor))] = entry.actor
        if entry.attempt < self.max_attempts:
            self.retried += len(entry.items)
            _log.warning("a worker died running %d case(s); sending them again", len(entry.items))
            self.again.append((entry.items, entry.attempt + 1))
            return
        message = f"worker died {entry.attempt} times running this case: {exc}"
        for item in entry.items:
            self._finish(item, _lost(item, message))

    async def _probe(self, index: int) -> int:
        """The actor's process id, once it answers again after a restart."""
        while True:
            try:
                pid: int = await asyncio.wrap_future(self.actors[index].pid.remote().future())
                return pid
            except self._ray.exceptions.RayActorError:
                await asyncio.sleep(0.2)

    def _finish(self, item: WorkItem, result: CompactResult | EvalCaseResult) -> None:
        done = self.done
        if len(done) <= item.seq:
            done.extend(bytes(max(item.seq + 1 - len(done), len(done))))
        if done[item.seq]:
            return  # already delivered by an earlier attempt
        done[item.seq] = 1
        self.emit(item, result)


def _lost(item: WorkItem, message: str) -> EvalCaseResult:
    return EvalCaseResult(
        eval_set_id=item.run.inference_request.eval_set_id,
        eval_id=item.case.eval_id,
        run_id=item.run.run_id,
        final_eval_status=EvalStatus.ERROR,
        error_message=message,
    )
