"""The executor seam of the run engine: where (case, run) pipelines execute.

:class:`~agentgauge.run._evaluator.AgentEvaluator` prepares the runs (set-level callbacks, case selection) and consumes
finished case results (result writer, summary rows, progress); an :class:`Executor` runs the pipelines in between.
:class:`LocalExecutor` -- the default -- runs them on the current event loop with bounded parallelism; the Ray
executor (:mod:`agentgauge.distributed`) dispatches them to actors on a cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..model import EvalCase, EvalCaseResult
from ..summary._case_row import CaseRow
from ._callbacks import CallbackContext, Callbacks
from ._evaluate import EvaluatorSource
from ._options import RunOptions
from ._pool import OneAtATime, bounded_each
from ._types import EvaluateRequest, InferenceRequest, InferenceResult

__all__ = ["CompactResult", "Emit", "ExecutionJob", "Executor", "LocalExecutor", "RunPlan", "WorkItem"]


@dataclass
class RunPlan:
    """One run of the eval set: its id, the requests of both phases and the context set-level callbacks built.

    ``inference_results`` / ``case_results`` are filled only when the job asks for them (set-level "after"
    callbacks receive every result of their run).
    """

    run_id: int
    inference_request: InferenceRequest
    evaluate_request: EvaluateRequest
    cases: list[EvalCase] = field(default_factory=list)
    inference_results: list[InferenceResult] = field(default_factory=list)
    case_results: list[EvalCaseResult] = field(default_factory=list)
    context: Any = field(default_factory=dict)
    start_time: float = 0.0


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One (case, run) pipeline: ``seq`` is its dispatch position, the key results are handed on in."""

    seq: int
    run: RunPlan
    case: EvalCase


@dataclass(frozen=True, slots=True)
class CompactResult:
    """A case result as a remote worker returns it: the compact row the summaries need and the full result as the
    JSON the result file holds (written as it is, parsed only when the run keeps results in memory)."""

    row: CaseRow
    detail: bytes

    def full(self) -> EvalCaseResult:
        """The full case result, parsed from :attr:`detail`."""
        return EvalCaseResult.model_validate_json(self.detail)


Emit = Callable[[WorkItem, "EvalCaseResult | CompactResult"], None]
"""Called by an executor once per finished work item, with its case result (in any order)."""


@dataclass
class ExecutionJob:
    """What an executor needs besides the work items: the agent and registry of the evaluator, its callbacks, the
    run's :class:`RunOptions` (``parallelism``, ``timeout``, ``prices``, ``simulation``, ``agent_cache``), a scorer
    import that may still be running (``prepared``), and whether set-level "after" callbacks need every result of
    their run (``keep_inferences`` / ``keep_results``). An executor calls ``started`` once its first items are under
    way (the evaluator calls it after the run if an executor never did).
    """

    app_name: str
    eval_set_id: str
    agent: object | None
    registry: EvaluatorSource
    callbacks: Callbacks
    options: RunOptions = field(default_factory=RunOptions)
    prepared: asyncio.Future[None] | None = None
    keep_inferences: bool = False
    keep_results: bool = False
    started: Callable[[], object] | None = None


class Executor(Protocol):
    """Runs the (case, run) pipelines of an evaluation and hands each case result to ``emit`` as it finishes.

    ``items`` is consumed lazily (a streamed eval set reads a case when it is pulled). Errors of a case are data
    (a failed case result); only infrastructure that cannot go on raises. Cancellation (Ctrl-C) must stop the
    work promptly and release what the executor started.
    """

    async def execute(self, job: ExecutionJob, items: Iterable[WorkItem], emit: Emit) -> None:
        """Run every item; ``emit(item, result)`` once per item."""
        ...


class LocalExecutor:
    """The in-process engine: at most ``job.options.parallelism`` pipelines in flight on the current event loop, each
    running its case's inference then scoring it right away, with every case-level callback."""

    async def execute(self, job: ExecutionJob, items: Iterable[WorkItem], emit: Emit) -> None:
        """Run every item on this event loop (see :class:`Executor`)."""
        from ._local import LocalService

        service = LocalService(
            job.agent, eval_set_manager=_NoSets(), evaluators=job.registry, callbacks=job.callbacks, options=job.options
        )
        prepared, parallelism = job.prepared, job.options.parallelism
        # Scoring and handing on a result wait their turn (one case per loop iteration), so an agent's answer that
        # arrives meanwhile is followed by the case's next turn first: the agents stay busy, scoring fills their time.
        scoring_turns = OneAtATime()

        async def finish(item: WorkItem, inference: InferenceResult, context: CallbackContext) -> None:
            if prepared is not None and not prepared.done():
                await asyncio.shield(prepared)
            await scoring_turns.wait()
            run = item.run
            result, _ = await service.score(run.evaluate_request, item.case, inference, context, run_id=run.run_id)
            emit(item, result)

        # Cases whose inference ends while the scorers are still being imported are scored once that is done, in
        # tasks of their own, so the worker goes on with the next case meanwhile (the import overlaps agent I/O).
        # At most ``parallelism`` cases wait that way: trace-mode cases need no agent and would otherwise all be read
        # (and kept) while the import runs, which is every case of a large streamed eval set.
        deferred: set[asyncio.Task[None]] = set()

        async def pipeline(item: WorkItem) -> None:
            run = item.run
            inference, context = await service.infer(run.inference_request, item.case, run.context, run_id=run.run_id)
            if job.keep_inferences:
                run.inference_results.append(inference)
            if job.keep_results:
                run.evaluate_request.inference_results.append(inference)
            if prepared is not None and not prepared.done() and len(deferred) < parallelism:
                task = asyncio.ensure_future(finish(item, inference, context))
                deferred.add(task)
                task.add_done_callback(deferred.discard)
                return
            await finish(item, inference, context)

        try:
            await bounded_each(pipeline, items, parallelism, started=job.started)
            while deferred:
                await asyncio.gather(*deferred)
        except BaseException:
            for task in deferred:
                task.cancel()
            if deferred:
                await asyncio.gather(*deferred, return_exceptions=True)
            raise


class _NoSets:
    """The eval-set source of a service that is handed its cases (never read)."""

    def get(self, app_name: str, eval_set_id: str) -> Any:
        raise LookupError("the executor's service is handed its cases")
