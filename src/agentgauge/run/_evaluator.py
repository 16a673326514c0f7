"""AgentEvaluator: evaluate an agent on an eval set, several runs, cases in parallel, one saved result."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InputError, NotFoundError
from ..model import EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, EvalStatus
from ._collector import _Collector, _collector_ignores_loaded_data, _prepare_scorers, dispatch_order
from ._result import EvaluationCaseResult, EvaluationResult
from ._resume import close_progress as _close_progress
from ._resume import open_progress as _open_progress

if TYPE_CHECKING:  # pragma: no cover
    from ..formats._result_writer import ResultWriter
    from ..judges._settings import JudgeSettings
    from ..model._prices import PriceTable
    from ..service import AgentResponseCache, Callbacks, EvalSetSource, EvaluatorSource, Executor, RunPlan, WorkItem
    from ..service._selection import MetricSelection
    from ..simulation import SimulationSettings
    from ._resume import ResumeState

__all__ = [
    "DEFAULT_MAX_RESULTS_IN_MEMORY",
    "AgentEvaluator",
    "EvaluationCaseResult",
    "EvaluationResult",
    "MetricSource",
    "ProgressFn",
    "ResultSink",
]


class MetricSource(Protocol):
    """Where the evaluator reads an eval set's metrics (every metric manager satisfies it)."""

    def get_all(self, app: str, set_id: str) -> list[EvalMetric]:
        """Every metric of the eval set (``NotFoundError`` when none are stored)."""
        ...


class ResultSink(Protocol):
    """Where the evaluator saves the result (every result manager satisfies it; ``path_for`` is optional)."""

    def save(self, app: str, result: EvalSetResult) -> str:
        """Store ``result`` and return its id."""
        ...


DEFAULT_MAX_RESULTS_IN_MEMORY = 1000
"""Case results (cases x runs) an evaluation keeps in memory besides streaming them to a result file."""

ProgressFn = Callable[[int, int], None]
"""``progress(done, total)``: called with ``(0, total)`` first, then after each case of each run is scored."""


