"""Loopback servers for the remote-agent tests: uvicorn in a thread on 127.0.0.1 and a free port, started and
stopped by the test session; a missing optional component skips (fails under ``CI=true``)."""

from __future__ import annotations

import contextlib
import importlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
CALCULATOR = ROOT / "examples" / "calculator"


def require(module: str) -> Any:
    """Import ``module``; skip the test when it is missing, fail it when ``CI=true``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        reason = f"{module} is not installed ({exc})"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def free_port() -> int:
    """A TCP port nothing listens on (yet) on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def running_server(app: Any) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn on 127.0.0.1 and a free port in a thread; yields ``HOST:PORT``."""
    with serving(lambda _url: app) as address:
        yield address


@contextlib.contextmanager
def serving(make_app: Any) -> Iterator[str]:
    """Serve ``make_app(url)`` (an app that needs its own URL, e.g. for an A2A agent card) with uvicorn on 127.0.0.1
    and a free port in a thread; yields ``HOST:PORT``."""
    import uvicorn

    port = free_port()
    app = make_app(f"http://127.0.0.1:{port}/")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def adk_api_app() -> Any:
    """google-adk's own HTTP API app, as ``adk api_server tests/agents/remote`` builds it, serving the scripted
    calculator agent as app ``calculator_adk`` (in-memory sessions)."""
    require("google.adk")
    from google.adk.cli.fast_api import get_fast_api_app

    return get_fast_api_app(agents_dir=str(HERE), session_service_uri="memory://", web=False, use_local_storage=False)


def without_route(app: Any, path: str) -> Any:
    """An ASGI app answering ``404 {"detail": "Not Found"}`` for ``path`` and passing everything else to ``app``."""

    async def front(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == path:
            await send(
                {"type": "http.response.start", "status": 404, "headers": [(b"content-type", b"application/json")]}
            )
            await send({"type": "http.response.body", "body": b'{"detail":"Not Found"}'})
            return
        await app(scope, receive, send)

    return front
