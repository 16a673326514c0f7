"""AgentEvaluator: evaluate an agent on an eval set, several runs, cases in parallel, one saved result."""

from __future__ import annotations

import asyncio
import gc
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import InputError, NotFoundError
from .model import EvalCase, EvalCaseResult, EvalMetric, EvalMetricResult, EvalSet, EvalSetResult, EvalStatus
from .stats import pass_at_k, pass_hat_k

if TYPE_CHECKING:  # pragma: no cover
    from .judges._settings import JudgeSettings
    from .service import Callbacks, EvalSetSource, EvaluateRequest, EvaluatorSource, InferenceRequest, InferenceResult

__all__ = ["AgentEvaluator", "EvaluationCaseResult", "EvaluationResult", "MetricSource", "ProgressFn", "ResultSink"]


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


ProgressFn = Callable[[int, int], None]
"""``progress(done, total)``: called with ``(0, total)`` first, then after each case of each run is scored."""


@dataclass
class EvaluationCaseResult:
    """One case across runs: overall status, per-run results and metric results averaged over runs."""

    eval_id: str
    overall_status: EvalStatus
    eval_case_results: list[EvalCaseResult]
    metric_results: list[EvalMetricResult]

    @property
    def num_runs(self) -> int:
        """How many runs of this case there were."""
        return len(self.eval_case_results)

    @property
    def num_passed(self) -> int:
        """How many of those runs passed."""
        return sum(r.final_eval_status is EvalStatus.PASSED for r in self.eval_case_results)

    def pass_at_k(self, k: int) -> float:
        """pass@k of this case over its runs (see :func:`agentgauge.stats.pass_at_k`)."""
        return pass_at_k(self.num_runs, self.num_passed, k)

    def pass_hat_k(self, k: int) -> float:
        """pass^k of this case over its runs (see :func:`agentgauge.stats.pass_hat_k`)."""
        return pass_hat_k(self.num_runs, self.num_passed, k)


@dataclass
class EvaluationResult:
    """Everything :meth:`AgentEvaluator.evaluate` produced.

    ``execution_time`` is in seconds; ``eval_set_result`` is the saved :class:`EvalSetResult` (with the
    multi-run ``summary``) and ``result_path`` where it was written (``None`` for non-file result managers).
    """

    app_name: str
    eval_set_id: str
    overall_status: EvalStatus
    execution_time: float
    eval_cases: list[EvaluationCaseResult]
    eval_set_result: EvalSetResult
    result_path: Path | None = None

    def _runs(self) -> tuple[int, int]:
        summary = self.eval_set_result.summary
        if summary is None:
            return 0, 0
        return summary.num_runs, summary.run_status_counts.passed

    def pass_at_k(self, k: int) -> float:
        """pass@k over runs: n = number of runs, c = runs whose overall status passed."""
        return pass_at_k(*self._runs(), k)

    def pass_hat_k(self, k: int) -> float:
        """pass^k over runs: n = number of runs, c = runs whose overall status passed."""
        return pass_hat_k(*self._runs(), k)


