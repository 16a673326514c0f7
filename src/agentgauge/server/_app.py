"""The FastAPI application of ``agentgauge serve``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from ..errors import InputError, NotFoundError
from . import _adk_root as adk_root
from . import _adk_trace as adk_trace
from . import _chat as chat
from . import _live as live_routes
from . import _online as online_routes
from . import _otlp as otlp
from ._adk_eval import PREFIXES, adk_eval_router
from ._adk_root import package_version
from ._config import ServerConfig
from ._headers import UI_POLICY, docs_policy, new_nonce, nonce_inline, page_headers
from ._live_hub import LiveHub
from ._native import native_router
from ._requests import path_id_check, validation_error_answer
from ._safety import SafetyMiddleware
from ._state import ServerState
from ._warmup import warm_up_lifespan

__all__ = ["adk_web_assets", "create_app", "trpc_app_name"]


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


def _operation_id(route: APIRoute) -> str:
    # ADK's current and legacy spellings differ only in '-' / '_', which FastAPI's default ids fold together.
    methods = "_".join(sorted(route.methods or ()))
    return f"{route.name}:{methods.lower()}:{route.path_format}"


def api_docs(request: Request) -> HTMLResponse:
    """The API reference (every route, its parameters and docstring), as plain HTML that needs no network."""
    from ._api_docs import api_reference_html

    nonce = new_nonce()
    return HTMLResponse(
        nonce_inline(api_reference_html(request.app.openapi()), nonce), headers=page_headers(docs_policy(nonce))
    )


def create_app(config: ServerConfig) -> FastAPI:
    """The application: ADK-compatible routes, agentgauge's ``/api``, the web UI at ``/`` and (with
    ``config.adk_web``) ADK Web at ``/dev-ui/``. Guards: see :class:`~agentgauge.server.SafetyMiddleware`."""
    state = ServerState(config)
    live = _live_hub(config)
    mcp_endpoint, mcp_sessions = _mcp_endpoint(state)
    online = _online(state, live, config)
    inner = _inner_lifespan(_otlp_grpc_lifespan(live, config), mcp_sessions)
    if online is not None:
        from ._online import online_lifespan

        inner = online_lifespan(online, inner)
    app = FastAPI(
        lifespan=warm_up_lifespan(state, inner),
        generate_unique_id_function=_operation_id,
        title="agentgauge",
        version=package_version(),
        description="Evaluate LLM agents: ADK-compatible evaluation API, background runs and a web UI.",
        # FastAPI's Swagger/ReDoc pages fetch their scripts from a CDN: /docs is rendered here instead.
        docs_url=None,
        redoc_url=None,
        # Ids in a route's path are checked before its body: a bad id is a 400 naming it, whatever the body holds.
        dependencies=[Depends(path_id_check(state))],
    )
    app.state.agentgauge = state  # what the routes' StateDep reads
    app.state.agentgauge_live = live  # what the live routes' LiveDep reads (None without --otlp)
    app.state.agentgauge_online = online  # the online engine (None without --online)
    # Routes that only read or write files are plain functions: FastAPI runs them in its thread pool, so a large eval
    # set or report never stalls the event loop that runs evaluations and streams their progress.
    _answer_errors(app)
    app.add_api_route("/docs", api_docs, methods=["GET"], include_in_schema=False)  # a page of the app itself
    app.include_router(adk_root.router)
    app.include_router(chat.router)
    for prefix in PREFIXES:
        app.include_router(adk_eval_router(prefix))
    app.include_router(native_router())
    app.include_router(live_routes.router, prefix="/api")
    app.include_router(online_routes.router, prefix="/api")
    app.include_router(adk_trace.router)
    if live is not None:
        app.include_router(otlp.router)
    if config.trpc_api:
        _mount_trpc_api(app, state)
    if mcp_endpoint is not None:
        from ._mcp import MCP_PATH

        # A route of its own path (a mount would answer /mcp with a redirect to /mcp/).
        app.router.add_route(MCP_PATH, mcp_endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    _mount_ui(app)
    if config.adk_web:
        _mount_adk_web(app)
    _add_guards(app, config)
    return app


def trpc_app_name(state: ServerState) -> str:
    """The app trpc's evaluation service serves: ``--trpc-app``, else the only app with an agent, else the only
    app; :class:`InputError` naming the choices otherwise."""
    chosen = state.config.trpc_app
    if chosen:
        return state.check_app(chosen)
    agents = sorted(state.config.agents)
    apps = agents or state.app_names()
    if len(apps) == 1:
        return apps[0]
    listed = ", ".join(apps) or "none yet"
    raise InputError(f"--trpc-api serves the evaluation service of one app: name it with --trpc-app (apps: {listed})")


def _mount_trpc_api(app: FastAPI, state: ServerState) -> None:
    from ._trpc_api import check_trpc_base_path, trpc_router

    base = check_trpc_base_path(state.config.trpc_base_path)
    app.include_router(trpc_router(state, trpc_app_name(state), base))


def _live_hub(config: ServerConfig) -> LiveHub | None:
    """The store of received OTLP data under ``<data_dir>/otlp`` (``serve --otlp``), else ``None``."""
    if not config.otlp:
        return None
    from ..traces import LiveStore
    from ._live_hub import OTLP_DIR, LiveHub

    return LiveHub(LiveStore(config.data_dir / OTLP_DIR, max_memory_bytes=config.live_memory_bytes))


def _mcp_endpoint(state: ServerState) -> tuple[Any, Any]:
    """The MCP endpoint and the context its sessions run in (``serve --mcp``), else ``(None, None)``."""
    if not state.config.mcp:
        return None, None
    from ._mcp import check_mcp_installed, mcp_http_app

    check_mcp_installed()
    return mcp_http_app(state, allow_run=state.config.mcp_allow_run, max_body=state.config.max_upload_bytes)


def _inner_lifespan(grpc: Any, mcp_sessions: Any) -> Any:
    """What runs while the app runs, inside the warm-up: the OTLP/gRPC receiver, the MCP sessions (either, both or
    neither)."""
    if grpc is None or mcp_sessions is None:
        if mcp_sessions is None:
            return grpc
        return lambda _app: mcp_sessions()

    @asynccontextmanager
    async def both(app: FastAPI) -> AsyncIterator[None]:
        async with grpc(app), mcp_sessions():
            yield

    return both


def _online(state: ServerState, live: LiveHub | None, config: ServerConfig) -> Any:
    """The online engine of ``config.online_rules`` (``serve --online``), else ``None``."""
    if live is None or config.online_rules is None:
        return None
    from ._online import build_online

    return build_online(state, live, config.online_rules)


def _otlp_grpc_lifespan(live: LiveHub | None, config: ServerConfig) -> Any:
    """The OTLP/gRPC receiver, running while the app runs (``serve --otlp-grpc-port``), else ``None``."""
    if live is None or config.otlp_grpc_port is None:
        return None
    from ._otlp_grpc import grpc_lifespan

    return grpc_lifespan(live, config, config.otlp_grpc_port)


def _answer_errors(app: FastAPI) -> None:
    """Bad input answers 400, a missing thing 404, a request FastAPI cannot validate 415 or 422."""

    @app.exception_handler(InputError)
    async def _input_error(_: Request, exc: InputError) -> JSONResponse:
        return _error(400, str(exc))

    @app.exception_handler(NotFoundError)
    async def _not_found(_: Request, exc: NotFoundError) -> JSONResponse:
        return _error(404, str(exc).strip("'\""))

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(*validation_error_answer(request, exc))


def _mount_ui(app: FastAPI) -> None:
    """The web UI: its page at ``/`` and its files under ``/static``."""
    static = Path(str(resources.files("agentgauge.server") / "static"))

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(static / "index.html", headers=page_headers(UI_POLICY))

    app.mount("/static", StaticFiles(directory=static), name="ui")


def _add_guards(app: FastAPI, config: ServerConfig) -> None:
    """CORS (when origins are allowed) inside the safety middleware, which is added last so that it runs first."""
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

    app.mount("/dev-ui/", StaticFiles(directory=assets, html=True), name="adk-web")
