"""Fixtures for the server tests: an app over a temporary data directory serving the calculator agent."""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

import httpx

from agentgauge.server import ServerConfig, create_app

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the _browser helpers

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data directory holding a copy of the calculator eval set and metrics as app ``calculator``."""
    app_dir = tmp_path / "data" / "calculator"
    app_dir.mkdir(parents=True)
    for name in ("calculator.evalset.json", "calculator.metrics.json"):
        shutil.copy(CALCULATOR / name, app_dir / name)
    return tmp_path / "data"


@pytest.fixture
def config(data_dir: Path) -> ServerConfig:
    """A server configuration with the calculator agent."""
    return ServerConfig(data_dir=data_dir, agents={"calculator": str(CALCULATOR / "agent.py")})


@pytest.fixture
async def client(config: ServerConfig) -> AsyncIterator[httpx.AsyncClient]:
    """An ASGI client of the app (a loopback peer)."""
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        yield http


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """One uvicorn server for the whole session on 127.0.0.1 and a free port, over an empty data directory,
    serving the calculator agent and ADK Web; yields (base URL, data directory)."""
    from _browser import running_server

    data = tmp_path_factory.mktemp("live-data")
    app = create_app(ServerConfig(data_dir=data, agents={"calculator": str(CALCULATOR / "agent.py")}, adk_web=True))
    with running_server(app) as url:
        yield url, data
