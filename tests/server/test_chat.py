"""ADK's session routes and /run, /run_sse with agentgauge's agents, shapes checked with ADK's Session and Event."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

pytest.importorskip("google.adk")

from google.adk.events.event import Event
from google.adk.sessions.session import Session


async def test_session_crud(client: httpx.AsyncClient, data_dir: Path) -> None:
    created = await client.post("/apps/calculator/users/alice/sessions", json={"sessionId": "s1", "state": {"k": 1}})
    assert created.status_code == 200
    session = Session.model_validate(created.json())
    assert (session.id, session.app_name, session.user_id, session.state) == ("s1", "calculator", "alice", {"k": 1})
    assert (data_dir / "sessions" / "calculator" / "alice" / "s1.json").is_file()
    duplicate = await client.post("/apps/calculator/users/alice/sessions", json={"sessionId": "s1"})
    assert duplicate.status_code == 400
    legacy = await client.post("/apps/calculator/users/alice/sessions/s2", json={"x": "y"})
    assert legacy.json()["state"] == {"x": "y"}
    listed = await client.get("/apps/calculator/users/alice/sessions")
    assert [s["id"] for s in listed.json()] == ["s1", "s2"]
    assert (await client.get("/apps/calculator/users/bob/sessions")).json() == []
    assert (await client.delete("/apps/calculator/users/alice/sessions/s1")).status_code == 200
    gone = await client.get("/apps/calculator/users/alice/sessions/s1")
    assert gone.status_code == 404 and gone.json()["detail"] == "Session not found"
    # A listing never hides the ids of eval-run sessions ADK makes; ours are flagged and left out instead.
    assert [s["id"] for s in (await client.get("/apps/calculator/users/alice/sessions")).json()] == ["s2"]


async def test_run_returns_adk_events_and_keeps_history(client: httpx.AsyncClient) -> None:
    await client.post("/apps/calculator/users/u/sessions", json={"sessionId": "chat"})

    async def send(text: str) -> list[dict[str, object]]:
        body = {"appName": "calculator", "userId": "u", "sessionId": "chat",
                "newMessage": {"role": "user", "parts": [{"text": text}]}}  # fmt: skip
        response = await client.post("/run", json=body)
        assert response.status_code == 200, response.text
        events: list[dict[str, object]] = response.json()
        for event in events:
            Event.model_validate(event)
        return events

    first = await send("calc add 2 3")
    parts = [p for e in first for p in e["content"]["parts"]]  # type: ignore[index]
    assert parts[0]["functionCall"]["name"] == "calculator"
    assert parts[1]["functionResponse"]["response"]["result"] == 5
    assert parts[-1] == {"text": "calc result: 5"}
    assert all(e["author"] == "calculator" for e in first)
    second = await send("now multiply that by 4")  # "that" is the session's previous result: history is kept
    assert second[-1]["content"]["parts"][0]["text"] == "calc result: 20"  # type: ignore[index]
    session = Session.model_validate((await client.get("/apps/calculator/users/u/sessions/chat")).json())
    assert [e.author for e in session.events].count("user") == 2
    assert len(session.events) == 2 * 4


async def test_run_sse_streams_events(client: httpx.AsyncClient) -> None:
    await client.post("/apps/calculator/users/u/sessions", json={"sessionId": "sse"})
    body = {"app_name": "calculator", "user_id": "u", "session_id": "sse",
            "new_message": {"role": "user", "parts": [{"text": "calc div 1 0"}]}}  # fmt: skip
    response = await client.post("/run_sse", json=body)
    assert response.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    assert events and events[-1]["content"]["parts"][0]["text"] == "calc error: division by zero"
    for event in events:
        Event.model_validate(event)


async def test_run_errors(client: httpx.AsyncClient) -> None:
    body = {"appName": "calculator", "userId": "u", "sessionId": "nope", "newMessage": {"parts": [{"text": "x"}]}}
    missing = await client.post("/run", json=body)
    assert missing.status_code == 404 and "Session not found" in missing.json()["detail"]
    await client.post("/apps/other/users/u/sessions", json={"sessionId": "s"})
    no_agent = await client.post("/run", json={**body, "appName": "other", "sessionId": "s"})
    assert no_agent.status_code == 404 and "no agent is served for app 'other'" in no_agent.json()["detail"]


async def test_agent_failures(tmp_path: Path) -> None:
    from agentgauge.server import ServerConfig, create_app

    (tmp_path / "broken.py").write_text("raise RuntimeError('cannot import me')\n")
    (tmp_path / "crash.py").write_text("def root_agent(request):\n    raise ValueError('boom')\n")
    config = ServerConfig(data_dir=tmp_path, agents={"broken": str(tmp_path / "broken.py"),
                                                     "crash": str(tmp_path / "crash.py")})  # fmt: skip
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        for app in ("broken", "crash"):
            await client.post(f"/apps/{app}/users/u/sessions", json={"sessionId": "s"})
        body = {"userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": "hi"}]}}
        broken = await client.post("/run", json={**body, "appName": "broken"})
        assert broken.status_code == 400 and "cannot import the agent" in broken.json()["detail"]
        crash = await client.post("/run", json={**body, "appName": "crash"})
        assert crash.status_code == 502 and "agent failed: boom" in crash.json()["detail"]
        streamed = await client.post("/run_sse", json={**body, "appName": "crash"})
        assert streamed.text.strip() == 'data: {"error": "boom"}'
        # A failed turn is not stored.
        assert (await client.get("/apps/crash/users/u/sessions/s")).json()["events"] == []


ADK_AGENT = """
from google.adk.agents import BaseAgent
from google.adk.events import Event
from google.genai import types


