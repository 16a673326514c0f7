"""trpc-agent-go's evaluation service (``server/evaluation``) on ``agentgauge serve --trpc-api``: its routes, request
and response shapes under its base path (``/evaluation`` by default, ``--trpc-base-path``), over the eval sets,
metrics files and results of one app (``--trpc-app``), the same ones the rest of the server reads and writes.

| route | answer |
|---|---|
| ``GET /sets`` | ``200 {sets: [EvalSet]}`` |
| ``GET /sets/{setId}`` | ``200 {set}``, 404 |
| ``GET /metrics?setId=`` | ``200 {metrics: [EvalMetric]}`` (``[]`` without a metrics file), 400 without ``setId`` |
| ``POST /metrics {setId, metric}`` | ``201 {metric}``, 409 when it exists |
| ``GET`` / ``PUT {setId, metric}`` / ``DELETE /metrics/{metricName}?setId=`` | ``200 {metric}``, ``204``; 404 |
| ``POST /runs {setId, numRuns?}`` | ``201 {evaluationResult}`` once the run has finished |
| ``GET /results[?setId=]`` | ``200 {results: [EvalSetResult]}`` (newest first, streamed) |
| ``GET /results/{resultId}`` | ``200 {result}``, 404 |

Errors are trpc's ``{"error": "..."}``: a 400 names the field (unknown fields are refused, as trpc's decoder
refuses them), a missing thing is a 404, another method a 405 with ``Allow``, a trailing slash a 308 to the path
without it. Every route sits behind the server's Host, Origin and token checks and its body limit; runs are the
server's background runs (bounded as every other run: its ``--timeout``, ``numRuns`` at most 100), awaited.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse, RedirectResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from .._util.redact import redact
from ..errors import InputError, NotFoundError
from ._state import ServerState
from ._trpc_shapes import evaluation_result, trpc_eval_set, trpc_result

__all__ = ["DEFAULT_TRPC_BASE_PATH", "check_trpc_base_path", "trpc_router"]

DEFAULT_TRPC_BASE_PATH = "/evaluation"
"""trpc-agent-go's default base path of the evaluation service (``evaluation.WithBasePath``)."""

_TAKEN = ("/api", "/apps", "/dev", "/dev-ui", "/docs", "/static", "/list-apps", "/run", "/run_sse", "/v1", "/debug")
_ALL_METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")


def check_trpc_base_path(path: str) -> str:
    """``path`` as a base path (``/x/y``, no trailing slash); :class:`InputError` when it is not one or is a path
    the server's own routes use."""
    clean = "/" + path.strip().strip("/")
    if clean == "/" or any(not part or part in (".", "..") for part in clean[1:].split("/")):
        raise InputError(f"--trpc-base-path: {path!r} is not a path such as /evaluation")
    if any(clean == taken or clean.startswith(taken + "/") for taken in _TAKEN):
        raise InputError(f"--trpc-base-path: {clean} is a path of the server's own routes; choose another")
    return clean


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": redact(message)}, status_code=status, headers=headers)


