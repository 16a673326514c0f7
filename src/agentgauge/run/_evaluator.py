"""AgentEvaluator: evaluate an agent on an eval set, several runs, cases in parallel, one saved result."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ..errors import InputError, NotFoundError
from ..model import CaseNotRun, CaseStatusRule, EvalCase, EvalMetric, EvalSet, RunMetadata, parse_case_status_rule
from ._collector import _Collector, _collector_ignores_loaded_data, _prepare_scorers
from ._evaluator_args import agent_object, executor_named, simulation_settings
from ._finish import ResultSink, ResultTarget, open_writer
from ._metadata import checked_labels
from ._result import EvaluationResult
from ._resume import close_progress as _close_progress
from ._resume import open_progress as _open_progress

if TYPE_CHECKING:  # pragma: no cover
    from ..judges._settings import JudgeSettings
    from ..model._prices import PriceTable
    from ..service import AgentResponseCache, Callbacks, CaseResultAggregator, EvalSetSource, EvaluatorSource, Executor
    from ..service._selection import MetricSelection
    from ..simulation import SimulationSettings
    from ._loop import CaseStream, Interruption
    from ._resume import ResumeState

__all__ = [
    "DEFAULT_MAX_RESULTS_IN_MEMORY",
    "AgentEvaluator",
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
    - ``agent`` (and ``expected_agent``) may be an agent object or a string naming one as the command line does:
      ``path/to/agent.py``, ``module:attribute`` or a remote agent URL (``a2a+http://...``, ``adk+http://...``,
      ``agui+http://...``); for headers or timeouts pass ``load_agent(url, remote=RemoteAgentSettings(...))``.
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
    - ``labels`` (``{"env": "prod"}`` or ``["env=prod"]``) are saved in the result's ``run_metadata`` with the git
      state, the agent's source hash (of ``agent_source``, default: ``agent``), models and version
      (see ``docs/running.md``); ``record_metadata=False`` records none of it.
    - ``case_status`` decides a case's status over its ``num_runs`` runs: ``mean`` (default: the metrics' scores
      reduced over the runs against their thresholds, as ADK and trpc-agent-go decide), ``all``, ``majority`` or
      ``any`` run passed (see :class:`~agentgauge.model.CaseStatusRule`); an unknown name raises ``ValueError``.
    - ``case_aggregator`` (:class:`~agentgauge.service.CaseResultAggregator`) gives each case run its case score and
      status (trpc-agent-go's ``evalCaseResults[].score``); by default trpc's own rule scores the cases whose
      metrics follow trpc's rules (1 passed, 0 otherwise).
    - ``cases_not_run`` (:class:`~agentgauge.model.CaseNotRun`) names cases of the eval set this evaluation
      cannot run, with why (a trace run's cases without a trace): saved in the result's summary, counted apart.

    ``parallelism``, ``timeout``, ``prices``, the simulation settings and ``agent_cache`` go into :attr:`options` (a
    :class:`~agentgauge.service.RunOptions`, also what the executor receives); a timeout that is not positive
    raises ``ValueError`` here, a parallelism below 1 when the run starts. :func:`agentgauge.launch.evaluate` checks
    a whole request before anything runs.

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
        labels: Mapping[str, str] | Sequence[str] | None = None,
        agent_source: object | None = None,
        record_metadata: bool = True,
        case_status: CaseStatusRule | str | None = None,
        case_aggregator: CaseResultAggregator | None = None,
        cases_not_run: Sequence[CaseNotRun] = (),
    ) -> None:
        from ..service import Callbacks, RunOptions

        if num_runs < 1:
            raise ValueError(f"num_runs must be at least 1, got {num_runs}")
        self.case_status = parse_case_status_rule(case_status)
        """How a case's status follows from its runs (:class:`~agentgauge.model.CaseStatusRule`; default ``mean``)."""
        simulation = simulation_settings(simulation, user_simulator, expected_agent)
        self.options = RunOptions(
            parallelism=parallelism,
            timeout=timeout,
            prices=prices,
            simulation=simulation,
            agent_cache=agent_cache,
            case_aggregator=case_aggregator,
        )
        """The run settings of every case pipeline (:class:`~agentgauge.service.RunOptions`)."""
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
        self.agent = agent_object(agent)
        self.eval_set_manager = eval_set_manager
        self.metric_manager = metric_manager
        self.result_manager = result_manager
        self.registry = registry
        self.callbacks = callbacks or Callbacks()
        self.num_runs = num_runs
        self.case_ids = list(case_ids) if case_ids else None
        self.progress = progress
        self.on_start = on_start
        self.max_results_in_memory = (
            DEFAULT_MAX_RESULTS_IN_MEMORY if max_results_in_memory is None else max_results_in_memory
        )
        self.executor = executor_named(executor)
        self.metric_selection = metric_selection
        self.labels = checked_labels(labels)
        self.agent_source = agent if agent_source is None else agent_source
        self.record_metadata = record_metadata
        self.cases_not_run = list(cases_not_run)
        self._stop: Interruption | None = None  # the running evaluation's; a new one per evaluate()

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
        if self._stop is not None:
            self._stop.request(cancelled=cancelled)

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
        from ._loop import Interruption

        started = time.perf_counter()
        self._stop = Interruption()
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

        parallelism = RUN_PARALLELISM.set(self.options.parallelism)  # judges without their own limit keep pace
        try:
            with _collector_ignores_loaded_data():
                return await self._run(eval_set, cases, metrics, started, stream, prepared, resume, skipped)
        finally:
            RUN_PARALLELISM.reset(parallelism)
            if prepared is not None and not prepared.done():
                prepared.cancel()  # the thread finishes its import on its own

    async def _run(
        self,
        eval_set: EvalSet,
        cases: list[EvalCase],
        metrics: list[EvalMetric],
        started: float,
        stream: CaseStream | None,
        prepared: asyncio.Future[None] | None = None,
        resume: ResumeState | None = None,
        skipped: Sequence[str] = (),
    ) -> EvaluationResult:
        from ..service import CallbackError, ExecutionJob
        from ..storage._ids import default_result_id
        from ._loop import RunLoop, StartHook
        from ._sets import after_sets, plan_runs, selected_ids

        app_name, eval_set_id, callbacks, stop = self.app_name, eval_set.eval_set_id, self.callbacks, self._stop
        assert stop is not None
        # The id is chosen here so the saved file and the returned object agree.
        result_id = resume.eval_set_result_id if resume else default_result_id(app_name, eval_set_id)
        case_ids = [case.eval_id for case in cases]
        runs = await plan_runs(callbacks, app_name, eval_set, case_ids, self.num_runs, metrics, skipped)
        writer = open_writer(self.result_manager, app_name, eval_set_id, result_id)
        chosen = selected_ids(eval_set, runs)
        target = ResultTarget(
            app_name, eval_set, result_id, self.num_runs, chosen, self.result_manager, writer, started,
            self._start_metadata(metrics), self.case_status, self.cases_not_run,
        )  # fmt: skip
        total = sum(len(run.cases) for run in runs)
        collector = _Collector(
            writer,
            keep_full=writer is None or total <= self.max_results_in_memory,
            known_ids=[case.eval_id for case in runs[0].cases] if runs else None,
        )
        progress_log = _open_progress(writer, app_name, eval_set_id, result_id, self.num_runs, metrics, resume)
        # Set-level "after" callbacks receive every result of their run; only then are results kept per run.
        keep_inferences = bool(callbacks.names("after_inference_set"))
        keep_results = bool(callbacks.names("after_evaluate_set"))
        loop = RunLoop(
            app_name,
            eval_set,
            runs,
            collector,
            stream=stream,
            parallelism=self.options.parallelism,
            progress_log=progress_log,
            progress=self.progress,
            done_before=dict(resume.done) if resume is not None else {},
            keep_results=keep_results,
        )
        loop.start()
        job = ExecutionJob(
            app_name,
            eval_set_id,
            self.agent,
            self.registry,
            callbacks,
            prepared=prepared,
            keep_inferences=keep_inferences,
            keep_results=keep_results,
            started=StartHook(self.on_start) if self.on_start is not None else None,
            options=self.options,
        )
        try:
            interrupted = await loop.execute(self.executor, job, stop)
            if not interrupted:
                await after_sets(callbacks, app_name, eval_set_id, runs)
        except BaseException as exc:
            # A crash (disk full, out of memory, a bug) keeps the log for --resume; a callback error would only
            # happen again, so that run leaves nothing behind, as before.
            target.abandon(
                collector, progress_log, cancelled=stop.cancelled, discard_log=isinstance(exc, CallbackError)
            )
            raise
        if interrupted:
            collector.flush()
        outcome = target.finish(collector, interrupted=interrupted, cancelled=stop.cancelled)
        _close_progress(progress_log, saved=True)  # the result file now holds every finished case
        return outcome

    def _start_metadata(self, metrics: Sequence[EvalMetric]) -> RunMetadata | None:
        if not self.record_metadata:
            return None
        from ._metadata import start_metadata

        return start_metadata(self.labels, self.agent_source, metrics, self.registry)

    def evaluate_sync(self, eval_set_id: str) -> EvaluationResult:
        """:meth:`evaluate` for synchronous code (starts an event loop; not usable inside a running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.evaluate(eval_set_id))
        raise RuntimeError("evaluate_sync() cannot run inside a running event loop; use `await evaluate()`")
