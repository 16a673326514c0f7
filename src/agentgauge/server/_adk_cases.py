"""ADK's eval case routes: list a set's case ids, get, replace and delete one case (ADK's camelCase shape)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.responses import JSONResponse

from ..errors import InputError, NotFoundError
from ._adk_shapes import adk_case, parse_adk_case
from ._deps import StateDep
from ._editor import case_report, refuse_errors
from ._state import ServerState

__all__ = ["router"]

router = APIRouter()
"""``/eval-sets/{eval_set_id}/eval-cases`` and ``/eval_sets/{eval_set_id}/evals`` (mounted under each ADK prefix's
``/apps/{app_name}``)."""


def _pick(body: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in body:
            return body[name]
    return None


def _not_found(eval_set_id: str, eval_case_id: str) -> HTTPException:
    return HTTPException(404, f"Eval set `{eval_set_id}` or Eval `{eval_case_id}` not found.")


@router.get("/eval_sets/{eval_set_id}/evals")
def list_evals(app_name: str, eval_set_id: str, state: StateDep) -> JSONResponse:
    """The case ids, sorted; a missing set is 400 (as in ADK)."""
    state.check_app(app_name)
    try:
        eval_set = state.eval_sets.snapshot(app_name, eval_set_id).eval_set
    except NotFoundError:
        raise HTTPException(400, f"Eval set `{eval_set_id}` not found.") from None
    return JSONResponse(sorted(c.eval_id for c in eval_set.eval_cases))


def _case(state: ServerState, app_name: str, eval_set_id: str, eval_case_id: str) -> JSONResponse:
    state.check_app(app_name)
    try:
        eval_set = state.eval_sets.snapshot(app_name, eval_set_id).eval_set
        case = eval_set.get_case(eval_case_id)
    except NotFoundError:
        case = None
    if case is None:
        raise _not_found(eval_set_id, eval_case_id)
    return JSONResponse(adk_case(eval_set, case))


@router.get("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
@router.get("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
def get_eval(app_name: str, eval_set_id: str, eval_case_id: str, state: StateDep) -> JSONResponse:
    """One case (ADK camelCase)."""
    return _case(state, app_name, eval_set_id, eval_case_id)


@router.put("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
@router.put("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
def update_eval(
    app_name: str, eval_set_id: str, eval_case_id: str, body: Annotated[dict[str, Any], Body()], state: StateDep
) -> None:
    """Replace a case; the body's ``evalId`` must be empty or equal the path's."""
    state.check_app(app_name)
    given = _pick(body, "eval_id", "evalId")
    if given and given != eval_case_id:
        raise InputError("Eval id in EvalCase should match the eval id in the API route.")
    report, _ = case_report(state, body, "adk")  # ADK's server validates the body with its own models
    refuse_errors(report, f"EvalCase {eval_case_id!r} not saved")
    case = parse_adk_case({**body, "evalId": eval_case_id}, eval_set_id, source="request body")
    try:
        state.eval_sets.update_case(app_name, eval_set_id, case)
    except NotFoundError:
        raise _not_found(eval_set_id, eval_case_id) from None


@router.delete("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
@router.delete("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
def delete_eval(app_name: str, eval_set_id: str, eval_case_id: str, state: StateDep) -> None:
    """Delete a case."""
    state.check_app(app_name)
    try:
        state.eval_sets.delete_case(app_name, eval_set_id, eval_case_id)
    except NotFoundError:
        raise _not_found(eval_set_id, eval_case_id) from None