class Lookup(BaseAgent):
    async def _run_async_impl(self, ctx):
        text = ctx.user_content.parts[0].text
        call = types.FunctionCall(id="fc", name="lookup", args={"q": text})
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(function_call=call)]))
        response = types.FunctionResponse(id="fc", name="lookup", response={"hits": 3})
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="user", parts=[types.Part(function_response=response)]))
        yield Event(author=self.name, invocation_id=ctx.invocation_id,
                    content=types.Content(role="model", parts=[types.Part(text=f"{text}: 3 hits")]))


root_agent = Lookup(name="lookup_agent")
"""


async def test_an_adk_agent_chats_and_its_session_becomes_a_passing_case(tmp_path: Path) -> None:
    from agentgauge.server import ServerConfig, create_app, discover_apps

    agent_dir = tmp_path / "agents" / "lookup"
    agent_dir.mkdir(parents=True)
    (agent_dir / "__init__.py").write_text("from . import agent\n")
    (agent_dir / "agent.py").write_text(ADK_AGENT)
    apps = discover_apps([str(tmp_path / "agents")])
    assert apps == {"lookup": str(agent_dir)}
    transport = httpx.ASGITransport(app=create_app(ServerConfig(data_dir=tmp_path / "data", agents=apps)))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        await client.post("/apps/lookup/users/u/sessions", json={"sessionId": "s"})
        body = {"appName": "lookup", "userId": "u", "sessionId": "s",
                "newMessage": {"role": "user", "parts": [{"text": "paris"}]}}  # fmt: skip
        events = (await client.post("/run", json=body)).json()
        assert events[0]["content"]["parts"][0]["functionCall"] == {
            "id": "fc",
            "name": "lookup",
            "args": {"q": "paris"},
        }
        assert events[-1]["content"]["parts"][0]["text"] == "paris: 3 hits"
        await client.post("/dev/apps/lookup/eval_sets/cities")
        added = {"evalId": "paris", "sessionId": "s", "userId": "u"}
        assert (await client.post("/dev/apps/lookup/eval-sets/cities/add-session", json=added)).status_code == 200
        metrics = [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0},
                   {"metricName": "response_match_score", "threshold": 0.8}]  # fmt: skip
        ran = await client.post("/dev/apps/lookup/eval-sets/cities/run", json={"evalMetrics": metrics})
        (result,) = ran.json()["runEvalResults"]
        assert result["finalEvalStatus"] == 1, result
