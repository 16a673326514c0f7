"""agentgauge's own REST API under ``/api``: what ADK's routes lack (metrics files, background runs with live
progress, result details and comparison, validation)."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, File, Query, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse

from ..errors import InputError, NotFoundError
from ..formats import KeyReport
from ..model import EvalSet
from ._adk_shapes import parse_adk_case
from ._editor import case_keys, key_report_json, refuse_unknown_keys
from ._headers import new_nonce, nonce_inline, page_headers, report_policy
from ._requests import NativeCreateSetBody, StartRunBody
from ._safety import public_result
from ._state import ServerState

__all__ = ["native_router"]


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json")


def _listed(eval_set: EvalSet) -> dict[str, Any]:
    """An eval set as the list of sets shows it."""
    set_id = eval_set.eval_set_id
    return {"evalSetId": set_id, "name": eval_set.name or set_id, "caseIds": [c.eval_id for c in eval_set.eval_cases]}


def _parse_checked(data: bytes, source: str) -> tuple[EvalSet, KeyReport]:
    """An uploaded eval set and its unknown keys."""
    from ..formats import check_keys, parse_eval_set
    from ..formats._jsonio import parse_json

    report = check_keys(parse_json(data, source))
    return parse_eval_set(data, source=source), report


def native_router(state: ServerState) -> APIRouter:
    """The ``/api`` routes."""
    router = APIRouter(prefix="/api", tags=["agentgauge"])

    @router.get("/apps")
    def apps() -> JSONResponse:
        """Every app: name, whether an agent is served for it, its eval set ids."""
        return JSONResponse(
            [
                {"name": name, "hasAgent": state.has_agent(name), "evalSets": state.eval_sets.list(name)}
                for name in state.app_names()
            ]
        )

    @router.get("/metrics")
    def metrics() -> JSONResponse:
        """The registered metrics: name, description, value range, whether a judge model is needed."""
        return JSONResponse(
            [
                {
                    "name": i.name,
                    "description": i.description,
                    "minValue": i.min_value,
                    "maxValue": None if math.isinf(i.max_value) else i.max_value,  # unbounded: counts, seconds
                    "needsExpected": i.needs_expected,
                    "needsJudge": i.needs_judge,
                }
                for i in state.registry.infos()
            ]
        )

    @router.get("/apps/{app}/eval-sets")
    def list_sets(app: str) -> JSONResponse:
        """The app's eval sets with their case counts."""
        state.check_app(app)
        out = []
        for set_id in state.eval_sets.list(app):
            try:
                cached = state.eval_sets.snapshot(app, set_id)
            except InputError as exc:  # a broken file is listed with its error, not hidden
                out.append({"evalSetId": set_id, "error": str(exc), "caseIds": []})
                continue
            except NotFoundError:
                continue  # removed meanwhile
            out.append(cached.view("listed", _listed))
        return JSONResponse(out)

    @router.post("/apps/{app}/eval-sets", status_code=201)
    def create_set(app: str, body: Annotated[NativeCreateSetBody, Body()]) -> JSONResponse:
        """Create an empty eval set: body ``{"evalSetId": ...}``."""
        state.check_app(app)
        set_id = body.eval_set_id
        if not set_id:
            raise InputError("evalSetId is required")
        return JSONResponse(_dump(state.eval_sets.create(app, set_id)), status_code=201)

    @router.get("/apps/{app}/eval-sets/{set_id}")
    def get_set(app: str, set_id: str) -> Response:
        """The eval set (native JSON)."""
        state.check_app(app)
        body = state.eval_sets.snapshot(app, set_id).json_view("native", _dump)  # made once per file version
        return Response(body, media_type="application/json")

    @router.delete("/apps/{app}/eval-sets/{set_id}", status_code=204)
    def delete_set(app: str, set_id: str) -> None:
        """Delete an eval set."""
        state.check_app(app)
        state.eval_sets.delete(app, set_id)

    @router.get("/apps/{app}/eval-sets/{set_id}/cases/{case_id}")
    def get_case(app: str, set_id: str, case_id: str) -> JSONResponse:
        """One case (native JSON)."""
        state.check_app(app)
        case = state.eval_sets.snapshot(app, set_id).eval_set.get_case(case_id)
        if case is None:
            raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")
        return JSONResponse(_dump(case))

    @router.put("/apps/{app}/eval-sets/{set_id}/cases/{case_id}")
    def put_case(app: str, set_id: str, case_id: str, body: Annotated[dict[str, Any], Body()]) -> JSONResponse:
        """Replace a case with the JSON object sent (native or ADK); an invalid case answers 400 with the JSON path."""
        state.check_app(app)
        if body.get("evalId", case_id) != case_id:
            raise InputError(f"evalId {body.get('evalId')!r} does not match the case in the URL {case_id!r}")
        refuse_unknown_keys(state, app, set_id, body)  # 422 in an ADK file; a native one keeps them
        case = parse_adk_case({**body, "evalId": case_id}, set_id, source="case")
        state.eval_sets.update_case(app, set_id, case)
        return JSONResponse(_dump(state.eval_sets.get_case(app, set_id, case_id)))

    @router.post("/apps/{app}/eval-sets/{set_id}/cases/{case_id}/check")
    def check_case(app: str, set_id: str, case_id: str, body: Annotated[dict[str, Any], Body()]) -> JSONResponse:
        """The unknown keys of a case as the editor holds it, nothing saved: ``{"dialect", "blocking",
        "unknownKeys": [{"path", "key", "didYouMean"}]}``; ``blocking`` when the set is an ADK file (saving is
        refused with 422)."""
        state.check_app(app)
        return JSONResponse(key_report_json(case_keys(state, app, set_id, body)))

    @router.delete("/apps/{app}/eval-sets/{set_id}/cases/{case_id}", status_code=204)
    def delete_case(app: str, set_id: str, case_id: str) -> None:
        """Delete a case."""
        state.check_app(app)
        state.eval_sets.delete_case(app, set_id, case_id)

    @router.get("/apps/{app}/eval-sets/{set_id}/metrics")
    def get_metrics(app: str, set_id: str) -> JSONResponse:
        """The eval set's metrics file (``[]`` when there is none)."""
        state.check_app(app)
        try:
            found = state.metrics.get_all(app, set_id)
        except NotFoundError:
            found = []
        return JSONResponse([_dump(m) for m in found])

    @router.put("/apps/{app}/eval-sets/{set_id}/metrics")
    def put_metrics(app: str, set_id: str, body: Annotated[list[Any] | dict[str, Any], Body()]) -> JSONResponse:
        """Replace the eval set's metrics file; names and criteria are checked first."""
        from ..formats import parse_metrics

        state.check_app(app)
        metrics = parse_metrics(json.dumps(body), source="metrics")
        state.registry.validate_metrics(metrics)
        state.metrics.put_all(app, set_id, metrics)
        return JSONResponse([_dump(m) for m in metrics])

    @router.post("/apps/{app}/eval-sets/{set_id}/runs", status_code=202)
    async def start_run(app: str, set_id: str, body: Annotated[StartRunBody | None, Body()] = None) -> JSONResponse:
        """Start a run in the background: body ``{caseIds?, metrics?, numRuns?, parallelism?}`` (no metrics: the
        eval set's metrics file). Answers 202 with the run id; follow it at ``/api/runs/{runId}/events``."""
        from ..formats import parse_metrics
        from ._runs import RunRequest

        state.check_app(app)
        body = body or StartRunBody()
        raw = body.metrics
        metrics = None if raw is None else parse_metrics(json.dumps(raw), source="metrics")
        parallelism = state.config.default_parallelism if body.parallelism is None else body.parallelism
        case_ids = body.case_ids or []
        run = await state.runs.start(RunRequest(app, set_id, case_ids, metrics, body.num_runs, parallelism))
        return JSONResponse(run.snapshot(), status_code=202)

    @router.get("/runs/{run_id}")
    def get_run(run_id: str) -> JSONResponse:
        """A run's progress: status, done/total, per-case status, result id once finished."""
        return JSONResponse(state.runs.get(run_id).snapshot())

    @router.delete("/runs/{run_id}")
    async def cancel_run(run_id: str) -> JSONResponse:
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
    async def run_events(run_id: str, since: Annotated[int, Query(ge=0)] = 0) -> StreamingResponse:
        """The run's events as server-sent events (``run_started``, ``case_started``, ``case_finished``,
        ``run_finished`` / ``run_failed`` / ``run_cancelled``); earlier events are replayed first, ``since`` skips
        some."""
        run = state.runs.get(run_id)

        async def stream() -> AsyncIterator[str]:
            async for event in run.follow(since):
                yield f"event: {event['event']}\nid: {event['seq']}\ndata: {json.dumps(event)}\n\n"

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})

    @router.get("/apps/{app}/results")
    def list_results(app: str, eval_set_id: Annotated[str | None, Query(alias="evalSetId")] = None) -> JSONResponse:
        """The app's results, newest first: id, eval set, time, status, counts and where it was found
        (``source``): the server's runs, ``agentgauge eval``'s results, the store, ADK's eval history."""
        state.check_app(app)
        rows = [r for r in state.results.rows(app) if eval_set_id is None or r["evalSetId"] == eval_set_id]
        return JSONResponse(rows)

    @router.get("/apps/{app}/results/{result_id}")
    def get_result(app: str, result_id: str) -> JSONResponse:
        """A stored result (native JSON)."""
        state.check_app(app)
        return JSONResponse(_dump(public_result(state.results.get(app, result_id), state.config.debug)))

    @router.get("/apps/{app}/results/{result_id}/report.html", response_class=HTMLResponse)
    def result_report(app: str, result_id: str) -> HTMLResponse:
        """The result as the HTML report (``agentgauge eval --report html``)."""
        from ..reporting import render

        state.check_app(app)
        page = render(public_result(state.results.get(app, result_id), state.config.debug), "html")
        nonce = new_nonce()
        return HTMLResponse(nonce_inline(page, nonce), headers=page_headers(report_policy(nonce), framed_by_self=True))

    @router.get("/apps/{app}/compare")
    def compare(
        app: str,
        base: Annotated[str, Query()],
        new: Annotated[str | None, Query()] = None,
        head: Annotated[str | None, Query()] = None,
    ) -> JSONResponse:
        """What changed from result ``base`` to result ``new`` (``head`` is accepted as a synonym): the
        :class:`agentgauge.compare.Comparison` of ``agentgauge compare --json``."""
        from ..compare import compare_results

        state.check_app(app)
        later = new if new is not None else head
        if later is None:
            raise InputError("compare: give the later result as the query parameter 'new'")
        comparison = compare_results(
            state.results.get(app, base), state.results.get(app, later), base_source=base, new_source=later
        )
        return JSONResponse(_dump(comparison))

    @router.post("/validate/eval-set")
    async def validate_eval_set(eval_set_file: Annotated[UploadFile, File()]) -> JSONResponse:
        """Check an uploaded eval set (multipart field ``eval_set_file``, any supported dialect), as agentevals:
        ``{"data": {"valid", "evalSetId", "numCases", "errors"}, "error": null}``. Also in ``data``: ``dialect``,
        ``unknownKeys`` (``[{"path", "key", "didYouMean"}]``) and ``warnings``; unknown keys are errors in an ADK
        file (``valid: false``) and warnings in a native one, as ``agentgauge validate`` reports them."""
        data = await eval_set_file.read()
        source = eval_set_file.filename or "eval_set_file"
        try:
            parsed, report = await asyncio.to_thread(_parse_checked, data, source)
        except InputError as exc:
            body: dict[str, Any] = {"valid": False, "evalSetId": None, "numCases": 0, "errors": [str(exc)]}
            return JSONResponse({"data": body, "error": None})
        lines = [f"{source}: {key.path}: {key.message()}" for key in report.unknown]
        body = {
            "valid": not report.blocking,
            "evalSetId": parsed.eval_set_id,
            "numCases": len(parsed.eval_cases),
            "errors": lines if report.blocking else [],
            "warnings": [] if report.blocking else lines,
            **key_report_json(report),
        }
        return JSONResponse({"data": body, "error": None})

    @router.get("/health")
    async def health() -> dict[str, str]:
        """``{"status": "ok"}``."""
        return {"status": "ok"}

    return router
