"""The span timeline of a case run through the server by a google-adk agent: its recorded spans (agent, model calls,
tool), linked to the replay's turn, with the tokens the model spans carry."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agentgauge.server import ServerConfig, create_app, discover_apps

ROOT = Path(__file__).resolve().parents[2]
ADK_CALCULATOR = ROOT / "tests" / "agents" / "remote" / "calculator_adk"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The server with the scripted ADK calculator agent (skipped without google-adk, except under CI)."""
    try:
        import google.adk  # noqa: F401
        import opentelemetry.sdk  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but google-adk / opentelemetry-sdk is not installed", pytrace=False)
        pytest.skip("needs google-adk and opentelemetry-sdk (pip install 'agentgauge[adk]')")
    evals = tmp_path / "evals" / "calculator_adk"
    evals.mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "calculator" / "calculator.evalset.json", evals)
    apps = discover_apps([str(ADK_CALCULATOR)])
    with TestClient(
        create_app(ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals", agents=apps))
    ) as http:
        yield http


def test_a_server_run_of_an_adk_agent_has_a_timeline_of_its_spans(client: TestClient) -> None:
    run = client.post("/apps/calculator_adk/eval-sets/calculator/run", json={"evalCaseIds": ["calc_natural_multiply"]})
    assert run.status_code == 200, run.text
    (row,) = client.get("/api/apps/calculator_adk/results").json()
    base = f"/api/apps/calculator_adk/results/{row['evalSetResultId']}/cases/calc_natural_multiply"
    timeline = client.get(f"{base}/timeline").json()
    assert timeline["source"] == "spans", timeline["note"]
    kinds = {s["name"]: s["kind"] for s in timeline["spans"]}
    assert kinds["execute_tool calculator"] == "tool"
    assert [n for n, k in kinds.items() if k == "model"] and all(
        n.startswith("generate_content") for n, k in kinds.items() if k == "model"
    )
    assert all(s["turn"] == 1 for s in timeline["spans"])  # one turn: every span is linked to it
    models = [s for s in timeline["spans"] if s["kind"] == "model"]
    assert any(s["inputTokens"] == 50 for s in models)
    tool = next(s for s in timeline["spans"] if s["kind"] == "tool")
    parent = next(s for s in timeline["spans"] if s["id"] == tool["parentId"])
    assert tool["depth"] == parent["depth"] + 1 and tool["start"] >= parent["start"]
    replay = client.get(f"{base}/replay").json()
    assert [t["index"] for t in replay["turns"]] == [1]
