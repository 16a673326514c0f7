"""The server writes only into its data directory: chatting, adding the session as a case, running and cancelling
leave the agents' folder as it was, except the eval set file the user edited."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import httpx

from agentgauge.server import ServerConfig, create_app, default_evals_dir, discover_apps

ROOT = Path(__file__).resolve().parents[2]


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative path → content digest); Python's bytecode caches left out."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


async def test_chat_run_and_edits_write_only_the_data_dir_and_the_edited_set(tmp_path: Path) -> None:
    agents = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", agents, ignore=shutil.ignore_patterns("__pycache__", ".adk"))
    before = _tree(agents)
    specs = [str(agents / "calculator")]
    data = tmp_path / "data"
    config = ServerConfig(data_dir=data, evals_dir=default_evals_dir(specs), agents=discover_apps(specs))
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        session = (await client.post("/apps/calculator/users/me/sessions", json={})).json()["id"]
        body = {"appName": "calculator", "userId": "me", "sessionId": session,
                "newMessage": {"parts": [{"text": "calc add 2 3"}]}}  # fmt: skip
        assert (await client.post("/run", json=body)).status_code == 200
        assert (await client.post("/run_sse", json=body)).status_code == 200
        add = {"evalId": "from_chat", "sessionId": session, "userId": "me"}
        assert (await client.post("/dev/apps/calculator/eval-sets/calculator/add-session", json=add)).status_code == 200
        metrics = {"evalMetrics": [{"metricName": "tool_trajectory_avg_score", "threshold": 1.0}]}
        ran = await client.post("/dev/apps/calculator/eval-sets/calculator/run", json=metrics)
        assert ran.status_code == 200
        run = (await client.post("/api/apps/calculator/eval-sets/calculator/runs", json={})).json()
        await client.get(f"/api/runs/{run['runId']}/events")
        result_id = (await client.get(f"/api/runs/{run['runId']}")).json()["resultId"]
    after = _tree(agents)
    changed = {name for name in before.keys() & after.keys() if before[name] != after[name]}
    assert changed == {"calculator/calculator.evalset.json"}  # the set the session was added to
    assert after.keys() == before.keys(), sorted(after.keys() - before.keys())
    # Sessions, lock files and results are in the data directory.
    assert (data / "sessions" / "calculator" / "me" / f"{session}.json").is_file()
    assert list((data / "locks").glob("calculator.evalset.json.*.lock"))
    assert (data / "results" / "calculator" / f"{result_id}.evalset_result.json").is_file()
