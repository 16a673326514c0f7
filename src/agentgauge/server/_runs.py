"""Evaluation runs in the background: progress counters, per-case status, an event log for server-sent events,
and one stored session per case run so a UI can open what the agent did."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .._util.uuids import uuid4
from ..model import CaseStatusRule, EvalMetric, EvalSetResult
from ._sessions import StoredSession

if TYPE_CHECKING:  # pragma: no cover
    from ..agents import Agent
    from ..evaluators import Registry
    from ..run._evaluator import AgentEvaluator
    from ..service import (
        AfterEvaluateCaseArgs,
        AfterInferenceCaseArgs,
        BeforeInferenceCaseArgs,
        CallbackContext,
        Callbacks,
    )
    from ..storage import LocalMetricManager
    from ._cache import ServerEvalSets
    from ._config import ServerConfig
    from ._history import ResultHistory
    from ._sessions import SessionStore

__all__ = ["Run", "RunAlreadyEnded", "RunHost", "RunManager", "RunRequest"]

_MAX_KEPT_RUNS = 200  # finished runs remembered for status queries; older ones are forgotten first


class RunAlreadyEnded(Exception):
    """Cancelling a run that has already finished or failed (answered 409)."""


@dataclass
class RunRequest:
    """What to run: the eval set, optional case ids (empty = all), metrics (``None`` = the set's stored metrics)."""

    app: str
    eval_set_id: str
    case_ids: list[str] = field(default_factory=list)
    metrics: list[EvalMetric] | None = None
    num_runs: int = 1
    parallelism: int = 4
    timeout: float | None = None
    """Seconds each case's inference may take (``serve --timeout``); ``None``: no limit."""
    case_status: CaseStatusRule | None = None
    """How a case's status follows from its runs (``None``: the default, ``mean``)."""


@dataclass
class Run:
    """One background evaluation. ``events`` is the log streamed to clients (``seq`` numbers them)."""

    id: str
    request: RunRequest
    status: str = "running"  # running | finished | failed | cancelled
    total: int = 0
    done: int = 0
    cases: dict[str, str] = field(default_factory=dict)
    result_id: str | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    events: list[dict[str, Any]] = field(default_factory=list)
    task: asyncio.Task[EvalSetResult | None] | None = None
    cancel_requested: bool = False
    evaluator: AgentEvaluator | None = None
    warnings: list[dict[str, Any]] = field(default_factory=list)  # what the input checks warned of (unknown keys)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def snapshot(self) -> dict[str, Any]:
        """The run's state as JSON."""
        return {
            "runId": self.id,
            "appName": self.request.app,
            "evalSetId": self.request.eval_set_id,
            "status": self.status,
            "total": self.total,
            "done": self.done,
            "cases": self.cases,
            "resultId": self.result_id,
            "error": self.error,
            "started": self.started,
            "timeout": self.request.timeout,
            "warnings": self.warnings,
        }

    async def emit(self, kind: str, **data: Any) -> None:
        """Append an event and wake every listener."""
        self.events.append({"event": kind, "seq": len(self.events), **data})
        async with self._changed:
            self._changed.notify_all()

    async def follow(self, start: int = 0) -> AsyncIterator[dict[str, Any]]:
        """Every event from ``start`` on, waiting for new ones until the run ends."""
        index = start
        while True:
            while index < len(self.events):
                yield self.events[index]
                index += 1
            if self.status != "running":
                return
            async with self._changed:
                if index >= len(self.events) and self.status == "running":
                    await self._changed.wait()


class _FixedMetrics:
    """A metric source that hands out the metrics chosen for one run."""

    def __init__(self, metrics: list[EvalMetric]) -> None:
        self._metrics = metrics

    def get_all(self, app: str, set_id: str) -> list[EvalMetric]:
        return [m.model_copy(deep=True) for m in self._metrics]


class RunHost(Protocol):
    """What runs read of the server that holds them (:class:`~agentgauge.server._state.ServerState`): its files,
    the time limit of its configuration, its metric registry and its agents."""

    @property
    def config(self) -> ServerConfig: ...
    @property
    def eval_sets(self) -> ServerEvalSets: ...
    @property
    def metrics(self) -> LocalMetricManager: ...
    @property
    def results(self) -> ResultHistory: ...
    @property
    def sessions(self) -> SessionStore: ...
    @property
    def registry(self) -> Registry: ...
    async def agent(self, app: str) -> Agent: ...


class RunManager:
    """Starts runs as asyncio tasks on the server's loop, so requests keep being served while they work."""

    def __init__(self, state: RunHost) -> None:
        self.state = state
        self.runs: dict[str, Run] = {}

    def get(self, run_id: str) -> Run:
        """A run by id; :class:`NotFoundError` when unknown."""
        from ..errors import NotFoundError

        found = self.runs.get(run_id)
        if found is None:
            raise NotFoundError(f"run {run_id!r} not found")
        return found

    async def start(self, request: RunRequest) -> Run:
        """Check the request (eval set, cases, metrics, agent) and start the run; bad input raises
        :class:`InputError` / :class:`NotFoundError` before anything runs."""
        from ..errors import InputError
        from ..service import select_cases
        from ._editor import run_input_warnings

        state = self.state
        cached = state.eval_sets.snapshot(request.app, request.eval_set_id)
        cases = select_cases(cached.eval_set, request.case_ids or None)
        warnings = run_input_warnings(state, request.app, request.eval_set_id, cached.problems, request.metrics)
        if request.num_runs < 1 or request.num_runs > 100:
            raise InputError(f"numRuns must be between 1 and 100, got {request.num_runs}")
        if request.parallelism < 1 or request.parallelism > 64:
            raise InputError(f"parallelism must be between 1 and 64, got {request.parallelism}")
        if request.timeout is None:
            request.timeout = state.config.timeout
        agent = None
        if any(not c.is_trace for c in cases):
            agent = await state.agent(request.app)
            from ._adk_trace import install_tracing

            install_tracing()  # the agent's spans of each case run show in ADK Web's Trace tab
        run = Run(id=uuid4().hex, request=request, total=len(cases) * request.num_runs)
        run.warnings = [w.as_json() for w in warnings]
        run.cases = {c.eval_id: "pending" for c in cases}
        self.runs[run.id] = run
        self._forget_old()
        run.task = asyncio.create_task(self._work(run, agent))
        await run.emit("run_started", runId=run.id, total=run.total, caseIds=list(run.cases))
        return run

    async def cancel(self, run_id: str, *, wait: float = 10.0) -> Run:
        """Stop a running run: cases in flight are cancelled, finished ones are saved in a result marked
        ``interrupted`` and ``cancelled``, and the run ends with status ``cancelled`` (event ``run_cancelled``).

        Waits up to ``wait`` seconds for the run to end. A run that has already ended raises
        :class:`RunAlreadyEnded` (cancelling it again is not an error: the run is returned).
        """
        run = self.get(run_id)
        if run.status not in ("running", "cancelled"):
            raise RunAlreadyEnded(f"run {run_id!r} has already ended ({run.status}); nothing to cancel")
        if run.status == "running" and not run.cancel_requested:
            run.cancel_requested = True
            if run.evaluator is not None:  # else the run sees the request before it starts evaluating
                run.evaluator.interrupt(cancelled=True)
        if run.task is not None and not run.task.done():
            await asyncio.wait({run.task}, timeout=wait)  # never raises what the run raised
        return run

    def _forget_old(self) -> None:
        finished = [r for r in self.runs.values() if r.status != "running"]
        for run in finished[: max(0, len(self.runs) - _MAX_KEPT_RUNS)]:
            del self.runs[run.id]

    def _callbacks(self, run: Run) -> Callbacks:
        """The callbacks that keep ``run``'s progress and events and store each case run's session."""
        from ..service import Callbacks

        state, request = self.state, run.request
        callbacks = Callbacks()

        async def started(_: CallbackContext, args: BeforeInferenceCaseArgs) -> None:
            run.cases[args.eval_case_id] = "running"
            await run.emit("case_started", evalId=args.eval_case_id)

        def inferred(_: CallbackContext, args: AfterInferenceCaseArgs) -> None:
            result = args.result
            if not result.session_id:
                return
            session = StoredSession(
                id=result.session_id,
                app_name=request.app,
                user_id=result.user_id or "test_user_id",
                invocations=result.inferences,
                eval_run=True,
                last_update_time=time.time(),
            )
            # The session is a convenience for viewers; the run's result does not depend on it.
            with contextlib.suppress(OSError, ValueError):
                state.sessions.save(session)

        async def scored(_: CallbackContext, args: AfterEvaluateCaseArgs) -> None:
            result = args.result
            status = result.final_eval_status.value
            run.cases[result.eval_id] = status
            run.done += 1
            await run.emit(
                "case_finished",
                evalId=result.eval_id,
                runId=result.run_id,
                status=status,
                errorMessage=result.error_message,
                scores={m.metric_name: m.score for m in result.overall_eval_metric_results},
                done=run.done,
                total=run.total,
            )

        callbacks.register_before_inference_case("server-progress", started)
        callbacks.register_after_inference_case("server-sessions", inferred)
        callbacks.register_after_evaluate_case("server-progress", scored)
        return callbacks

    async def _work(self, run: Run, agent: object | None) -> EvalSetResult | None:
        from ..run._evaluator import AgentEvaluator

        state, request = self.state, run.request
        callbacks = self._callbacks(run)
        evaluator = AgentEvaluator(
            request.app,
            agent,
            eval_set_manager=state.eval_sets,
            metric_manager=state.metrics if request.metrics is None else _FixedMetrics(request.metrics),
            result_manager=state.results.writer,
            registry=state.registry,
            callbacks=callbacks,
            num_runs=request.num_runs,
            parallelism=request.parallelism,
            timeout=request.timeout,
            case_ids=request.case_ids or None,
            case_status=request.case_status,
        )
        run.evaluator = evaluator
        if run.cancel_requested:  # cancelled before it started: nothing ran, nothing is saved
            await self._end_cancelled(run)
            return None
        try:
            outcome = await evaluator.evaluate(request.eval_set_id)
            result = outcome.eval_set_result
            run.result_id = outcome.result_header.eval_set_result_id if outcome.result_header else None
            if outcome.interrupted and run.cancel_requested:
                await self._end_cancelled(run)
                return result
            run.status = "finished"
            await run.emit("run_finished", resultId=run.result_id, status=outcome.overall_status.value)
            return result
        except asyncio.CancelledError:  # the server is shutting down: the evaluator saved the finished cases
            run.status = "failed"
            run.error = "cancelled: the server stopped"
            await run.emit("run_failed", error=run.error)
            raise
        except Exception as exc:  # a failed run is reported to its listeners, never crashes the server
            from .._util.redact import redact

            run.status = "failed"
            run.error = redact(str(exc)) or type(exc).__name__
            await run.emit("run_failed", error=run.error)
            return None

    @staticmethod
    async def _end_cancelled(run: Run) -> None:
        run.status = "cancelled"
        await run.emit("run_cancelled", resultId=run.result_id, done=run.done, total=run.total)

    async def wait(self, run: Run) -> EvalSetResult | None:
        """Wait for the run to end and return its saved result (``None`` when it failed)."""
        assert run.task is not None
        result = await asyncio.shield(run.task)
        if result is None and run.result_id is not None:
            result = self.state.results.get(run.request.app, run.result_id)
        return result