class AgentEvaluator:
    """Evaluates an agent on eval sets held by an eval-set manager, scores with the metrics of the metric manager
    and saves one :class:`EvalSetResult` per evaluation with the result manager.

    - Managers default to the local file managers rooted at ``"."``; ``registry`` defaults to
      ``Registry(judge_settings=judge_settings)``.
    - ``num_runs`` repeats every case; ``parallelism`` bounds how many (case, run) pipelines are in flight at
      once, across cases and runs alike. Each pipeline scores its case as soon as the case's inference is done.
    - ``timeout`` bounds each case's inference (seconds); ``case_ids`` restricts the cases.
    - ``prices`` (a price table, ``agentgauge.model._prices.PriceTable``) sets the cost of the
      token usage that live runs record; default: the built-in table.
    - ``progress(done, total)`` is called as cases finish; ``on_start()`` once per evaluation, as soon as its first
      cases are under way (their agents at work), e.g. to print a header without delaying the first agent call.
    - A result manager with ``open_writer`` (the local file manager) gets the result streamed: each case result
      is written to the file as it finishes and dropped. Up to ``max_results_in_memory`` case results (cases x
      runs; default :data:`DEFAULT_MAX_RESULTS_IN_MEMORY`) are also kept for the returned
      :class:`EvaluationResult`; a larger run keeps only compact rows and reads the details back from the file on
      demand. An eval-set manager with ``iter_cases`` (a
      :class:`~agentgauge.service.StreamedEvalSet`) hands out its cases one at a time.
    - :meth:`interrupt` stops a run early; the finished cases are saved, marked ``interrupted``.
    - ``executor`` runs the (case, run) pipelines: ``None`` or ``"local"`` for this process's event loop
      (:class:`~agentgauge.service.LocalExecutor`), ``"ray"`` for a Ray cluster with default settings, or any
      :class:`~agentgauge.service.Executor` such as :class:`agentgauge.distributed.RayExecutor`.
    - ``user_simulator`` plays the user of ``conversationScenario`` cases (see :mod:`agentgauge.simulation`);
      ``expected_agent`` produces the expected invocations of ``expectedRunnerEnabled`` cases and drives
      ``driver: "expected"`` scenarios; ``simulation`` sets the rest (tool-mock generator, turn limits).
    - ``agent_cache`` (:class:`~agentgauge.service.AgentResponseCache`) reuses the agent's earlier answers.
    - ``metric_selection`` (:class:`~agentgauge.service.MetricSelection`) scores with a subset of the set's metrics
      (only some, all but some, or no LLM judges); judges whose ``JudgeSettings.max_concurrency`` is unset make
      up to ``parallelism`` calls at once.
    - ``store`` (a URL such as ``sqlite:///results.db``) saves results in that SQL store when no
      ``result_manager`` is given; each case result is committed as it finishes (see ``docs/store.md``).

    Set-level callbacks run once per run: ``BeforeInferenceSet`` then ``BeforeEvaluateSet`` before any case,
    ``AfterInferenceSet`` then ``AfterEvaluateSet`` after every case of every run.
    """

    def __init__(
        self,
        app_name: str,
        agent: object | None = None,
        *,
        eval_set_manager: EvalSetSource | None = None,
        metric_manager: MetricSource | None = None,
        result_manager: ResultSink | None = None,
        registry: EvaluatorSource | None = None,
        callbacks: Callbacks | None = None,
        num_runs: int = 1,
        parallelism: int = 4,
        timeout: float | None = None,
        case_ids: Sequence[str] | None = None,
        judge_settings: JudgeSettings | None = None,
        progress: ProgressFn | None = None,
        on_start: Callable[[], object] | None = None,
        max_results_in_memory: int | None = None,
        executor: Executor | str | None = None,
        prices: PriceTable | None = None,
        user_simulator: object | None = None,
        expected_agent: object | None = None,
        simulation: SimulationSettings | None = None,
        agent_cache: AgentResponseCache | None = None,
        store: str | None = None,
        metric_selection: MetricSelection | None = None,
    ) -> None:
        from ..service import Callbacks

        if num_runs < 1:
            raise ValueError(f"num_runs must be at least 1, got {num_runs}")
        if parallelism < 1:
            raise ValueError(f"parallelism must be at least 1, got {parallelism}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if store is not None and result_manager is None:
            from ..sqlstore import open_store

            result_manager = open_store(store).results()
        if eval_set_manager is None or metric_manager is None or result_manager is None:
            from ..storage import LocalEvalResultManager, LocalEvalSetManager, LocalMetricManager

            eval_set_manager = eval_set_manager or LocalEvalSetManager(base_dir=".")
            metric_manager = metric_manager or LocalMetricManager(base_dir=".")
            result_manager = result_manager or LocalEvalResultManager(base_dir=".")
        if registry is None:
            from ..evaluators import Registry

            registry = Registry(judge_settings=judge_settings)
        self.app_name = app_name
        self.agent = agent
        self.prices = prices
        self.eval_set_manager = eval_set_manager
        self.metric_manager = metric_manager
        self.result_manager = result_manager
        self.registry = registry
        self.callbacks = callbacks or Callbacks()
        self.num_runs = num_runs
        self.parallelism = parallelism
        self.timeout = timeout
        self.case_ids = list(case_ids) if case_ids else None
        self.progress = progress
        self.on_start = on_start
        self.max_results_in_memory = (
            DEFAULT_MAX_RESULTS_IN_MEMORY if max_results_in_memory is None else max_results_in_memory
        )
        self.executor = _executor(executor)
        self.agent_cache = agent_cache
        self.metric_selection = metric_selection
        self._interrupt_requested = False
        self._cancelled = False
        self._selection: list[str] = []  # the case ids a run of some of the set's cases was limited to
        self._pool_task: asyncio.Future[None] | None = None
        self.simulation = _simulation_settings(simulation, user_simulator, expected_agent)

    def _metrics(self, eval_set_id: str) -> list[EvalMetric]:
        try:
            return list(self.metric_manager.get_all(self.app_name, eval_set_id))
        except NotFoundError:
            # As with trpc's local metric manager: no metrics stored means none configured (cases not_evaluated).
            return []

    def _check(self, cases: Sequence[EvalCase], metrics: list[EvalMetric]) -> None:
        validate = getattr(self.registry, "validate_metrics", None)
        if validate is not None:
            validate(metrics)
        # An executor may load the agent itself, in its workers (the Ray executor's ``agent_spec``).
        if self.agent is None and getattr(self.executor, "agent_spec", None) is None:
            needing = [case.eval_id for case in cases if not case.is_trace]
            if needing:
                raise InputError(
                    f'an agent is required: case(s) {", ".join(needing)} are not in trace mode (evalMode "trace")'
                )

    def interrupt(self, *, cancelled: bool = False) -> None:
        """Stop the running evaluation as soon as possible (e.g. from a SIGINT handler on the event loop).

        Cases in flight are cancelled; :meth:`evaluate` then saves the cases finished so far with ``interrupted``
        set (and ``cancelled`` too with ``cancelled=True``: a user cancelled the run, e.g. in the web UI) and
        returns normally. Must be called from the event loop's thread.
        """
        self._interrupt_requested = True
        self._cancelled = self._cancelled or cancelled
        if self._pool_task is not None and not self._pool_task.done():
            self._pool_task.cancel()

    async def evaluate(self, eval_set_id: str, *, resume: ResumeState | None = None) -> EvaluationResult:
        """Evaluate the eval set ``eval_set_id`` and save the result.

        ``resume`` continues an interrupted run (see :func:`agentgauge.run._resume.load_resume`): its (case, run) pairs
        already scored are taken as they are, the others run, and the result keeps the interrupted run's id
        (``AfterInferenceSet`` callbacks see the inference results of the pairs run now only).

        Raises :class:`InputError` before running anything when a selected case id does not exist, a metric is
        unknown or invalid, ``metric_selection`` names a metric the set does not have or leaves none, or an agent is
        needed but missing; callback errors raise :class:`~agentgauge.service.CallbackError`. Everything else
        that goes wrong in a case fails that case (``error`` status).

        When the run is stopped -- :meth:`interrupt`, or this coroutine being cancelled (Ctrl-C under
        ``asyncio.run``) -- the cases finished so far are saved with ``interrupted`` set; after :meth:`interrupt`
        the result is returned, after a cancellation the cancellation propagates once the result is saved.
        """
        from ..service import select_cases

        started = time.perf_counter()
        self._interrupt_requested = False
        self._cancelled = False
        stream = getattr(self.eval_set_manager, "iter_cases", None)
        if stream is not None:
            eval_set = getattr(self.eval_set_manager, "index")(self.app_name, eval_set_id)  # noqa: B009
        else:
            eval_set = self.eval_set_manager.get(self.app_name, eval_set_id)
        cases = select_cases(eval_set, self.case_ids)
        metrics = self._metrics(eval_set_id)
        skipped: list[str] = []
        if self.metric_selection is not None:
            metrics, skipped = self.metric_selection.select(metrics, self.registry)
        self._check(cases, metrics)
        if resume is not None:
            ids = [case.eval_id for case in cases]
            resume.check(eval_set_id=eval_set_id, num_runs=self.num_runs, metrics=metrics, case_ids=ids)
        prepared = _prepare_scorers(metrics)
        from ..judges._settings import RUN_PARALLELISM

        parallelism = RUN_PARALLELISM.set(self.parallelism)  # judges without their own limit keep pace
        try:
            with _collector_ignores_loaded_data():
                return await self._run(eval_set, cases, metrics, started, stream, prepared, resume, skipped)
        finally:
            RUN_PARALLELISM.reset(parallelism)
            if prepared is not None and not prepared.done():
                prepared.cancel()  # the thread finishes its import on its own

    def _open_writer(self, eval_set_id: str, result_id: str) -> ResultWriter | None:
        open_writer = getattr(self.result_manager, "open_writer", None)
        if open_writer is None:
            return None
        writer: ResultWriter = open_writer(self.app_name, eval_set_id, result_id)
        return writer

    async def _run(
        self,
        eval_set: EvalSet,
        cases: list[EvalCase],
        metrics: list[EvalMetric],
        started: float,
        stream: Callable[[str, str], Iterator[EvalCase]] | None,
        prepared: asyncio.Future[None] | None = None,
        resume: ResumeState | None = None,
        skipped: Sequence[str] = (),
    ) -> EvaluationResult:
        from ..service import (
            BeforeEvaluateSetArgs,
            BeforeInferenceSetArgs,
            CallbackError,
            CompactResult,
            EvaluateConfig,
            EvaluateRequest,
            ExecutionJob,
            InferenceRequest,
            RunPlan,
            WorkItem,
            select_cases,
        )
        from ..storage._ids import default_result_id

        eval_set_id = eval_set.eval_set_id
        # The id is chosen here so the saved file and the returned object agree.
        result_id = resume.eval_set_result_id if resume else default_result_id(self.app_name, eval_set_id)
        done_before = dict(resume.done) if resume is not None else {}
        runs: list[RunPlan] = []
        case_ids = [case.eval_id for case in cases]
        for run_id in range(1, self.num_runs + 1):
            run = RunPlan(
                run_id,
                InferenceRequest(self.app_name, eval_set_id, list(case_ids)),
                EvaluateRequest(self.app_name, eval_set_id, [], EvaluateConfig(list(metrics), list(skipped))),
                start_time=time.time(),
            )
            before = BeforeInferenceSetArgs(run.inference_request)
            run.context = await self.callbacks.run("before_inference_set", {}, before)
            # A BeforeInferenceSet callback may change the request, e.g. the case ids of this run.
            run.cases = select_cases(eval_set, run.inference_request.eval_case_ids)
            run.context = await self.callbacks.run(
                "before_evaluate_set", run.context, BeforeEvaluateSetArgs(run.evaluate_request)
            )
            runs.append(run)
        self._selection = _selected_ids(eval_set, runs)

        total = sum(len(run.cases) for run in runs)
        # Set-level "after" callbacks receive every result of their run; only then are results kept per run.
        keep_inferences = bool(self.callbacks.names("after_inference_set"))
        keep_results = bool(self.callbacks.names("after_evaluate_set"))
        writer = self._open_writer(eval_set_id, result_id)
        collector = _Collector(
            writer,
            keep_full=writer is None or total <= self.max_results_in_memory,
            known_ids=[case.eval_id for case in runs[0].cases] if runs else None,
        )
        progress_log = _open_progress(writer, self.app_name, eval_set_id, result_id, self.num_runs, metrics, resume)
        done = 0
        if self.progress is not None:
            self.progress(0, total)

        def items() -> Iterator[WorkItem]:
            first = 0  # the sequence number of the run's first case: results are handed on in eval-set order
            for run in runs:
                if stream is None:
                    selected: Iterable[tuple[int, EvalCase]] = (
                        (i, run.cases[i]) for i in dispatch_order(run.cases, self.parallelism)
                    )
                elif len(run.cases) == len(eval_set.eval_cases):  # every case: no set of a million ids to test
                    selected = enumerate(stream(self.app_name, eval_set_id))
                else:
                    wanted = {case.eval_id for case in run.cases}
                    selected = enumerate(c for c in stream(self.app_name, eval_set_id) if c.eval_id in wanted)
                for position, case in selected:
                    earlier = done_before.pop((case.eval_id, run.run_id), None) if done_before else None
                    if earlier is not None:  # scored before the interruption: kept as it was, never dispatched
                        record(first + position, run, earlier)
                    else:
                        yield WorkItem(first + position, run, case)
                first += len(run.cases)

        def emit(item: WorkItem, result: EvalCaseResult | CompactResult) -> None:
            # Written to the progress log as it finishes; the JSON made for it goes to the result file in order.
            dumped = None
            if progress_log is not None:
                if isinstance(result, CompactResult):
                    progress_log.add_json(result.detail)
                else:
                    dumped = progress_log.add(result)
            record(item.seq, item.run, result, dumped)

        def record(
            seq: int, run: RunPlan, result: EvalCaseResult | CompactResult, dumped: dict[str, Any] | None = None
        ) -> None:
            nonlocal done
            if keep_results:
                run.case_results.append(result.full() if isinstance(result, CompactResult) else result)
            collector.add(seq, result, dumped)
            done += 1
            if self.progress is not None:
                self.progress(done, total)

        job = ExecutionJob(
            self.app_name,
            eval_set_id,
            self.agent,
            self.registry,
            self.callbacks,
            self.parallelism,
            self.timeout,
            prepared,
            keep_inferences=keep_inferences,
            keep_results=keep_results,
            prices=self.prices,
            simulation=self.simulation,
            agent_cache=self.agent_cache,
            started=_Once(self.on_start) if self.on_start is not None else None,
        )

        async def work() -> None:
            await self.executor.execute(job, items(), emit)
            if job.started is not None:  # an executor that never said it started: the run is over now
                job.started()

        interrupted = False
        try:
            self._pool_task = asyncio.ensure_future(work())
            if self._interrupt_requested:  # asked for while the set-level callbacks ran
                self._pool_task.cancel()
            try:
                await self._pool_task
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if not self._interrupt_requested or current is None or current.cancelling():
                    raise  # cancelled from outside: handled below
                interrupted = True
            finally:
                self._pool_task = None
            if not interrupted:
                await self._after_sets(runs, eval_set_id)
        except BaseException as exc:
            if writer is not None and not interrupted:
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    # Cancelled from outside (Ctrl-C under asyncio.run): save what finished, then propagate.
                    collector.flush()
                    self._finish(eval_set, collector, writer, result_id, started, interrupted=True)
                    _close_progress(progress_log, saved=True)
                else:
                    writer.abort()
            # A crash (disk full, out of memory, a bug) keeps the log for --resume; a callback error would only
            # happen again, so that run leaves nothing behind, as before.
            _close_progress(progress_log, saved=isinstance(exc, CallbackError))
            raise
        if interrupted:
            collector.flush()
        outcome = self._finish(eval_set, collector, writer, result_id, started, interrupted=interrupted)
        _close_progress(progress_log, saved=True)  # the result file now holds every finished case
        return outcome

    async def _after_sets(self, runs: list[RunPlan], eval_set_id: str) -> None:
        from ..service import AfterEvaluateSetArgs, AfterInferenceSetArgs, EvalSetRunResult

        for run in runs:
            # Both lists in eval-set order, whatever order the cases finished (or started) in.
            order = {case.eval_id: i for i, case in enumerate(run.cases)}
            inferences = sorted(run.inference_results, key=lambda r: order.get(r.eval_case_id, len(order)))
            await self.callbacks.run(
                "after_inference_set",
                run.context,
                AfterInferenceSetArgs(run.inference_request, inferences, None, run.start_time),
            )
            run_results = sorted(run.case_results, key=lambda r: order.get(r.eval_id, len(order)))
            await self.callbacks.run(
                "after_evaluate_set",
                run.context,
                AfterEvaluateSetArgs(
                    run.evaluate_request,
                    EvalSetRunResult(self.app_name, eval_set_id, run_results),
                    None,
                    run.start_time,
                ),
            )

    def _finish(
        self,
        eval_set: EvalSet,
        collector: _Collector,
        writer: ResultWriter | None,
        result_id: str,
        started: float,
        *,
        interrupted: bool,
    ) -> EvaluationResult:
        from ..service import summarize_rows

        eval_set_id = eval_set.eval_set_id
        case_ids = [c.eval_id for c in eval_set.eval_cases]
        rows = summarize_rows(collector.rows, case_ids=case_ids, num_runs=self.num_runs)
        rows.head.selected_eval_ids = list(self._selection)  # `compare` tells cases not run from removed ones
        if interrupted and rows.head.overall_status is EvalStatus.PASSED:
            rows.head.overall_status = EvalStatus.NOT_EVALUATED  # the cases that never ran were not evaluated
        created = time.time()
        cancelled = interrupted and self._cancelled
        eval_set_result: EvalSetResult | None = None
        full_summary = None
        if collector.keep_full:
            full_summary = rows.full()  # the per-case entries once, for the file and the returned result
            eval_set_result = EvalSetResult(
                eval_set_result_id=result_id,
                eval_set_result_name=result_id,
                eval_set_id=eval_set_id,
                eval_case_results=collector.full,
                summary=full_summary,
                creation_timestamp=created,
                interrupted=interrupted,
                cancelled=cancelled,
            )
        result_path: Path | None = None
        if writer is not None:
            writer.commit(
                summary=full_summary or rows.head,
                case_summaries=() if full_summary is not None else rows.case_summary_documents(),
                creation_timestamp=created,
                interrupted=interrupted,
                # Only when set: a result manager's own writer need not know the flag.
                **({"cancelled": True} if cancelled else {}),
            )
            result_path = writer.path
        else:
            assert eval_set_result is not None
            result_id = self.result_manager.save(self.app_name, eval_set_result)
            path_for = getattr(self.result_manager, "path_for", None)
            result_path = Path(path_for(self.app_name, result_id)) if path_for is not None else None
        manager, app = self.result_manager, self.app_name

        def load() -> EvalSetResult:
            getter = getattr(manager, "get", None)
            if getter is not None:
                loaded: EvalSetResult = getter(app, result_id)
                return loaded
            from ..formats import load_result

            assert result_path is not None
            return load_result(result_path)

        head = rows.head
        return EvaluationResult(
            app_name=self.app_name,
            eval_set_id=eval_set_id,
            overall_status=head.overall_status,
            execution_time=time.perf_counter() - started,
            eval_set_result=eval_set_result,
            result_path=result_path,
            loader=load,
            case_ids=case_ids,
            interrupted=interrupted,
            runs=(head.num_runs, head.run_status_counts.passed),
            rows=rows,
            result_header=EvalSetResult(
                eval_set_result_id=result_id,
                eval_set_result_name=result_id,
                eval_set_id=eval_set_id,
                summary=head,
                creation_timestamp=created,
                interrupted=interrupted,
                cancelled=cancelled,
            ),
        )

    def evaluate_sync(self, eval_set_id: str) -> EvaluationResult:
        """:meth:`evaluate` for synchronous code (starts an event loop; not usable inside a running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.evaluate(eval_set_id))
        raise RuntimeError("evaluate_sync() cannot run inside a running event loop; use `await evaluate()`")


def _executor(executor: Executor | str | None) -> Executor:
    """The executor an :class:`AgentEvaluator` argument names (see its docstring)."""
    if executor is None or executor == "local":
        from ..service import LocalExecutor

        return LocalExecutor()
    if executor == "ray":
        from ..distributed import RayExecutor

        return RayExecutor()
    if isinstance(executor, str):
        raise ValueError(f"unknown executor {executor!r}: use 'local', 'ray' or an Executor object")
    return executor


def _simulation_settings(
    settings: SimulationSettings | None, user_simulator: object | None, expected_agent: object | None
) -> SimulationSettings | None:
    """``settings`` with the ``user_simulator`` / ``expected_agent`` shortcuts filled in (``None`` when none)."""
    if settings is None and user_simulator is None and expected_agent is None:
        return None
    import dataclasses

    from ..agents import as_agent
    from ..simulation import SimulationSettings, as_user_simulator

    out = dataclasses.replace(settings) if settings is not None else SimulationSettings()
    if user_simulator is not None:
        out.user_simulator = as_user_simulator(user_simulator)
    if expected_agent is not None:
        out.expected_agent = as_agent(expected_agent)
    elif out.expected_agent is not None:
        out.expected_agent = as_agent(out.expected_agent)
    return out


def _selected_ids(eval_set: EvalSet, runs: list[Any]) -> list[str]:
    """The ids of the cases the runs were limited to, in eval-set order; empty when every case runs."""
    total = len(eval_set.eval_cases)
    if all(len(run.cases) == total for run in runs):
        return []
    chosen = {case.eval_id for run in runs for case in run.cases}
    return [case.eval_id for case in eval_set.eval_cases if case.eval_id in chosen]


class _Once:
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
