"""The web UI's result view embeds the HTML report: a simulated case's transcript is served with it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.server import ServerConfig, create_app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "simulation"


async def _report(data: Path, result_id: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=create_app(ServerConfig(data_dir=data)), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        assert result_id in [r["evalSetResultId"] for r in (await client.get("/api/apps/trip_app/results")).json()]
        return await client.get(f"/api/apps/trip_app/results/{result_id}/report.html")


def test_report_html_of_a_simulated_run_shows_the_conversation(tmp_path: Path) -> None:
    data = tmp_path / "data"
    args = ["eval", EXAMPLE / "agent.py", f"{EXAMPLE / 'trip.evalset.json'}:paris_trip", "--user-simulator",
            EXAMPLE / "simulator.py", "--expected-agent", EXAMPLE / "reference_agent.py",
            "--output-dir", data]  # fmt: skip
    done = CliRunner().invoke(app, [str(a) for a in args])
    assert done.exit_code == 0, done.output
    [saved] = sorted((data / "trip_app").glob("*.evalset_result.json"))
    result_id = saved.name.removesuffix(".evalset_result.json")
    report = asyncio.run(_report(data, result_id))
    assert report.status_code == 200, report.text
    assert '<section class="sim"><h3>Simulated conversation</h3>' in report.text
    assert "trpc scenario, driver actual, 3 user turns, ended by stop_signal" in report.text
    assert '<li class="user"><span class="who">User</span><div class="text">On friday.</div></li>' in report.text
