"""Evaluation runs in the background: progress counters, per-case status, an event log for server-sent events,
and one stored session per case run so a UI can open what the agent did."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .._util.uuids import uuid4
from ..launch import HTTP_API, EvalRequest, EvalSetSpec
from ..model import EvalSet, EvalSetResult
from ._sessions import StoredSession

if TYPE_CHECKING:  # pragma: no cover
    from ..agents import Agent
    from ..evaluators import Registry
    from ..launch import PreparedRun
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

__all__ = ["Run", "RunAlreadyEnded", "RunHost", "RunManager", "served", "served_set"]

_MAX_KEPT_RUNS = 200  # finished runs remembered for status queries; older ones are forgotten first


class RunAlreadyEnded(Exception):
    """Cancelling a run that has already finished or failed (answered 409)."""


@dataclass
class Run:
    """One background evaluation of an eval set's cases, with its request. ``events`` is the log streamed to
    clients (``seq`` numbers them)."""

    id: str
    app: str
    eval_set_id: str
    request: EvalRequest
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
    prepared: PreparedRun | None = None
    warnings: list[dict[str, Any]] = field(default_factory=list)  # what the input checks warned of (unknown keys)
    notes: list[str] = field(default_factory=list)  # the run's notes for the person running it (launch's on_note)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    def snapshot(self) -> dict[str, Any]:
        """The run's state as JSON."""
        return {
            "runId": self.id,
            "appName": self.app,
            "evalSetId": self.eval_set_id,
            "status": self.status,
            "total": self.total,
            "done": self.done,
            "cases": self.cases,
            "resultId": self.result_id,
            "error": self.error,
            "started": self.started,
            "timeout": self.request.timeout,
            "warnings": self.warnings,
            "notes": self.notes,
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


def served(state: RunHost, request: EvalRequest) -> EvalRequest:
    """``request`` with the server's own settings: its default judge, where its results go, its registry, and its
    API's names in messages."""
    config = state.config
    return dataclasses.replace(
        request,
        judge=config.judge,
        output_dir=config.output_dir or config.data_dir / "results",
        results=state.results.writer,
        registry=state.registry,
        surface=HTTP_API,
    )


def served_set(state: RunHost, app: str, eval_set_id: str, case_ids: Sequence[str], eval_set: EvalSet) -> EvalSetSpec:
    """The server's eval set ``eval_set_id`` of ``app`` (as parsed, shared: the run reads it and never changes it),
    named in messages as the server keeps it (``app/file``), not by its path on the server."""
    path = state.eval_sets.path_for(app, eval_set_id)
    return EvalSetSpec(path, tuple(case_ids), eval_set, name=f"{app}/{path.name}")


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

    async def start(self, app: str, eval_set_id: str, case_ids: list[str], asked: EvalRequest) -> Run:
        """Start a run of the cases ``case_ids`` (none: all) of an eval set with what the client ``asked`` for (its
        metrics, runs and parallelism), completed with the server's own settings: the agent, time limit, registry,
        simulated users and where results go. The request is checked and its inputs loaded first: bad input raises
        :class:`InputError` / :class:`NotFoundError` before anything runs."""
        from ..launch import prepare
        from ..service import select_cases
        from ._editor import run_input_warnings

        state = self.state
        config = state.config
        found = state.eval_sets.snapshot(app, eval_set_id)
        cached = found.eval_set
        metrics = list(asked.config) if isinstance(asked.config, tuple) else None
        warnings = run_input_warnings(state, app, eval_set_id, found.problems, metrics)
        agent = None
        if any(not c.is_trace for c in select_cases(cached, case_ids or None)):
            agent = await state.agent(app)
            from ._adk_trace import install_tracing

            install_tracing()  # the agent's spans of each case run show in ADK Web's Trace tab
        spec = served_set(state, app, eval_set_id, case_ids, cached)
        request = dataclasses.replace(
            served(state, asked),
            agent=agent,
            sets=(spec,),
            app_name=app,
            timeout=config.timeout,
            simulation=config.simulation,
        )
        run = Run(id=uuid4().hex, app=app, eval_set_id=eval_set_id, request=request)
        run.warnings = [w.as_json() for w in warnings]
        asked_run = dataclasses.replace(request, callbacks=self._callbacks(run))
        run.prepared = await asyncio.to_thread(prepare, asked_run, on_note=run.notes.append)
        run.total = sum(len(s.selected) for s in run.prepared.sets) * request.num_runs
        run.cases = {case_id: "pending" for s in run.prepared.sets for case_id in s.selected}
        self.runs[run.id] = run
        self._forget_old()
        run.task = asyncio.create_task(self._work(run, run.prepared))
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
            if run.prepared is not None:  # cases in flight stop; no further set starts
                run.prepared.interrupt(cancelled=True)
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

        state = self.state
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
                app_name=run.app,
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

    async def _work(self, run: Run, prepared: PreparedRun) -> EvalSetResult | None:
        if run.cancel_requested:  # cancelled before it started: nothing ran, nothing is saved
            prepared.close()
            await self._end_cancelled(run)
            return None
        try:
            [outcome] = await prepared.run()
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
            result = self.state.results.get(run.app, run.result_id)
        return result
