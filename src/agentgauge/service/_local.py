"""The local evaluation service: inference and evaluation phases with callbacks and bounded parallelism."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

from .._util.uuids import uuid4
from ..agents import Agent, as_agent
from ..errors import InputError
from ..model import EvalCase, EvalCaseResult, EvalSet, EvalStatus
from ._callbacks import (
    AfterEvaluateCaseArgs,
    AfterEvaluateSetArgs,
    AfterInferenceCaseArgs,
    AfterInferenceSetArgs,
    BeforeEvaluateCaseArgs,
    BeforeEvaluateSetArgs,
    BeforeInferenceCaseArgs,
    BeforeInferenceSetArgs,
    CallbackContext,
    CallbackError,
    Callbacks,
)
from ._evaluate import EvaluatorSource, evaluate_case
from ._inference import DEFAULT_USER_ID, infer_case
from ._options import RunOptions
from ._pool import bounded_map
from ._types import EvalSetRunResult, EvaluateRequest, InferenceRequest, InferenceResult

__all__ = ["EvalSetSource", "LocalService", "select_cases"]


class EvalSetSource(Protocol):
    """Where the service reads eval sets (every eval-set manager satisfies it)."""

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The eval set ``eval_set_id`` of ``app_name``."""
        ...


def select_cases(eval_set: EvalSet, case_ids: Sequence[str] | None) -> list[EvalCase]:
    """The cases to run, in eval-set order; ``None`` or empty means all.

    Raises :class:`InputError` listing the valid ids when an id is not in the set.
    """
    if not case_ids:
        return list(eval_set.eval_cases)
    known = {case.eval_id for case in eval_set.eval_cases}
    unknown = [case_id for case_id in case_ids if case_id not in known]
    if unknown:
        raise InputError(
            f"eval set {eval_set.eval_set_id!r} has no case {', '.join(map(repr, unknown))}; "
            f"valid ids: {', '.join(case.eval_id for case in eval_set.eval_cases) or 'none'}"
        )
    wanted = set(case_ids)
    return [case for case in eval_set.eval_cases if case.eval_id in wanted]


def _new_session_id() -> str:
    return str(uuid4())


