"""``/api`` routes of eval sets, their cases and their metrics files (native JSON; a case may also be sent in ADK's
shape)."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse, Response

from ..errors import InputError, NotFoundError
from ..model import EvalSet
from ._adk_shapes import parse_adk_case
from ._deps import StateDep, as_json
from ._editor import case_report, problems_json, refuse_errors, server_report, warnings_header
from ._requests import NativeCreateSetBody

__all__ = ["router"]

router = APIRouter()
"""Eval sets, cases and metrics files under ``/apps/{app}/eval-sets`` (mounted under ``/api``)."""


def _listed(eval_set: EvalSet) -> dict[str, Any]:
    """An eval set as the list of sets shows it."""
    set_id = eval_set.eval_set_id
    return {"evalSetId": set_id, "name": eval_set.name or set_id, "caseIds": [c.eval_id for c in eval_set.eval_cases]}


@router.get("/apps/{app}/eval-sets")
def list_sets(app: str, state: StateDep) -> JSONResponse:
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
def create_set(app: str, body: Annotated[NativeCreateSetBody, Body()], state: StateDep) -> JSONResponse:
    """Create an empty eval set: body ``{"evalSetId": ...}``."""
    state.check_app(app)
    set_id = body.eval_set_id
    if not set_id:
        raise InputError("evalSetId is required")
    return JSONResponse(as_json(state.eval_sets.create(app, set_id)), status_code=201)


@router.get("/apps/{app}/eval-sets/{set_id}")
def get_set(app: str, set_id: str, state: StateDep) -> Response:
    """The eval set (native JSON)."""
    state.check_app(app)
    body = state.eval_sets.snapshot(app, set_id).json_view("native", as_json)  # made once per file version
    return Response(body, media_type="application/json")


@router.delete("/apps/{app}/eval-sets/{set_id}", status_code=204)
def delete_set(app: str, set_id: str, state: StateDep) -> None:
    """Delete an eval set."""
    state.check_app(app)
    state.eval_sets.delete(app, set_id)


@router.get("/apps/{app}/eval-sets/{set_id}/cases/{case_id}")
def get_case(app: str, set_id: str, case_id: str, state: StateDep) -> JSONResponse:
    """One case (native JSON)."""
    state.check_app(app)
    case = state.eval_sets.snapshot(app, set_id).eval_set.get_case(case_id)
    if case is None:
        raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")
    return JSONResponse(as_json(case))


@router.put("/apps/{app}/eval-sets/{set_id}/cases/{case_id}")
def put_case(
    app: str, set_id: str, case_id: str, body: Annotated[dict[str, Any], Body()], state: StateDep
) -> JSONResponse:
    """Replace a case with the JSON object sent (native or ADK); an invalid case answers 400 with the JSON path."""
    state.check_app(app)
    if body.get("evalId", case_id) != case_id:
        raise InputError(f"evalId {body.get('evalId')!r} does not match the case in the URL {case_id!r}")
    report, _ = case_report(state, body)
    refuse_errors(report, f"case {case_id!r} not saved")  # e.g. a key ADK's Invocation refuses, in an ADK case
    case = parse_adk_case({**body, "evalId": case_id}, set_id, source="case")
    state.eval_sets.update_case(app, set_id, case)
    saved = as_json(state.eval_sets.get_case(app, set_id, case_id))
    return JSONResponse(saved, headers=warnings_header(report))


@router.post("/apps/{app}/eval-sets/{set_id}/cases/{case_id}/check")
def check_case(
    app: str, set_id: str, case_id: str, body: Annotated[dict[str, Any], Body()], state: StateDep
) -> JSONResponse:
    """The unknown keys of a case as the editor holds it, nothing saved: ``{"dialect", "blocking",
    "unknownKeys": [{"path", "key", "didYouMean", "message", "severity", "file"}]}``. ``dialect`` names the rules
    the case is judged by (``adk`` for a case in ADK's shape, ``native`` otherwise); ``blocking`` when one is an
    error (saving is refused with 422): a key ADK's model refuses, or any with ``serve --strict``."""
    state.check_app(app)
    state.eval_sets.snapshot(app, set_id)  # 404 for a set that does not exist
    report, rules = case_report(state, body)
    return JSONResponse(
        {"dialect": rules, "blocking": bool(report.errors), "unknownKeys": problems_json(report.problems)}
    )


@router.delete("/apps/{app}/eval-sets/{set_id}/cases/{case_id}", status_code=204)
def delete_case(app: str, set_id: str, case_id: str, state: StateDep) -> None:
    """Delete a case."""
    state.check_app(app)
    state.eval_sets.delete_case(app, set_id, case_id)


@router.get("/apps/{app}/eval-sets/{set_id}/metrics")
def get_metrics(app: str, set_id: str, state: StateDep) -> JSONResponse:
    """The eval set's metrics file (``[]`` when there is none)."""
    state.check_app(app)
    try:
        found = state.metrics.get_all(app, set_id)
    except NotFoundError:
        found = []
    return JSONResponse([as_json(m) for m in found])


@router.put("/apps/{app}/eval-sets/{set_id}/metrics")
def put_metrics(
    app: str, set_id: str, body: Annotated[list[Any] | dict[str, Any], Body()], state: StateDep
) -> JSONResponse:
    """Replace the eval set's metrics file (a native array, or a ``test_config.json`` object); names, criteria,
    thresholds and keys are checked first, as ``agentgauge validate`` checks them (errors: 400 / 422, nothing
    saved; warnings: the ``X-Agentgauge-Warnings`` header)."""
    from ..formats import MetricPaths, parse_metrics

    state.check_app(app)
    report = server_report(state)
    metrics = parse_metrics(json.dumps(body), source="metrics", report=report)
    paths = MetricPaths("test_config") if isinstance(body, dict) else MetricPaths()
    state.registry.validate_metrics(metrics, file="metrics", report=report, paths=paths)
    refuse_errors(report, "metrics not saved")
    state.metrics.put_all(app, set_id, metrics)
    return JSONResponse([as_json(m) for m in metrics], headers=warnings_header(report))
