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
from ._editor import case_keys, key_report_json, refuse_unknown_keys
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
    refuse_unknown_keys(state, app, set_id, body)  # 422 in an ADK file; a native one keeps them
    case = parse_adk_case({**body, "evalId": case_id}, set_id, source="case")
    state.eval_sets.update_case(app, set_id, case)
    return JSONResponse(as_json(state.eval_sets.get_case(app, set_id, case_id)))


@router.post("/apps/{app}/eval-sets/{set_id}/cases/{case_id}/check")
def check_case(
    app: str, set_id: str, case_id: str, body: Annotated[dict[str, Any], Body()], state: StateDep
) -> JSONResponse:
    """The unknown keys of a case as the editor holds it, nothing saved: ``{"dialect", "blocking",
    "unknownKeys": [{"path", "key", "didYouMean"}]}``; ``blocking`` when the set is an ADK file (saving is
    refused with 422)."""
    state.check_app(app)
    return JSONResponse(key_report_json(case_keys(state, app, set_id, body)))


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
    """Replace the eval set's metrics file; names and criteria are checked first."""
    from ..formats import parse_metrics

    state.check_app(app)
    metrics = parse_metrics(json.dumps(body), source="metrics")
    state.registry.validate_metrics(metrics)
    state.metrics.put_all(app, set_id, metrics)
    return JSONResponse([as_json(m) for m in metrics])
