"""A ``conversationScenario`` case started from the web UI's runs API is played by the server's simulated user, as
``agentgauge eval --user-simulator`` plays it; without one it is refused before the run starts, naming no command-line
flag. The server's limits on a run are answered as a 400 naming the field."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _scenario import METRICS, SCENARIO, SIMULATION, scenario_app

from agentgauge.launch import SimulationOptions
from agentgauge.server import ServerConfig, create_app

RUNS = "/api/apps/trip/eval-sets/trips/runs"


def _data_dir(tmp_path: Path) -> Path:
    scenario_app(tmp_path / "data")
    return tmp_path / "data"


async def _client(config: ServerConfig) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost", timeout=60) as client:
        yield client


@pytest.fixture
async def simulating(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A server whose scenario cases are played by the example's scripted user (``serve --user-simulator``)."""
    data = _data_dir(tmp_path)
    simulation = SimulationOptions(user_simulator=str(SIMULATION / "simulator.py"))
    config = ServerConfig(data_dir=data, agents={"trip": str(data / "trip" / "agent.py")}, simulation=simulation)
    async for client in _client(config):
        yield client


@pytest.fixture
async def plain(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """A server started without a simulated user."""
    data = _data_dir(tmp_path)
    async for client in _client(ServerConfig(data_dir=data, agents={"trip": str(data / "trip" / "agent.py")})):
        yield client


async def _finished(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    text = (await client.get(f"/api/runs/{run_id}/events")).text
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


async def test_a_scenario_case_started_from_the_ui_is_played_by_the_servers_simulated_user(
    simulating: httpx.AsyncClient,
) -> None:
    started = await simulating.post(RUNS, json={"metrics": METRICS})
    assert started.status_code == 202, started.text
    events = await _finished(simulating, started.json()["runId"])
    assert events[-1]["event"] == "run_finished", events
    [case] = [e for e in events if e["event"] == "case_finished"]
    assert case["status"] == "passed" and case["scores"] == {"trajectory_tool_used": 1.0}, case
    result = (await simulating.get(f"/api/apps/trip/results/{events[-1]['resultId']}")).json()
    [played] = result["evalCaseResults"]
    # The simulated user answered the agent's two questions, then ended the conversation with the stop signal.
    turns = [inv["actualInvocation"]["userContent"]["content"] for inv in played["evalMetricResultPerInvocation"]]
    assert turns[0] == SCENARIO["startingPrompt"] and "Paris" in turns[1] and len(turns) == 3, turns


async def test_without_a_simulated_user_the_run_is_refused_before_it_starts_naming_no_flag(
    plain: httpx.AsyncClient,
) -> None:
    refused = await plain.post(RUNS, json={"metrics": METRICS})
    assert refused.status_code == 400
    message = refused.json()["error"]
    assert message.startswith("trip/trips.evalset.json: case(s) paris have a conversationScenario and need a simulated")
    assert "this server has none" in message and "--" not in message
    assert (await plain.get("/api/apps/trip/results")).json() == []  # nothing ran, nothing was saved


@pytest.mark.parametrize(
    ("body", "field", "bound"),
    [
        ({"numRuns": 0}, "numRuns", "between 1 and 100, got 0"),
        ({"numRuns": 101}, "numRuns", "between 1 and 100, got 101"),
        ({"parallelism": 0}, "parallelism", "between 1 and 64, got 0"),
        ({"parallelism": 65}, "parallelism", "between 1 and 64, got 65"),
    ],
)
async def test_the_servers_limits_are_the_requests_checks_answered_400_naming_the_field(
    plain: httpx.AsyncClient, body: dict[str, Any], field: str, bound: str
) -> None:
    refused = await plain.post(RUNS, json=body)
    assert refused.status_code == 400
    assert refused.json()["error"] == f"{field} must be {bound}"