@contextmanager
def _collector_ignores_loaded_data() -> Iterator[None]:
    """Keep the objects alive at the start of a run (eval set, metrics, agent, modules) out of garbage collection
    until it ends.

    A run allocates many short-lived objects; without this every full collection re-walks all the loaded data,
    which costs a large share of the run's CPU at high parallelism. Objects created during the run are collected as
    usual, and the frozen ones are handed back to the collector afterwards.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass
class _Run:
    run_id: int
    inference_request: InferenceRequest
    evaluate_request: EvaluateRequest
    cases: list[EvalCase] = field(default_factory=list)
    inference_results: list[InferenceResult | None] = field(default_factory=list)
    context: Any = field(default_factory=dict)
    start_time: float = field(default_factory=time.time)


class AgentEvaluator:
    """Evaluates an agent on eval sets held by an eval-set manager, scores with the metrics of the metric manager
    and saves one :class:`EvalSetResult` per evaluation with the result manager.

    - Managers default to the local file managers rooted at ``"."``; ``registry`` defaults to
      ``Registry(judge_settings=judge_settings)``.
    - ``num_runs`` repeats every case; ``parallelism`` bounds how many (case, run) pipelines are in flight at
      once, across cases and runs alike. Each pipeline scores its case as soon as the case's inference is done.
    - ``timeout`` bounds each case's inference (seconds); ``case_ids`` restricts the cases.
    - ``progress(done, total)`` is called as cases finish.

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
    ) -> None:
        from .service import Callbacks

        if num_runs < 1:
            raise ValueError(f"num_runs must be at least 1, got {num_runs}")
        if parallelism < 1:
            raise ValueError(f"parallelism must be at least 1, got {parallelism}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        if eval_set_manager is None or metric_manager is None or result_manager is None:
            from .storage import LocalEvalResultManager, LocalEvalSetManager, LocalMetricManager

            eval_set_manager = eval_set_manager or LocalEvalSetManager(base_dir=".")
            metric_manager = metric_manager or LocalMetricManager(base_dir=".")
            result_manager = result_manager or LocalEvalResultManager(base_dir=".")
        if registry is None:
            from .evaluators import Registry

            registry = Registry(judge_settings=judge_settings)
        self.app_name = app_name
        self.agent = agent
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
        if self.agent is None:
            needing = [case.eval_id for case in cases if not case.is_trace]
            if needing:
                raise InputError(
                    f'an agent is required: case(s) {", ".join(needing)} are not in trace mode (evalMode "trace")'
                )

    async def evaluate(self, eval_set_id: str) -> EvaluationResult:
        """Evaluate the eval set ``eval_set_id`` and save the result.

        Raises :class:`InputError` before running anything when a selected case id does not exist, a metric is
        unknown or invalid, or an agent is needed but missing; callback errors raise
        :class:`~agentgauge.service.CallbackError`. Everything else that goes wrong in a case fails that case.
        """
        from .service import select_cases

        started = time.perf_counter()
        eval_set = self.eval_set_manager.get(self.app_name, eval_set_id)
        cases = select_cases(eval_set, self.case_ids)
        metrics = self._metrics(eval_set_id)
        self._check(cases, metrics)
        with _collector_ignores_loaded_data():
            return await self._run(eval_set, cases, metrics, started)

    async def _run(
        self, eval_set: EvalSet, cases: list[EvalCase], metrics: list[EvalMetric], started: float
    ) -> EvaluationResult:
        from .service import (
            AfterEvaluateSetArgs,
            AfterInferenceSetArgs,
            BeforeEvaluateSetArgs,
            BeforeInferenceSetArgs,
            EvalSetRunResult,
            EvaluateConfig,
            EvaluateRequest,
            InferenceRequest,
            LocalService,
            bounded_map,
            select_cases,
            summarize_runs,
        )

        eval_set_id = eval_set.eval_set_id
        service = LocalService(
            self.agent,
            eval_set_manager=self.eval_set_manager,
            evaluators=self.registry,
            callbacks=self.callbacks,
            parallelism=self.parallelism,
            timeout=self.timeout,
        )
        runs: list[_Run] = []
        for run_id in range(1, self.num_runs + 1):
            run = _Run(
                run_id,
                InferenceRequest(self.app_name, eval_set_id, [case.eval_id for case in cases]),
                EvaluateRequest(self.app_name, eval_set_id, [], EvaluateConfig(list(metrics))),
            )
            before = BeforeInferenceSetArgs(run.inference_request)
            run.context = await self.callbacks.run("before_inference_set", {}, before)
            # A BeforeInferenceSet callback may change the request, e.g. the case ids of this run.
            run.cases = select_cases(eval_set, run.inference_request.eval_case_ids)
            run.inference_results = [None] * len(run.cases)
            run.context = await self.callbacks.run(
                "before_evaluate_set", run.context, BeforeEvaluateSetArgs(run.evaluate_request)
            )
            runs.append(run)

        items = [(run, index) for run in runs for index in range(len(run.cases))]
        done = 0
        if self.progress is not None:
            self.progress(0, len(items))

        async def pipeline(item: tuple[_Run, int]) -> EvalCaseResult:
            nonlocal done
            run, index = item
            case = run.cases[index]
            inference, context = await service.infer(run.inference_request, case, run.context)
            run.inference_results[index] = inference
            run.evaluate_request.inference_results.append(inference)
            result, _ = await service.score(run.evaluate_request, case, inference, context, run_id=run.run_id)
            done += 1
            if self.progress is not None:
                self.progress(done, len(items))
            return result

        results = await bounded_map(pipeline, items, self.parallelism)

        offset = 0
        for run in runs:
            inferences = [r for r in run.inference_results if r is not None]
            await self.callbacks.run(
                "after_inference_set",
                run.context,
                AfterInferenceSetArgs(run.inference_request, inferences, None, run.start_time),
            )
            run_results = results[offset : offset + len(run.cases)]
            offset += len(run.cases)
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

        summary, aggregates = summarize_runs(
            results, case_ids=[c.eval_id for c in eval_set.eval_cases], num_runs=self.num_runs
        )
        # The id is chosen here so the saved file and the returned object agree.
        result_id = f"{self.app_name}_{eval_set_id}_{uuid.uuid4()}"
        eval_set_result = EvalSetResult(
            eval_set_result_id=result_id,
            eval_set_result_name=result_id,
            eval_set_id=eval_set_id,
            eval_case_results=results,
            summary=summary,
            creation_timestamp=time.time(),
        )
        result_id = self.result_manager.save(self.app_name, eval_set_result)
        path_for = getattr(self.result_manager, "path_for", None)
        return EvaluationResult(
            app_name=self.app_name,
            eval_set_id=eval_set_id,
            overall_status=summary.overall_status,
            execution_time=time.perf_counter() - started,
            eval_cases=[
                EvaluationCaseResult(a.eval_id, a.overall_status, a.runs, a.metric_results) for a in aggregates
            ],
            eval_set_result=eval_set_result,
            result_path=Path(path_for(self.app_name, result_id)) if path_for is not None else None,
        )

    def evaluate_sync(self, eval_set_id: str) -> EvaluationResult:
        """:meth:`evaluate` for synchronous code (starts an event loop; not usable inside a running loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.evaluate(eval_set_id))
        raise RuntimeError("evaluate_sync() cannot run inside a running event loop; use `await evaluate()`")
