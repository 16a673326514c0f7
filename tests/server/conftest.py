"""Fixtures for the server tests: an app over a temporary data directory serving the calculator agent."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

import httpx

from agentgauge.server import ServerConfig, create_app

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
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http