class _TrpcRoute(APIRoute):
    """A route whose failures answer trpc's ``{"error"}`` instead of the server's usual body."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def guarded(request: Request) -> Response:
            try:
                return await handler(request)
            except NotFoundError as exc:
                return _error(404, str(exc).strip("'\""))
            except InputError as exc:
                return _error(400, str(exc))

        return guarded


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _RunBody(_Body):
    setId: StrictStr
    numRuns: StrictInt | None = None


class _MetricBody(_Body):
    setId: StrictStr = ""
    metric: dict[str, Any] | None = None


async def _body(request: Request, model: type[_Body]) -> Any:
    """The request's JSON body as ``model``; :class:`InputError` naming the field otherwise."""
    raw = await request.body()
    try:
        data = json.loads(raw) if raw.strip() else None
    except ValueError as exc:
        raise InputError(f"invalid request body: {exc}") from None
    if not isinstance(data, dict):
        raise InputError("invalid request body: request body must contain a single JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in error["loc"])
        if error["type"] == "extra_forbidden":
            raise InputError(f'invalid request body: unknown field "{field}"') from None
        raise InputError(f"invalid request body: {field}: {error['msg']}") from None


def _set_id(value: str | None) -> str:
    set_id = (value or "").strip()
    if not set_id:
        raise InputError("setId must not be empty")
    return set_id


class _Service:
    """The routes' work over one app of the server's state."""

    def __init__(self, state: ServerState, app: str) -> None:
        self.state, self.app = state, app

    def sets(self) -> dict[str, Any]:
        found = []
        for set_id in self.state.eval_sets.list(self.app):
            try:
                found.append(trpc_eval_set(self.state.eval_sets.snapshot(self.app, set_id).eval_set))
            except (InputError, NotFoundError):
                continue  # an unreadable file is no eval set (the eval set list of /api shows why)
        return {"sets": found}

    def set(self, set_id: str) -> dict[str, Any]:
        return {"set": trpc_eval_set(self.state.eval_sets.snapshot(self.app, _set_id(set_id)).eval_set)}

    def metrics(self, set_id: str | None) -> list[Any]:
        try:
            found = self.state.metrics.get_all(self.app, _set_id(set_id))
        except NotFoundError:
            found = []  # as trpc's local manager answers for a missing metrics file
        return [m.model_dump(mode="json") for m in found]

    def metric(self, set_id: str | None, name: str) -> dict[str, Any]:
        return {"metric": self.state.metrics.get(self.app, _set_id(set_id), name).model_dump(mode="json")}

    def checked_metric(self, body: _MetricBody, path_name: str | None = None) -> tuple[str, Any]:
        """The body's eval set id and metric, checked as every metrics file the server saves is."""
        from ..formats import parse_metrics
        from ._editor import refuse_errors, server_report

        set_id = _set_id(body.setId)
        if body.metric is None:
            raise InputError("metric must not be empty")
        raw = dict(body.metric)
        name = str(raw.get("metricName") or raw.get("metric_name") or "").strip()
        if path_name is not None:
            if name and name != path_name:
                raise InputError("metric.metricName must match path metricName when provided")
            name = path_name
        if not name:
            raise InputError("metric.metricName must not be empty")
        raw.pop("metric_name", None)
        raw["metricName"] = name
        report = server_report(self.state)
        (metric,) = parse_metrics(json.dumps([raw]), source="metric", report=report)
        self.state.registry.validate_metrics([metric], file="metric", report=report)
        refuse_errors(report, "metric not saved")
        return set_id, metric

    async def run(self, body: _RunBody) -> dict[str, Any]:
        from ..launch import EvalRequest

        set_id = _set_id(body.setId)
        if body.numRuns is not None and body.numRuns <= 0:
            raise InputError("numRuns must be greater than 0 when provided")
        state = self.state
        asked = EvalRequest(num_runs=body.numRuns or 1, parallelism=state.config.default_parallelism)
        run = await state.runs.start(self.app, set_id, [], asked)
        result = await state.runs.wait(run)
        if run.status == "cancelled":
            raise _Cancelled("evaluation canceled")
        if result is None:
            raise RuntimeError(run.error or "the run failed")
        return evaluation_result(self.app, result, time.time() - run.started, debug=state.config.debug)

    def results(self, set_id: str | None) -> Iterator[bytes]:
        """``{"results": [...]}``, one result at a time (a long history is never held whole)."""
        wanted = (set_id or "").strip()
        yield b'{"results":['
        first = True
        for row in self.state.results.rows(self.app):
            if wanted and row["evalSetId"] != wanted:
                continue
            try:
                result = self.state.results.get(self.app, row["evalSetResultId"])
            except (InputError, NotFoundError):
                continue  # removed or broken since it was listed
            yield (b"" if first else b",") + json.dumps(trpc_result(result, debug=self.state.config.debug)).encode()
            first = False
        yield b"]}"

    def result(self, result_id: str) -> dict[str, Any]:
        found = self.state.results.get(self.app, result_id.strip())
        return {"result": trpc_result(found, debug=self.state.config.debug)}


class _Cancelled(Exception):
    """The run was cancelled before it finished (trpc answers 408)."""


def _routes(router: APIRouter, base: str, service: _Service) -> None:
    @router.get(base + "/sets")
    def list_sets() -> JSONResponse:
        """trpc ``listSets``: every eval set of the app."""
        return JSONResponse(service.sets())

    @router.get(base + "/sets/{setId}")
    def get_set(setId: str) -> JSONResponse:
        """trpc ``getSet``."""
        return JSONResponse(service.set(setId))

    @router.get(base + "/metrics")
    def list_metrics(setId: str | None = None) -> JSONResponse:
        """trpc ``listMetrics``: the eval set's metrics (``setId`` is required)."""
        return JSONResponse({"metrics": service.metrics(setId)})

    @router.post(base + "/metrics")
    async def create_metric(request: Request) -> JSONResponse:
        """trpc ``createMetric``: ``{setId, metric}``; 409 when the metric exists."""
        set_id, metric = service.checked_metric(await _body(request, _MetricBody))
        try:
            service.state.metrics.get(service.app, set_id, metric.metric_name)
        except NotFoundError:
            service.state.metrics.add(service.app, set_id, metric)
            return JSONResponse(service.metric(set_id, metric.metric_name), status_code=201)
        return _error(409, "already exists")

    @router.get(base + "/metrics/{metricName}")
    def get_metric(metricName: str, setId: str | None = None) -> JSONResponse:
        """trpc ``getMetric``."""
        return JSONResponse(service.metric(setId, metricName))

    @router.put(base + "/metrics/{metricName}")
    async def update_metric(metricName: str, request: Request) -> JSONResponse:
        """trpc ``updateMetric``: ``{setId, metric}`` (the body's ``metricName``, when given, is the path's)."""
        set_id, metric = service.checked_metric(await _body(request, _MetricBody), metricName)
        service.state.metrics.update(service.app, set_id, metric)
        return JSONResponse(service.metric(set_id, metricName))

    @router.delete(base + "/metrics/{metricName}")
    def delete_metric(metricName: str, setId: str | None = None) -> Response:
        """trpc ``deleteMetric``: 204."""
        service.state.metrics.delete(service.app, _set_id(setId), metricName)
        return Response(status_code=204)

    @router.post(base + "/runs")
    async def create_run(request: Request) -> JSONResponse:
        """trpc ``createRun``: ``{setId, numRuns?}``; answers ``201 {evaluationResult}`` once the run has finished."""
        body = await _body(request, _RunBody)
        try:
            return JSONResponse({"evaluationResult": await service.run(body)}, status_code=201)
        except _Cancelled as exc:
            return _error(408, str(exc))
        except RuntimeError as exc:
            return _error(500, str(exc))

    @router.get(base + "/results")
    def list_results(setId: str | None = None) -> StreamingResponse:
        """trpc ``listResults``: the app's results, newest first (``setId`` keeps one eval set's)."""
        return StreamingResponse(service.results(setId), media_type="application/json")

    @router.get(base + "/results/{resultId}")
    def get_result(resultId: str) -> JSONResponse:
        """trpc ``getResult``."""
        return JSONResponse(service.result(resultId))


def _answer_the_rest(router: APIRouter, base: str) -> None:
    """405 (with ``Allow``) for the other methods of each path, 308 for a trailing slash, as trpc's server."""
    allowed = {
        "/sets": "GET",
        "/sets/{setId}": "GET",
        "/metrics": "GET, POST",
        "/metrics/{metricName}": "GET, PUT, DELETE",
        "/runs": "POST",
        "/results": "GET",
        "/results/{resultId}": "GET",
    }

    def canonical(request: Request) -> RedirectResponse:
        target = request.url.path.rstrip("/") + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(target, status_code=308)

    for path, methods in allowed.items():
        others = [m for m in _ALL_METHODS if m not in methods.split(", ")]
        router.add_api_route(base + path, _not_allowed(methods), methods=others, include_in_schema=False)
        router.add_api_route(base + path + "/", canonical, methods=list(_ALL_METHODS), include_in_schema=False)


def _not_allowed(allow: str) -> Callable[[], JSONResponse]:
    def not_allowed() -> JSONResponse:
        return _error(405, "method not allowed", {"Allow": allow})

    return not_allowed


def trpc_router(state: ServerState, app: str, base: str = DEFAULT_TRPC_BASE_PATH) -> APIRouter:
    """The routes of trpc-agent-go's evaluation service for ``app`` under ``base``."""
    router = APIRouter(route_class=_TrpcRoute, tags=["trpc-agent-go evaluation service"])
    service = _Service(state, state.check_app(app))
    _routes(router, base, service)
    _answer_the_rest(router, base)
    return router
