"""The set level of an evaluation: one :class:`~agentgauge.service.RunPlan` per run, prepared by the ``Before*Set``
callbacks before any case starts, and the ``After*Set`` callbacks once every case of every run is scored."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..model import EvalMetric, EvalSet
from ..service import (
    AfterEvaluateSetArgs,
    AfterInferenceSetArgs,
    BeforeEvaluateSetArgs,
    BeforeInferenceSetArgs,
    Callbacks,
    EvalSetRunResult,
    EvaluateConfig,
    EvaluateRequest,
    InferenceRequest,
    RunPlan,
    select_cases,
)

__all__ = ["after_sets", "plan_runs", "selected_ids"]


async def plan_runs(
    callbacks: Callbacks,
    app_name: str,
    eval_set: EvalSet,
    case_ids: Sequence[str],
    num_runs: int,
    metrics: Sequence[EvalMetric],
    skipped: Sequence[str],
) -> list[RunPlan]:
    """The runs ``1..num_runs`` of ``case_ids``, each as its ``BeforeInferenceSet`` then ``BeforeEvaluateSet``
    callbacks left it (a callback may change the request, e.g. the case ids of its run)."""
    eval_set_id = eval_set.eval_set_id
    runs: list[RunPlan] = []
    for run_id in range(1, num_runs + 1):
        run = RunPlan(
            run_id,
            InferenceRequest(app_name, eval_set_id, list(case_ids)),
            EvaluateRequest(app_name, eval_set_id, [], EvaluateConfig(list(metrics), list(skipped))),
            start_time=time.time(),
        )
        run.context = await callbacks.run("before_inference_set", {}, BeforeInferenceSetArgs(run.inference_request))
        run.cases = select_cases(eval_set, run.inference_request.eval_case_ids)
        run.context = await callbacks.run(
            "before_evaluate_set", run.context, BeforeEvaluateSetArgs(run.evaluate_request)
        )
        runs.append(run)
    return runs


def selected_ids(eval_set: EvalSet, runs: Sequence[RunPlan]) -> list[str]:
    """The ids of the cases the runs were limited to, in eval-set order; empty when every case runs."""
    total = len(eval_set.eval_cases)
    if all(len(run.cases) == total for run in runs):
        return []
    chosen = {case.eval_id for run in runs for case in run.cases}
    return [case.eval_id for case in eval_set.eval_cases if case.eval_id in chosen]


async def after_sets(callbacks: Callbacks, app_name: str, eval_set_id: str, runs: Sequence[RunPlan]) -> None:
    """Each run's ``AfterInferenceSet`` then ``AfterEvaluateSet`` callbacks, run by run."""
    for run in runs:
        # Both lists in eval-set order, whatever order the cases finished (or started) in.
        order = {case.eval_id: i for i, case in enumerate(run.cases)}
        inferences = sorted(run.inference_results, key=lambda r: order.get(r.eval_case_id, len(order)))
        await callbacks.run(
            "after_inference_set",
            run.context,
            AfterInferenceSetArgs(run.inference_request, inferences, None, run.start_time),
        )
        run_results = sorted(run.case_results, key=lambda r: order.get(r.eval_id, len(order)))
        await callbacks.run(
            "after_evaluate_set",
            run.context,
            AfterEvaluateSetArgs(
                run.evaluate_request,
                EvalSetRunResult(app_name, eval_set_id, run_results),
                None,
                run.start_time,
            ),
        )
