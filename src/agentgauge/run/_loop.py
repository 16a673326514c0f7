"""The case level of an evaluation: the (case, run) work items handed to the executor in eval-set order, each
finished case taken to the progress log, the collector and the progress callback, and a stop when one is asked for."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..model import EvalCase, EvalCaseResult, EvalSet
from ..service import CompactResult, ExecutionJob, Executor, RunPlan, WorkItem
from ._collector import _Collector, dispatch_order

if TYPE_CHECKING:  # pragma: no cover
    from ._resume import ProgressLog

__all__ = ["CaseStream", "Interruption", "RunLoop", "StartHook"]

CaseStream = Callable[[str, str], Iterator[EvalCase]]
"""``iter_cases(app, eval_set_id)`` of an eval-set manager that hands out its cases one at a time."""


class Interruption:
    """A request to stop a running evaluation early, and the task of its pipelines that the request cancels."""

    def __init__(self) -> None:
        self.requested = False
        self.cancelled = False
        """A user cancelled the run (e.g. in the web UI), not merely stopped it."""
        self.task: asyncio.Future[None] | None = None

    def request(self, *, cancelled: bool) -> None:
        """Ask the run to stop: the pipelines in flight are cancelled (at once if they already run)."""
        self.requested = True
        self.cancelled = self.cancelled or cancelled
        if self.task is not None and not self.task.done():
            self.task.cancel()


class RunLoop:
    """Runs the (case, run) pipelines of an evaluation's ``runs`` with an executor and records each finished case.

    Pairs in ``done_before`` (scored before an interruption, when resuming) are recorded as they are, never
    dispatched. Results are keyed by their position in the eval-set order of all runs, the order the collector
    hands them on in.
    """

    def __init__(
        self,
        app_name: str,
        eval_set: EvalSet,
        runs: Sequence[RunPlan],
        collector: _Collector,
        *,
        stream: CaseStream | None,
        parallelism: int,
        progress_log: ProgressLog | None,
        progress: Callable[[int, int], None] | None,
        done_before: dict[tuple[str, int], EvalCaseResult],
        keep_results: bool,
    ) -> None:
        self.app_name, self.eval_set, self.runs, self.collector = app_name, eval_set, runs, collector
        self.stream, self.parallelism, self.progress_log = stream, parallelism, progress_log
        self.progress, self.done_before, self.keep_results = progress, done_before, keep_results
        self.total = sum(len(run.cases) for run in runs)
        self.done = 0

    def start(self) -> None:
        """Report ``progress(0, total)``."""
        if self.progress is not None:
            self.progress(0, self.total)

    async def execute(self, executor: Executor, job: ExecutionJob, stop: Interruption) -> bool:
        """Run every pipeline; True when ``stop`` ended the run early (a cancellation from outside propagates)."""
        stop.task = asyncio.ensure_future(self._work(executor, job))
        if stop.requested:  # asked for while the set-level callbacks ran
            stop.task.cancel()
        try:
            await stop.task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if not stop.requested or current is None or current.cancelling():
                raise  # cancelled from outside: the caller saves what finished
            return True
        finally:
            stop.task = None
        return False

    async def _work(self, executor: Executor, job: ExecutionJob) -> None:
        await executor.execute(job, self.items(), self.emit)
        if job.started is not None:  # an executor that never said it started: the run is over now
            job.started()

    def items(self) -> Iterator[WorkItem]:
        """The work items of every run, lazily; the pairs scored before are recorded on the way."""
        first = 0  # the sequence number of the run's first case: results are handed on in eval-set order
        done_before = self.done_before
        for run in self.runs:
            for position, case in self._cases(run):
                earlier = done_before.pop((case.eval_id, run.run_id), None) if done_before else None
                if earlier is not None:  # scored before the interruption: kept as it was, never dispatched
                    self.record(first + position, run, earlier)
                else:
                    yield WorkItem(first + position, run, case)
            first += len(run.cases)

    def _cases(self, run: RunPlan) -> Iterable[tuple[int, EvalCase]]:
        """The run's cases with their eval-set positions, in dispatch order."""
        if self.stream is None:
            return ((i, run.cases[i]) for i in dispatch_order(run.cases, self.parallelism))
        eval_set_id = self.eval_set.eval_set_id
        if len(run.cases) == len(self.eval_set.eval_cases):  # every case: no set of a million ids to test
            return enumerate(self.stream(self.app_name, eval_set_id))
        wanted = {case.eval_id for case in run.cases}
        return enumerate(c for c in self.stream(self.app_name, eval_set_id) if c.eval_id in wanted)

    def emit(self, item: WorkItem, result: EvalCaseResult | CompactResult) -> None:
        """Take a finished case from the executor."""
        # Written to the progress log as it finishes; the JSON made for it goes to the result file in order.
        dumped = None
        if self.progress_log is not None:
            if isinstance(result, CompactResult):
                self.progress_log.add_json(result.detail)
            else:
                dumped = self.progress_log.add(result)
        self.record(item.seq, item.run, result, dumped)

    def record(
        self, seq: int, run: RunPlan, result: EvalCaseResult | CompactResult, dumped: dict[str, Any] | None = None
    ) -> None:
        """Hand a case result to its run (when set-level callbacks need it), the collector and the progress."""
        if self.keep_results:
            run.case_results.append(result.full() if isinstance(result, CompactResult) else result)
        self.collector.add(seq, result, dumped)
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total)


class StartHook:
    """Calls ``fn`` the first time it is called, never again; an exception it raises is reported through the event
    loop's exception handler (a failing hook must not end the run)."""

    def __init__(self, fn: Callable[[], object]) -> None:
        self._fn: Callable[[], object] | None = fn

    def __call__(self) -> None:
        fn, self._fn = self._fn, None
        if fn is None:
            return
        try:
            fn()
        except Exception as exc:  # reported, not raised: see the class docstring
            asyncio.get_running_loop().call_exception_handler(
                {"message": f"on_start hook {fn!r} failed", "exception": exc}
            )
