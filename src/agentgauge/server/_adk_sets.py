"""ADK's eval set routes: list, create, get, delete, and turning a chat session into a case."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, HTTPException
from fastapi.responses import JSONResponse, Response

from ..errors import InputError, NotFoundError
from ._adk_shapes import adk_eval_set
from ._deps import StateDep
from ._requests import AddSessionBody, CreateEvalSetBody, no_form_post
from ._sessions import session_to_case
from ._state import ServerState

__all__ = ["router"]

router = APIRouter()
"""``/eval-sets`` and ``/eval_sets`` (mounted under each ADK prefix's ``/apps/{app_name}``)."""


def _ids(state: ServerState, app_name: str) -> list[str]:
    state.check_app(app_name)
    return state.eval_sets.list(app_name)


@router.get("/eval-sets")
def list_eval_sets(app_name: str, state: StateDep) -> JSONResponse:
    """``{"evalSetIds": [...]}``."""
    return JSONResponse({"evalSetIds": _ids(state, app_name)})


@router.get("/eval_sets")
def list_eval_sets_legacy(app_name: str, state: StateDep) -> JSONResponse:
    """The eval set ids as a bare list."""
    return JSONResponse(_ids(state, app_name))


@router.post("/eval-sets")
def create_eval_set(app_name: str, body: Annotated[CreateEvalSetBody, Body()], state: StateDep) -> JSONResponse:
    """Body ``{"evalSet": {"evalSetId": ...}}`` (only the id is used); the created eval set."""
    state.check_app(app_name)
    set_id = body.eval_set.eval_set_id if body.eval_set is not None else None
    if not set_id:
        raise InputError("evalSet.evalSetId is required")
    created = state.eval_sets.create(app_name, set_id)
    return JSONResponse(adk_eval_set(created))


@router.post("/eval_sets/{eval_set_id}", dependencies=[Depends(no_form_post)])
def create_eval_set_legacy(app_name: str, eval_set_id: str, state: StateDep) -> None:
    """Create an empty eval set (no body; answers ``null``). A form's content type needs the page's ``Origin``."""
    state.check_app(app_name)
    state.eval_sets.create(app_name, eval_set_id)


@router.get("/eval-sets/{eval_set_id}")
def get_eval_set(app_name: str, eval_set_id: str, state: StateDep) -> Response:
    """The whole eval set (called by ADK Web, not served by ADK 2.13 itself)."""
    state.check_app(app_name)
    body = state.eval_sets.snapshot(app_name, eval_set_id).json_view("adk", adk_eval_set)
    return Response(body, media_type="application/json")


@router.delete("/eval-sets/{eval_set_id}")
@router.delete("/eval_sets/{eval_set_id}")
def delete_eval_set(app_name: str, eval_set_id: str, state: StateDep) -> None:
    """Delete an eval set (called by ADK Web, not served by ADK 2.13 itself)."""
    state.check_app(app_name)
    state.eval_sets.delete(app_name, eval_set_id)


@router.post("/eval-sets/{eval_set_id}/add-session")
@router.post("/eval_sets/{eval_set_id}/add_session")
def add_session(app_name: str, eval_set_id: str, body: Annotated[AddSessionBody, Body()], state: StateDep) -> None:
    """Turn a chat session into an eval case: body ``{evalId, sessionId, userId}``."""
    state.check_app(app_name)
    eval_id, session_id, user_id = body.eval_id, body.session_id, body.user_id
    if not eval_id:
        raise InputError("evalId is required")
    if not session_id:
        raise InputError("sessionId is required")
    if not user_id:
        raise InputError("userId is required")
    try:
        session = state.sessions.get(app_name, user_id, session_id)
    except NotFoundError:
        raise HTTPException(404, f"Session `{session_id}` not found.") from None
    state.eval_sets.get(app_name, eval_set_id)  # 404 for a missing set before anything else
    state.eval_sets.add_case(app_name, eval_set_id, session_to_case(session, eval_id))
