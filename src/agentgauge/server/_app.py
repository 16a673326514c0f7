"""The FastAPI application of ``agentgauge serve``."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from ..errors import InputError, NotFoundError
from ._adk_eval import PREFIXES, adk_eval_router
from ._chat import chat_router
from ._config import ServerConfig
from ._headers import UI_POLICY, docs_policy, new_nonce, nonce_inline, page_headers
from ._native import native_router
from ._requests import path_id_check, validation_error_answer
from ._safety import SafetyMiddleware
from ._state import ServerState

__all__ = ["adk_web_assets", "create_app"]


def _error(status: int, message: str) -> JSONResponse:
    from .._util.redact import redact

    text = redact(message)
    # ``detail`` is what ADK clients read, ``error`` what trpc-style clients read.
    return JSONResponse({"detail": text, "error": text}, status_code=status)


def adk_web_assets() -> Path | None:
    """The ADK Web front end bundled with google-adk (``google/adk/cli/browser``), when installed."""
    import importlib.util

    spec = importlib.util.find_spec("google.adk")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "cli" / "browser"
        if (folder / "index.html").is_file():
            return folder
    return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentgauge")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0"


def _operation_id(route: APIRoute) -> str:
    # ADK's current and legacy spellings differ only in '-' / '_', which FastAPI's default ids fold together.
    methods = "_".join(sorted(route.methods or ()))
    return f"{route.name}:{methods.lower()}:{route.path_format}"


def create_app(config: ServerConfig) -> FastAPI:
    """The application: ADK-compatible routes, agentgauge's ``/api``, the web UI at ``/`` and (with
    ``config.adk_web``) ADK Web at ``/dev-ui/``. Guards: see :class:`~agentgauge.server.SafetyMiddleware`."""
    state = ServerState(config)
    app = FastAPI(
        generate_unique_id_function=_operation_id,
        title="agentgauge",
        version=_version(),
        description="Evaluate LLM agents: ADK-compatible evaluation API, background runs and a web UI.",
        # FastAPI's Swagger/ReDoc pages fetch their scripts from a CDN: /docs is rendered here instead.
        docs_url=None,
        redoc_url=None,
        # Ids in a route's path are checked before its body: a bad id is a 400 naming it, whatever the body holds.
        dependencies=[Depends(path_id_check(state))],
    )
    app.state.agentgauge = state
    # Routes that only read or write files are plain functions: FastAPI runs them in its thread pool, so a large eval
    # set or report never stalls the event loop that runs evaluations and streams their progress.

    @app.exception_handler(InputError)
    async def _input_error(_: Request, exc: InputError) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(NotFoundError)
    async def _not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, str(exc).strip("'\""))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(*validation_error_answer(request, exc))

    @app.get("/docs", include_in_schema=False)
    def api_docs() -> HTMLResponse:
        """The API reference (every route, its parameters and docstring), as plain HTML that needs no network."""
        from ._api_docs import api_reference_html

        nonce = new_nonce()
        return HTMLResponse(
            nonce_inline(api_reference_html(app.openapi()), nonce), headers=page_headers(docs_policy(nonce))
        )

    @app.get("/health", tags=["ADK"])
    async def health() -> dict[str, str]:
        """``{"status": "ok"}``."""
        return {"status": "ok"}

    @app.get("/version", tags=["ADK"])
    async def version() -> dict[str, str]:
        """The server's version (ADK's shape)."""
        return {
            "version": _version(),
            "language": "python",
            "language_version": ".".join(map(str, sys.version_info[:3])),
        }

    @app.get("/list-apps", tags=["ADK"])
    def list_apps(detailed: bool = False) -> Any:
        """The apps (``?detailed=true``: ``{"apps": [{name, rootAgentName, description, language}]}``)."""
        names = state.app_names()
        if not detailed:
            return names
        return {"apps": [{"name": n, "rootAgentName": n, "description": "", "language": "python"} for n in names]}

    @app.get("/apps/{app_name}/app-info", tags=["ADK"])
    def app_info(app_name: str) -> JSONResponse:
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

    app.include_router(chat_router(state))
    for prefix in PREFIXES:
        app.include_router(adk_eval_router(state, prefix))
    app.include_router(native_router(state))

    static = Path(str(resources.files("agentgauge.server") / "static"))

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(static / "index.html", headers=page_headers(UI_POLICY))

    app.mount("/static", StaticFiles(directory=static), name="ui")

    if config.adk_web:
        _mount_adk_web(app)

    if config.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=config.cors_origins,
            allow_methods=["*"],
            allow_headers=["*"],
            allow_credentials=True,
        )
    app.add_middleware(
        SafetyMiddleware,
        token=config.token,
        allow_remote_writes=config.allow_remote_writes,
        max_body=config.max_upload_bytes,
        allowed_origins=config.cors_origins,
        host=config.host,
        allowed_hosts=config.allowed_hosts,
    )
    return app


def _mount_adk_web(app: FastAPI) -> None:
    assets = adk_web_assets()
    if assets is None:
        raise InputError("--adk-web needs google-adk installed (pip install 'agentgauge[adk]')")
    import mimetypes

    mimetypes.add_type("application/javascript", ".js", True)

    @app.get("/dev-ui/assets/config/runtime-config.json", include_in_schema=False)
    async def runtime_config() -> JSONResponse:
        # Served before the static mount, as ADK does: an empty backendUrl makes the UI call this server.
        return JSONResponse({"backendUrl": "", "telemetry": False}, headers={"Cache-Control": "no-store"})

    @app.get("/config/telemetry", include_in_schema=False)
    async def telemetry() -> dict[str, bool]:
        return {"telemetry": False}  # agentgauge sends no telemetry; ADK Web asks before it starts

    @app.get("/dev-ui", include_in_schema=False)
    async def dev_ui() -> RedirectResponse:
        return RedirectResponse("/dev-ui/")

    @app.get("/dev/apps/{app_name}/debug/trace/session/{session_id}", include_in_schema=False)
    async def no_trace(app_name: str, session_id: str) -> Response:
        return _error(404, "Trace not found")

    app.mount("/dev-ui/", StaticFiles(directory=assets, html=True), name="adk-web")
