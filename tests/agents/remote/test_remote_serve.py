"""``agentgauge serve`` with a remote app: discovery of URL arguments and a chat turn through the served API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from _servers import require

from agentgauge.errors import InputError
from agentgauge.server import ServerConfig, create_app, discover_apps


@pytest.mark.parametrize(
    ("spec", "apps"),
    [
        (
            "adk+http://127.0.0.1:8000/apps/calculator_adk",
            {"calculator_adk": "adk+http://127.0.0.1:8000/apps/calculator_adk"},
        ),
        ("calc=a2a+http://127.0.0.1:9000", {"calc": "a2a+http://127.0.0.1:9000"}),
        ("agui+http://127.0.0.1:9000/agent", {"agent": "agui+http://127.0.0.1:9000/agent"}),
        ("a2a+https://agents.example", {"agents.example": "a2a+https://agents.example"}),
    ],
)
def test_remote_apps_are_discovered(spec: str, apps: dict[str, str]) -> None:
    assert discover_apps([spec]) == apps


def test_a_bad_remote_app_name_is_refused() -> None:
    with pytest.raises(InputError, match="app name 'a b' must use letters"):
        discover_apps(["a b=a2a+http://h:1"])


async def test_serve_chats_with_a_remote_adk_app(adk_server: str, tmp_path: Path) -> None:
    require("fastapi")
    url = f"adk+http://{adk_server}/apps/calculator_adk"
    app = create_app(ServerConfig(data_dir=tmp_path / "data", agents=discover_apps([f"calc={url}"])))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        await client.post("/apps/calc/users/u/sessions", json={"sessionId": "chat"})
        body = {
            "appName": "calc",
            "userId": "u",
            "sessionId": "chat",
            "newMessage": {"role": "user", "parts": [{"text": "calc add 2 3"}]},
        }
        response = await client.post("/run", json=body)
    assert response.status_code == 200, response.text
    parts = [p for e in response.json() for p in e["content"]["parts"]]
    assert parts[0]["functionCall"]["name"] == "calculator"
    assert parts[-1] == {"text": "calc result: 5"}


async def test_serve_keeps_the_remote_policy(hostile: Any, tmp_path: Path) -> None:
    """A served remote app follows the same origin policy: a redirect elsewhere fails the turn, nothing goes there."""
    require("fastapi")
    from agentgauge.agents.remote import RemoteAgentSettings

    home, away = hostile
    before = len(away.seen)
    url = f"adk+http://{home.address}/to-away/307/apps/hostile"
    remote = RemoteAgentSettings(headers={"X-Api-Key": "sk-serve-0123456789"}, retries=0)
    app = create_app(ServerConfig(data_dir=tmp_path / "data", agents=discover_apps([f"h={url}"]), remote=remote))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        await client.post("/apps/h/users/u/sessions", json={"sessionId": "chat"})
        message = {"role": "user", "parts": [{"text": "hello"}]}
        body = {"appName": "h", "userId": "u", "sessionId": "chat", "newMessage": message}
        response = await client.post("/run", json=body)
    assert f"another origin than the agent's http://{home.address}: refused" in response.json()["detail"]
    assert len(away.seen) == before
