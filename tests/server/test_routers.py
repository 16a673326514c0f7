"""Each resource's router works on its own: mounted on a bare FastAPI app, with the state given as a dependency."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

import httpx
from fastapi import FastAPI

from agentgauge.server import ServerConfig
from agentgauge.server._deps import server_state
from agentgauge.server._native_sets import router as native_sets
from agentgauge.server._state import ServerState


async def test_a_router_is_served_apart_from_the_app(config: ServerConfig, data_dir: Path) -> None:
    app = FastAPI()
    state = ServerState(config)
    app.dependency_overrides[server_state] = lambda: state
    app.include_router(native_sets)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        listed = await http.get("/apps/calculator/eval-sets")
        assert listed.status_code == 200
        assert [s["evalSetId"] for s in listed.json()] == ["calculator"]
        assert (await http.get("/apps/calculator/eval-sets/calculator/metrics")).json()
