"""ADK's evaluation routes: every 2.13 route under ``/dev/apps/{app}/...`` and the 1.x prefix ``/apps/{app}/...``,
each in its current (kebab-case) and legacy (snake_case) spelling, with ADK's request and response shapes."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException
from fastapi.responses import JSONResponse, Response

from ..errors import InputError, NotFoundError
from ..model import EvalMetric
from ._adk_shapes import adk_case, adk_eval_set, adk_result, metrics_info, parse_adk_case, parse_adk_metrics
from ._adk_shapes import run_eval_result as _run_eval_result
from ._editor import refuse_unknown_keys
from ._requests import AddSessionBody, CreateEvalSetBody, RunEvalBody
from ._safety import public_result
from ._sessions import session_to_case
from ._state import ServerState

__all__ = ["PREFIXES", "adk_eval_router"]

PREFIXES = ("/dev", "")
"""ADK 2.x serves its eval routes under ``/dev``; ADK 1.x (and trpc-agent-go's debug server) without it."""


def _pick(body: dict[str, Any], *names: str) -> Any:
    for name in names:
        if name in body:
            return body[name]
    return None


def adk_eval_router(state: ServerState, prefix: str) -> APIRouter:
    """The eval routes under ``prefix`` (``"/dev"`` or ``""``)."""
    router = APIRouter(prefix=f"{prefix}/apps/{{app_name}}", tags=[f"ADK eval ({prefix or '1.x'} prefix)"])

    def _ids(app_name: str) -> list[str]:
        state.check_app(app_name)
        return state.eval_sets.list(app_name)

    @router.get("/eval-sets")
    def list_eval_sets(app_name: str) -> JSONResponse:
        """``{"evalSetIds": [...]}``."""
        return JSONResponse({"evalSetIds": _ids(app_name)})

    @router.get("/eval_sets")
    def list_eval_sets_legacy(app_name: str) -> JSONResponse:
        """The eval set ids as a bare list."""
        return JSONResponse(_ids(app_name))

    @router.post("/eval-sets")
    def create_eval_set(app_name: str, body: Annotated[CreateEvalSetBody, Body()]) -> JSONResponse:
        """Body ``{"evalSet": {"evalSetId": ...}}`` (only the id is used); the created eval set."""
        state.check_app(app_name)
        set_id = body.eval_set.eval_set_id if body.eval_set is not None else None
        if not set_id:
            raise InputError("evalSet.evalSetId is required")
        created = state.eval_sets.create(app_name, set_id)
        return JSONResponse(adk_eval_set(created))

    @router.post("/eval_sets/{eval_set_id}")
    def create_eval_set_legacy(app_name: str, eval_set_id: str) -> None:
        """Create an empty eval set (no body; answers ``null``)."""
        state.check_app(app_name)
        state.eval_sets.create(app_name, eval_set_id)

    @router.get("/eval-sets/{eval_set_id}")
    def get_eval_set(app_name: str, eval_set_id: str) -> Response:
        """The whole eval set (called by ADK Web, not served by ADK 2.13 itself)."""
        state.check_app(app_name)
        body = state.eval_sets.snapshot(app_name, eval_set_id).json_view("adk", adk_eval_set)
        return Response(body, media_type="application/json")

    @router.delete("/eval-sets/{eval_set_id}")
    @router.delete("/eval_sets/{eval_set_id}")
    def delete_eval_set(app_name: str, eval_set_id: str) -> None:
        """Delete an eval set (called by ADK Web, not served by ADK 2.13 itself)."""
        state.check_app(app_name)
        state.eval_sets.delete(app_name, eval_set_id)

    @router.post("/eval-sets/{eval_set_id}/add-session")
    @router.post("/eval_sets/{eval_set_id}/add_session")
    def add_session(app_name: str, eval_set_id: str, body: Annotated[AddSessionBody, Body()]) -> None:
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

    @router.get("/eval_sets/{eval_set_id}/evals")
    def list_evals(app_name: str, eval_set_id: str) -> JSONResponse:
        """The case ids, sorted; a missing set is 400 (as in ADK)."""
        state.check_app(app_name)
        try:
            eval_set = state.eval_sets.snapshot(app_name, eval_set_id).eval_set
        except NotFoundError:
            raise HTTPException(400, f"Eval set `{eval_set_id}` not found.") from None
        return JSONResponse(sorted(c.eval_id for c in eval_set.eval_cases))

    def _case(app_name: str, eval_set_id: str, eval_case_id: str) -> JSONResponse:
        state.check_app(app_name)
        try:
            eval_set = state.eval_sets.snapshot(app_name, eval_set_id).eval_set
            case = eval_set.get_case(eval_case_id)
        except NotFoundError:
            case = None
        if case is None:
            raise HTTPException(404, f"Eval set `{eval_set_id}` or Eval `{eval_case_id}` not found.")
        return JSONResponse(adk_case(eval_set, case))

    @router.get("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
    @router.get("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
    def get_eval(app_name: str, eval_set_id: str, eval_case_id: str) -> JSONResponse:
        """One case (ADK camelCase)."""
        return _case(app_name, eval_set_id, eval_case_id)

    @router.put("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
    @router.put("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
    def update_eval(
        app_name: str, eval_set_id: str, eval_case_id: str, body: Annotated[dict[str, Any], Body()]
    ) -> None:
        """Replace a case; the body's ``evalId`` must be empty or equal the path's."""
        state.check_app(app_name)
        given = _pick(body, "eval_id", "evalId")
        if given and given != eval_case_id:
            raise InputError("Eval id in EvalCase should match the eval id in the API route.")
        try:
            refuse_unknown_keys(state, app_name, eval_set_id, body)  # ADK's models forbid them in an ADK file
        except NotFoundError:
            raise HTTPException(404, f"Eval set `{eval_set_id}` or Eval `{eval_case_id}` not found.") from None
        case = parse_adk_case({**body, "evalId": eval_case_id}, eval_set_id, source="request body")
        try:
            state.eval_sets.update_case(app_name, eval_set_id, case)
        except NotFoundError:
            raise HTTPException(404, f"Eval set `{eval_set_id}` or Eval `{eval_case_id}` not found.") from None

    @router.delete("/eval-sets/{eval_set_id}/eval-cases/{eval_case_id}")
    @router.delete("/eval_sets/{eval_set_id}/evals/{eval_case_id}")
    def delete_eval(app_name: str, eval_set_id: str, eval_case_id: str) -> None:
        """Delete a case."""
        state.check_app(app_name)
        try:
            state.eval_sets.delete_case(app_name, eval_set_id, eval_case_id)
        except NotFoundError:
            raise HTTPException(404, f"Eval set `{eval_set_id}` or Eval `{eval_case_id}` not found.") from None

    async def _run(app_name: str, eval_set_id: str, body: RunEvalBody) -> list[dict[str, Any]]:
        from ._runs import RunRequest

        state.check_app(app_name)
        try:
            state.eval_sets.snapshot(app_name, eval_set_id)
        except NotFoundError:
            raise HTTPException(400, f"Eval set `{eval_set_id}` not found.") from None
        case_ids = body.eval_case_ids or body.eval_ids or []
        raw_metrics = body.eval_metrics
        metrics: list[EvalMetric] | None = None
        if raw_metrics is not None:
            metrics = parse_adk_metrics(raw_metrics, source="evalMetrics")
        run = await state.runs.start(
            RunRequest(app_name, eval_set_id, list(case_ids), metrics, 1, state.config.default_parallelism)
        )
        result = await state.runs.wait(run)
        if result is None and run.status == "cancelled":
            raise HTTPException(409, f"run {run.id} was cancelled before any case finished")
        if result is None:
            raise HTTPException(500, f"evaluation failed: {run.error}")
        result = public_result(result, state.config.debug)
        return [_run_eval_result(result, c, i) for i, c in enumerate(result.eval_case_results)]

    @router.post("/eval-sets/{eval_set_id}/run")
    async def run_eval(app_name: str, eval_set_id: str, body: Annotated[RunEvalBody, Body()]) -> JSONResponse:
        """Run cases (``evalCaseIds``; empty = all) with ``evalMetrics``; waits for the end, as ADK does."""
        return JSONResponse({"runEvalResults": await _run(app_name, eval_set_id, body)})

    @router.post("/eval_sets/{eval_set_id}/run_eval")
    async def run_eval_legacy(app_name: str, eval_set_id: str, body: Annotated[RunEvalBody, Body()]) -> JSONResponse:
        """As ``run``, answering a bare list (also accepts ``evalIds``)."""
        return JSONResponse(await _run(app_name, eval_set_id, body))

    def _result(app_name: str, result_id: str) -> JSONResponse:
        state.check_app(app_name)
        try:
            result = state.results.get(app_name, result_id)
        except (NotFoundError, InputError):
            raise HTTPException(404, f"Eval set result `{result_id}` not found.") from None
        return JSONResponse(adk_result(public_result(result, state.config.debug)))

    @router.get("/eval-results/{eval_result_id}")
    @router.get("/eval_results/{eval_result_id}")
    def get_eval_result(app_name: str, eval_result_id: str) -> JSONResponse:
        """A stored result as ADK's ``EvalSetResult`` (integer statuses)."""
        return _result(app_name, eval_result_id)

    @router.get("/eval-results")
    def list_eval_results(app_name: str) -> JSONResponse:
        """``{"evalResultIds": [...]}``."""
        state.check_app(app_name)
        return JSONResponse({"evalResultIds": state.results.list(app_name)})

    @router.get("/eval_results")
    def list_eval_results_legacy(app_name: str) -> JSONResponse:
        """The result ids as a bare list."""
        state.check_app(app_name)
        return JSONResponse(state.results.list(app_name))

    @router.get("/metrics-info")
    def get_metrics_info(app_name: str) -> JSONResponse:
        """Every registered metric with its value interval (``{"metricsInfo": [...]}``)."""
        return JSONResponse({"metricsInfo": metrics_info(state.registry.infos())})

    return router