class LocalService:
    """Runs an agent over eval cases and scores the results, in-process.

    - :meth:`inference` / :meth:`evaluate` are the two phases over a whole eval set (trpc ``Service``), each
      running cases with at most ``parallelism`` in flight and the set-level callbacks around them.
    - :meth:`infer` / :meth:`score` handle one case with its case-level callbacks; the streaming pipeline of
      :class:`~agentgauge.run.AgentEvaluator` is built from them.

    ``agent`` may be anything :func:`~agentgauge.agents.as_agent` accepts, or ``None`` when only trace-mode
    cases run. ``options`` (:class:`~agentgauge.service.RunOptions`) holds the run settings: ``parallelism``
    (default 4); ``timeout`` bounds each case's inference (seconds); ``prices`` sets the cost of recorded token usage
    (default: the built-in price table); ``simulation`` holds the user simulator, expected agent and tool-mock
    generator of scenario and ``expectedRunnerEnabled`` cases; ``agent_cache`` answers cases the agent already
    answered (same agent source, request and run) without calling it, and stores new answers.
    """

    def __init__(
        self,
        agent: object | None = None,
        *,
        eval_set_manager: EvalSetSource,
        evaluators: EvaluatorSource,
        callbacks: Callbacks | None = None,
        session_id_supplier: Callable[[], str] = _new_session_id,
        options: RunOptions | None = None,
    ) -> None:
        self.options = options if options is not None else RunOptions()
        self.agent: Agent | None = as_agent(agent) if agent is not None else None
        self.eval_set_manager = eval_set_manager
        self.evaluators = evaluators
        self.callbacks = callbacks or Callbacks()
        self.session_id_supplier = session_id_supplier

    async def infer(
        self, request: InferenceRequest, case: EvalCase, context: CallbackContext, *, run_id: int = 1
    ) -> tuple[InferenceResult, CallbackContext]:
        """One case's inference with its ``BeforeInferenceCase`` / ``AfterInferenceCase`` callbacks.

        A callback error fails only this case (its message becomes the case's error message).
        """
        session_id = self.session_id_supplier()
        start = time.time()
        try:
            context = await self.callbacks.run(
                "before_inference_case", context, BeforeInferenceCaseArgs(request, case.eval_id, session_id)
            )
        except CallbackError as exc:
            failed = InferenceResult(request.app_name, request.eval_set_id, case.eval_id, session_id=session_id)
            return failed.fail(str(exc)), context
        result = await self._infer_case(request, case, session_id, run_id)
        try:
            context = await self.callbacks.run(
                "after_inference_case", context, AfterInferenceCaseArgs(request, result, None, start)
            )
        except CallbackError as exc:
            result.fail(str(exc))
        return result, context

    async def _infer_case(
        self, request: InferenceRequest, case: EvalCase, session_id: str, run_id: int
    ) -> InferenceResult:
        options = self.options
        cache = options.agent_cache if self.agent is not None and not case.is_trace else None
        cached = cache.get(case, run_id) if cache is not None else None
        if cached is not None:
            session = case.session_input
            user_id = (session.user_id if session is not None else "") or DEFAULT_USER_ID
            return InferenceResult(
                request.app_name, request.eval_set_id, case.eval_id, cached, session_id=session_id, user_id=user_id
            )
        result = await infer_case(
            self.agent,
            case,
            app_name=request.app_name,
            eval_set_id=request.eval_set_id,
            session_id=session_id,
            timeout=options.timeout,
            prices=options.prices,
            simulation=options.simulation,
        )
        if cache is not None and result.status is EvalStatus.PASSED:
            cache.put(case, run_id, result.inferences)
        return result

    async def score(
        self,
        request: EvaluateRequest,
        case: EvalCase,
        inference: InferenceResult,
        context: CallbackContext,
        *,
        run_id: int = 1,
    ) -> tuple[EvalCaseResult, CallbackContext]:
        """Score one case with its ``BeforeEvaluateCase`` / ``AfterEvaluateCase`` callbacks.

        Problems of the case become an ``error`` result (see :func:`evaluate_case`); a callback error raises
        :class:`CallbackError`.
        """
        context = await self.callbacks.run(
            "before_evaluate_case", context, BeforeEvaluateCaseArgs(request, case.eval_id)
        )
        start = time.time()
        config = request.evaluate_config
        result = await evaluate_case(
            case,
            inference,
            config.eval_metrics,
            self.evaluators,
            run_id=run_id,
            skipped=config.skipped_metrics,
            aggregator=self.options.case_aggregator,
        )
        context = await self.callbacks.run(
            "after_evaluate_case", context, AfterEvaluateCaseArgs(request, inference, result, None, start)
        )
        return result, context

    async def inference(
        self, request: InferenceRequest, *, context: CallbackContext | None = None
    ) -> list[InferenceResult]:
        """Run every selected case of the eval set through the agent (results in eval-set order)."""
        context = await self.callbacks.run("before_inference_set", context or {}, BeforeInferenceSetArgs(request))
        start = time.time()
        eval_set = self.eval_set_manager.get(request.app_name, request.eval_set_id)
        cases = select_cases(eval_set, request.eval_case_ids)
        ctx = context

        async def run_case(case: EvalCase) -> InferenceResult:
            return (await self.infer(request, case, ctx))[0]

        results = await bounded_map(run_case, cases, self.options.parallelism)
        await self.callbacks.run("after_inference_set", context, AfterInferenceSetArgs(request, results, None, start))
        return results

    async def evaluate(self, request: EvaluateRequest, *, context: CallbackContext | None = None) -> EvalSetRunResult:
        """Score every inference result of the request (results in the order of ``inference_results``)."""
        context = await self.callbacks.run("before_evaluate_set", context or {}, BeforeEvaluateSetArgs(request))
        start = time.time()
        eval_set = self.eval_set_manager.get(request.app_name, request.eval_set_id)
        ctx = context

        async def run_case(inference: InferenceResult) -> EvalCaseResult:
            case = eval_set.get_case(inference.eval_case_id)
            if case is None:
                return EvalCaseResult(
                    eval_set_id=request.eval_set_id,
                    eval_id=inference.eval_case_id,
                    final_eval_status=EvalStatus.ERROR,
                    error_message=f"eval case {inference.eval_case_id!r} is not in eval set {request.eval_set_id!r}",
                    session_id=inference.session_id,
                    user_id=inference.user_id,
                )
            return (await self.score(request, case, inference, ctx))[0]

        results = await bounded_map(run_case, request.inference_results, self.options.parallelism)
        run_result = EvalSetRunResult(request.app_name, request.eval_set_id, results)
        await self.callbacks.run("after_evaluate_set", context, AfterEvaluateSetArgs(request, run_result, None, start))
        return run_result
