"""agentgauge's own REST API under ``/api``: what ADK's routes lack (metrics files, background runs with live
progress, result details and comparison, validation).

The routes live with their resource: eval sets, cases and metrics files in :mod:`._native_sets`, runs in
:mod:`._native_runs`, results and comparison in :mod:`._native_results`, validation in :mod:`._native_validate`;
this module holds the app-wide lists and puts the API together."""

from __future__ import annotations

import math

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from . import (
    _compare_answers,
    _diagnose,
    _labels,
    _native_results,
    _native_runs,
    _native_sets,
    _native_validate,
    _optimize_views,
    _picker,
    _replay,
    _timeline,
    _trends,
)
from ._deps import StateDep

__all__ = ["native_router"]

_catalog = APIRouter()
"""What the server offers: the apps and the registered metrics."""

_service = APIRouter()
"""The server's own health."""


@_catalog.get("/apps")
def apps(state: StateDep) -> JSONResponse:
    """Every app: name, whether an agent is served for it, its eval set ids."""
    return JSONResponse(
        [
            {"name": name, "hasAgent": state.has_agent(name), "evalSets": state.eval_sets.list(name)}
            for name in state.app_names()
        ]
    )


@_catalog.get("/metrics")
def metrics(state: StateDep) -> JSONResponse:
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


@_service.get("/evals-folder")
def evals_folder(state: StateDep) -> JSONResponse:
    """Where the eval sets and metrics files the UI edits are (``path``), and whether git tracks files there
    (``tracked``: edits from the UI change files of a checkout, which the page says before it changes one)."""
    return JSONResponse({"path": str(state.config.eval_root), "tracked": state.evals_tracked()})


@_service.get("/health")
async def health() -> dict[str, str]:
    """``{"status": "ok"}``."""
    return {"status": "ok"}


def native_router() -> APIRouter:
    """The ``/api`` routes."""
    router = APIRouter(prefix="/api", tags=["agentgauge"])
    parts = (
        _catalog,
        _native_sets.router,
        _native_runs.router,
        _native_results.router,
        _labels.router,
        _replay.router,
        _diagnose.router,
        _compare_answers.router,
        _timeline.router,
        _trends.router,
        _picker.router,
        _native_validate.router,
        _optimize_views.router,
    )
    for part in (*parts, _service):  # in this order: it is the order of the API reference
        router.include_router(part)
    return router
