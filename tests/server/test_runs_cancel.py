"""Runs can be stopped: ``serve --timeout`` bounds every agent call the server makes (background runs, the ADK run
route, ``/run``, ``/run_sse``), and ``DELETE /api/runs/{id}`` cancels a running run, keeping its finished cases in a
result marked ``cancelled``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.formats import load_result
from agentgauge.server import ServerConfig, create_app

# Inputs starting with "hang" never get an answer: the agent waits forever, at an await or in its own thread.
ASYNC_AGENT = """
import asyncio
from agentgauge.agents import AgentOutput

async def root_agent(request):
    text = request.user_content.content
    if text.startswith("hang"):
        await asyncio.Event().wait()
    return AgentOutput(final_response="ok " + text)
"""

THREAD_AGENT = """
import threading

def root_agent(request):
    text = request.user_content.content
    if text.startswith("hang"):
        threading.Event().wait()
    return "ok " + text
"""

AGENTS = {"async": ASYNC_AGENT, "thread": THREAD_AGENT}
METRICS = [{"metricName": "response_match_score", "threshold": 0.8}]
BOUND = 30  # seconds any request of these tests may take: a hung server fails the test instead of hanging it


def _case(text: str) -> dict[str, Any]:
    return {
        "evalId": text,
        "conversation": [{"userContent": {"content": text}, "finalResponse": {"content": f"ok {text}"}}],
    }


def _config(tmp_path: Path, kind: str, cases: list[str], timeout: float | None) -> ServerConfig:
    app_dir = tmp_path / "evals" / "hang"
    app_dir.mkdir(parents=True)
    (app_dir / "agent.py").write_text(AGENTS[kind])
    eval_set = {"evalSetId": "s", "evalCases": [_case(c) for c in cases]}
    (app_dir / "s.evalset.json").write_text(json.dumps(eval_set))
    return ServerConfig(
        data_dir=tmp_path / "data",
        evals_dir=tmp_path / "evals",
        agents={"hang": str(app_dir / "agent.py")},
        timeout=timeout,
    )


async def _client(config: ServerConfig) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost", timeout=BOUND) as client:
        yield client


async def _until(client: httpx.AsyncClient, run_id: str, check: Any) -> dict[str, Any]:
    async def poll() -> dict[str, Any]:
        while True:
            state: dict[str, Any] = (await client.get(f"/api/runs/{run_id}")).json()
            if check(state):
                return state
            await asyncio.sleep(0.05)

    return await asyncio.wait_for(poll(), BOUND)


def _events(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


@pytest.mark.parametrize("kind", ["async", "thread"])
async def test_a_hung_case_times_out_and_the_background_run_ends(tmp_path: Path, kind: str) -> None:
    config = _config(tmp_path, kind, ["quick", "hang"], timeout=0.5)
    async for client in _client(config):
        body = {"metrics": METRICS, "parallelism": 2}
        run = (await client.post("/api/apps/hang/eval-sets/s/runs", json=body)).json()
        assert run["timeout"] == 0.5
        state = await _until(client, run["runId"], lambda s: s["status"] != "running")
        assert state["status"] == "finished" and state["cases"]["quick"] == "passed"
        assert state["cases"]["hang"] in ("failed", "error")  # an agent that fails a case is an error in 3-state
        events = _events((await client.get(f"/api/runs/{run['runId']}/events")).text)
        hung = next(e for e in events if e["event"] == "case_finished" and e["evalId"] == "hang")
        assert hung["errorMessage"] == "inference timed out after 0.5 s"
        assert events[-1]["event"] == "run_finished"


@pytest.mark.parametrize("kind", ["async", "thread"])
async def test_the_adk_run_route_answers_when_an_agent_hangs(tmp_path: Path, kind: str) -> None:
    config = _config(tmp_path, kind, ["quick", "hang"], timeout=0.5)
    async for client in _client(config):
        body = {"evalMetrics": METRICS}
        answer = await asyncio.wait_for(client.post("/dev/apps/hang/eval-sets/s/run", json=body), BOUND)
        assert answer.status_code == 200
        statuses = {r["evalId"]: r["finalEvalStatus"] for r in answer.json()["runEvalResults"]}
        assert statuses == {"quick": 1, "hang": 2}  # ADK's integers: passed, failed


@pytest.mark.parametrize("kind", ["async", "thread"])
async def test_a_hung_chat_turn_fails_with_the_timeout(tmp_path: Path, kind: str) -> None:
    config = _config(tmp_path, kind, ["quick"], timeout=0.5)
    async for client in _client(config):
        await client.post("/apps/hang/users/u/sessions", json={"sessionId": "s"})
        body = {"appName": "hang", "userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": "hang"}]}}
        answer = await asyncio.wait_for(client.post("/run", json=body), BOUND)
        assert answer.status_code == 504
        assert answer.json()["detail"] == "the agent did not answer within 0.5 s (serve --timeout 0.5)"
        streamed = await asyncio.wait_for(client.post("/run_sse", json=body), BOUND)
        assert _events(streamed.text) == [{"error": "the agent did not answer within 0.5 s (serve --timeout 0.5)"}]
        # The session keeps no half turn, and the agent still answers the next message.
        body["newMessage"] = {"parts": [{"text": "quick"}]}
        events = (await client.post("/run", json=body)).json()
        assert events[-1]["content"]["parts"][0]["text"] == "ok quick"
        session = (await client.get("/apps/hang/users/u/sessions/s")).json()
        assert [e["content"]["parts"][0]["text"] for e in session["events"]] == ["quick", "ok quick"]


@pytest.mark.parametrize("kind", ["async", "thread"])
async def test_cancel_keeps_the_finished_cases_and_marks_the_result_cancelled(tmp_path: Path, kind: str) -> None:
    config = _config(tmp_path, kind, ["quick1", "hang1", "quick2", "hang2"], timeout=None)
    async for client in _client(config):
        body = {"metrics": METRICS, "parallelism": 4}
        run = (await client.post("/api/apps/hang/eval-sets/s/runs", json=body)).json()
        await _until(client, run["runId"], lambda s: s["done"] == 2)  # both quick cases scored, two hang
        cancelled = await client.delete(f"/api/runs/{run['runId']}")
        assert cancelled.status_code == 200
        state = cancelled.json()
        assert state["status"] == "cancelled" and state["resultId"]
        assert state["cases"] == {"quick1": "passed", "hang1": "running", "quick2": "passed", "hang2": "running"}
        events = _events((await client.get(f"/api/runs/{run['runId']}/events")).text)
        assert events[-1] == {"event": "run_cancelled", "seq": len(events) - 1, "resultId": state["resultId"],
                              "done": 2, "total": 4}  # fmt: skip
        # The saved file is a valid result holding the two finished cases, marked interrupted and cancelled.
        path = tmp_path / "data" / "results" / "hang" / f"{state['resultId']}.evalset_result.json"
        result = load_result(path)
        assert (result.interrupted, result.cancelled) == (True, True)
        assert sorted(c.eval_id for c in result.eval_case_results) == ["quick1", "quick2"]
        assert json.loads(path.read_text())["cancelled"] is True
        (row,) = (await client.get("/api/apps/hang/results")).json()
        assert (row["evalSetResultId"], row["cancelled"], row["counts"]["passed"]) == (state["resultId"], True, 2)
        report = await client.get(f"/api/apps/hang/results/{state['resultId']}/report.html")
        assert "Cancelled: only the cases that finished before the run was cancelled are included." in report.text
        # Cancelling again answers the same state; a finished run cannot be cancelled; an unknown run is 404.
        again = await client.delete(f"/api/runs/{run['runId']}")
        assert again.status_code == 200 and again.json()["status"] == "cancelled"
        quick = (await client.post("/api/apps/hang/eval-sets/s/runs", json={**body, "caseIds": ["quick1"]})).json()
        await _until(client, quick["runId"], lambda s: s["status"] != "running")
        refused = await client.delete(f"/api/runs/{quick['runId']}")
        assert refused.status_code == 409 and "already ended (finished)" in refused.json()["detail"]
        assert (await client.delete("/api/runs/nope")).status_code == 404


async def test_cancel_marks_a_result_in_a_store(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from agentgauge.sqlstore import open_store

    url = f"sqlite:///{tmp_path / 'results.db'}"
    config = _config(tmp_path, "async", ["quick1", "hang1"], timeout=None)
    config.store = url
    async for client in _client(config):
        run = (await client.post("/api/apps/hang/eval-sets/s/runs", json={"metrics": METRICS})).json()
        await _until(client, run["runId"], lambda s: s["done"] == 1)
        state = (await client.delete(f"/api/runs/{run['runId']}")).json()
        assert state["status"] == "cancelled"
        (row,) = (await client.get("/api/apps/hang/results")).json()
        assert (row["evalSetResultId"], row["source"], row["cancelled"]) == (state["resultId"], "store", True)
    results = open_store(url).results()
    (info,) = results.find(app="hang")
    assert (info.eval_set_result_id, info.status) == (state["resultId"], "cancelled")
    stored = results.get("hang", state["resultId"])
    assert (stored.interrupted, stored.cancelled, [c.eval_id for c in stored.eval_case_results]) == (
        True,
        True,
        ["quick1"],
    )
    assert not (tmp_path / "data" / "results").exists()  # the store is where results went
