"""ADK's app-wide routes: ``/health``, ``/version``, ``/list-apps`` and ``/apps/{app_name}/app-info``."""

from __future__ import annotations

import sys
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from ..errors import NotFoundError
from ._deps import StateDep

__all__ = ["package_version", "router"]

router = APIRouter(tags=["ADK"])
"""The routes every ADK API server answers, whatever the app."""


def package_version() -> str:
    """agentgauge's installed version (``"0"`` in a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentgauge")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


@router.get("/health")
async def health() -> dict[str, str]:
    """``{"status": "ok"}``."""
    return {"status": "ok"}


@router.get("/version")
async def version() -> dict[str, str]:
    """The server's version (ADK's shape)."""
    return {
        "version": package_version(),
        "language": "python",
        "language_version": ".".join(map(str, sys.version_info[:3])),
    }


@router.get("/list-apps")
def list_apps(state: StateDep, detailed: bool = False) -> Any:
    """The apps (``?detailed=true``: ``{"apps": [{name, rootAgentName, description, language}]}``)."""
    names = state.app_names()
    if not detailed:
        return names
    return {"apps": [{"name": n, "rootAgentName": n, "description": "", "language": "python"} for n in names]}


@router.get("/apps/{app_name}/app-info")
def app_info(app_name: str, state: StateDep) -> JSONResponse:
    """What is known of an app: its name, agent and eval sets."""
    state.check_app(app_name)
    if app_name not in state.app_names():
        raise NotFoundError(f"app {app_name!r} not found")
    return JSONResponse(
        {
            "name": app_name,
            "rootAgentName": app_name,
            "description": "",
            "language": "python",
            "agents": {},
            "hasAgent": state.has_agent(app_name),
            "evalSets": state.eval_sets.list(app_name),
        }
    )
