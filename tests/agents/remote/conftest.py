"""Session-scoped loopback servers of the remote-agent tests: google-adk's own HTTP API app serving the scripted
calculator agent, the same app without ``/run_sse`` (for the ``/run`` fallback), a plain JSON calculator service
and a fault-injecting server."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentgauge._util.redact import clear_secrets

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _servers and the service modules

from _servers import adk_api_app, require, running_server


@pytest.fixture(scope="session")
def adk_server() -> Iterator[str]:
    """``HOST:PORT`` of google-adk's API server (``get_fast_api_app``) serving app ``calculator_adk``."""
    require("google.adk")
    require("uvicorn")
    with running_server(adk_api_app()) as address:
        yield address


@pytest.fixture(scope="session")
def adk_server_without_sse() -> Iterator[str]:
    """The same app behind a front that answers 404 Not Found for ``/run_sse``, as an ADK server without it."""
    require("google.adk")
    require("uvicorn")
    from _servers import without_route

    with running_server(without_route(adk_api_app(), "/run_sse")) as address:
        yield address


@pytest.fixture(scope="session")
def plain_server() -> Iterator[str]:
    """``HOST:PORT`` of the plain JSON calculator service (``_plain_service.py``)."""
    require("fastapi")
    require("uvicorn")
    from _plain_service import plain_app

    with running_server(plain_app()) as address:
        yield address


@pytest.fixture(scope="session")
def trpcagent_server() -> Iterator[tuple[str, Any]]:
    """``(HOST:PORT, service)`` of the tRPC-Agent API server (``_trpcagent_service.py``)."""
    require("fastapi")
    require("uvicorn")
    from _trpcagent_service import TrpcAgentService, trpcagent_app

    service = TrpcAgentService()
    with running_server(trpcagent_app(service)) as address:
        yield address, service


@pytest.fixture(scope="session")
def fault_server() -> Iterator[str]:
    """``HOST:PORT`` of the fault-injecting server (``_fault_service.py``)."""
    require("fastapi")
    require("uvicorn")
    from _fault_service import fault_app

    with running_server(fault_app()) as address:
        yield address


@pytest.fixture(scope="session")
def hostile() -> Iterator[Any]:
    """Two hostile servers (``_hostile_servers.py``), ``(home, away)``: home redirects and points to away."""
    from _hostile_servers import hostile_pair

    with hostile_pair() as pair:
        yield pair


@pytest.fixture
def no_registered_secrets() -> Iterator[None]:
    """No secret registered for masking before the test, and none left after it."""
    clear_secrets()
    yield
    clear_secrets()
