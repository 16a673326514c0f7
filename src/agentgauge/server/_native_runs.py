"""``/api`` routes of background runs: start one, follow its progress as server-sent events, cancel it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse, StreamingResponse

from ._deps import StateDep
from ._requests import StartRunBody

__all__ = ["router"]

router = APIRouter()
"""``POST /apps/{app}/eval-sets/{set_id}/runs`` and ``/runs/{run_id}`` (mounted under ``/api``)."""


@router.post("/apps/{app}/eval-sets/{set_id}/runs", status_code=202)
async def start_run(
    app: str, set_id: str, state: StateDep, body: Annotated[StartRunBody | None, Body()] = None
) -> JSONResponse:
    """Start a run in the background: body ``{caseIds?, metrics?, numRuns?, parallelism?, caseStatus?}`` (no
    metrics: the eval set's metrics file, found as ``agentgauge eval`` finds it; ``caseStatus``: ``mean``, ``all``,
    ``majority`` or ``any``). Answers 202 with the run id; follow it at ``/api/runs/{runId}/events``; bad input
    answers 400 naming the field (``numRuns`` 1-100, ``parallelism`` 1-64)."""
    from ..formats import parse_metrics
    from ..launch import EvalRequest, MetricOptions

    state.check_app(app)
    body = body or StartRunBody()
    raw = body.metrics
    metrics = None if raw is None else tuple(parse_metrics(json.dumps(raw), source="metrics"))
    parallelism = state.config.default_parallelism if body.parallelism is None else body.parallelism
    rule = MetricOptions(case_status=body.case_status.value if body.case_status is not None else None)
    asked = EvalRequest(config=metrics, metrics=rule, num_runs=body.num_runs, parallelism=parallelism)  # checked later
    run = await state.runs.start(app, set_id, body.case_ids or [], asked)
    return JSONResponse(run.snapshot(), status_code=202)


@router.get("/runs/{run_id}")
def get_run(run_id: str, state: StateDep) -> JSONResponse:
    """A run's progress: status, done/total, per-case status, result id once finished."""
    return JSONResponse(state.runs.get(run_id).snapshot())


@router.delete("/runs/{run_id}")
async def cancel_run(run_id: str, state: StateDep) -> JSONResponse:
    """Cancel a running run: cases in flight are stopped, finished ones are saved in a result marked
    ``cancelled`` (``resultId``), and the run ends with status ``cancelled`` (event ``run_cancelled``). Answers
    the run's state once it has ended (up to 10 s); 409 when it had already finished or failed."""
    from ._runs import RunAlreadyEnded

    try:
        run = await state.runs.cancel(run_id)
    except RunAlreadyEnded as exc:
        return JSONResponse({"detail": str(exc), "error": str(exc)}, status_code=409)
    return JSONResponse(run.snapshot())


@router.get("/runs/{run_id}/events")
async def run_events(run_id: str, state: StateDep, since: Annotated[int, Query(ge=0)] = 0) -> StreamingResponse:
    """The run's events as server-sent events (``run_started``, ``case_started``, ``case_finished``,
    ``run_finished`` / ``run_failed`` / ``run_cancelled``); earlier events are replayed first, ``since`` skips
    some."""
    run = state.runs.get(run_id)

    async def stream() -> AsyncIterator[str]:
        async for event in run.follow(since):
            yield f"event: {event['event']}\nid: {event['seq']}\ndata: {json.dumps(event)}\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})
