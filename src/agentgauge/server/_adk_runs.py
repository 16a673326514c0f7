"""ADK's run and result routes: run cases and wait for their results, read stored results, list the metrics."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.responses import JSONResponse

from ..errors import InputError, NotFoundError
from ..model import EvalMetric
from ._adk_shapes import adk_result, metrics_info, parse_adk_metrics, run_eval_result
from ._deps import StateDep
from ._requests import RunEvalBody
from ._safety import public_result
from ._state import ServerState

__all__ = ["router"]

router = APIRouter()
"""``.../run``, ``/eval-results`` and ``/metrics-info`` (mounted under each ADK prefix's ``/apps/{app_name}``)."""


async def _run(state: ServerState, app_name: str, eval_set_id: str, body: RunEvalBody) -> list[dict[str, Any]]:
    """Run the cases on the server's run manager and wait for the end: ADK's ``RunEvalResult`` of each case run."""
    from ..launch import EvalRequest

    state.check_app(app_name)
    try:
        state.eval_sets.snapshot(app_name, eval_set_id)
    except NotFoundError:
        raise HTTPException(400, f"Eval set `{eval_set_id}` not found.") from None
    case_ids = body.eval_case_ids or body.eval_ids or []
    raw_metrics = body.eval_metrics
    metrics: tuple[EvalMetric, ...] | None = None
    if raw_metrics is not None:
        metrics = tuple(parse_adk_metrics(raw_metrics, source="evalMetrics"))
    asked = EvalRequest(config=metrics, parallelism=state.config.default_parallelism)
    run = await state.runs.start(app_name, eval_set_id, list(case_ids), asked)
    result = await state.runs.wait(run)
    if result is None and run.status == "cancelled":
        raise HTTPException(409, f"run {run.id} was cancelled before any case finished")
    if result is None:
        raise HTTPException(500, f"evaluation failed: {run.error}")
    result = public_result(result, state.config.debug)
    return [run_eval_result(result, c, i) for i, c in enumerate(result.eval_case_results)]


@router.post("/eval-sets/{eval_set_id}/run")
async def run_eval(
    app_name: str, eval_set_id: str, body: Annotated[RunEvalBody, Body()], state: StateDep
) -> JSONResponse:
    """Run cases (``evalCaseIds``; empty = all) with ``evalMetrics``; waits for the end, as ADK does."""
    return JSONResponse({"runEvalResults": await _run(state, app_name, eval_set_id, body)})


@router.post("/eval_sets/{eval_set_id}/run_eval")
async def run_eval_legacy(
    app_name: str, eval_set_id: str, body: Annotated[RunEvalBody, Body()], state: StateDep
) -> JSONResponse:
    """As ``run``, answering a bare list (also accepts ``evalIds``)."""
    return JSONResponse(await _run(state, app_name, eval_set_id, body))


@router.get("/eval-results/{eval_result_id}")
@router.get("/eval_results/{eval_result_id}")
def get_eval_result(app_name: str, eval_result_id: str, state: StateDep) -> JSONResponse:
    """A stored result as ADK's ``EvalSetResult`` (integer statuses)."""
    state.check_app(app_name)
    try:
        result = state.results.get(app_name, eval_result_id)
    except (NotFoundError, InputError):
        raise HTTPException(404, f"Eval set result `{eval_result_id}` not found.") from None
    return JSONResponse(adk_result(public_result(result, state.config.debug)))


@router.get("/eval-results")
def list_eval_results(app_name: str, state: StateDep) -> JSONResponse:
    """``{"evalResultIds": [...]}``."""
    state.check_app(app_name)
    return JSONResponse({"evalResultIds": state.results.list(app_name)})


@router.get("/eval_results")
def list_eval_results_legacy(app_name: str, state: StateDep) -> JSONResponse:
    """The result ids as a bare list."""
    state.check_app(app_name)
    return JSONResponse(state.results.list(app_name))


@router.get("/metrics-info")
def get_metrics_info(app_name: str, state: StateDep) -> JSONResponse:
    """Every registered metric with its value interval (``{"metricsInfo": [...]}``)."""
    return JSONResponse({"metricsInfo": metrics_info(state.registry.infos())})
