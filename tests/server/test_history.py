"""One history: the Results view lists and opens the runs of ``agentgauge eval`` (its default folder, which is the
server's default data directory), of ``--output-dir``, of a ``--store``, and ADK's own eval history, each once."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from agentgauge.cli import app as cli
from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"
ADK_RESULTS = ROOT / "tests" / "formats" / "data" / "adk_results"
ADK_ID = "weather_app_weather_1761134484.5"


def _eval(*args: Any) -> None:
    eval_set = f"{CALCULATOR / 'calculator.evalset.json'}:calc_add"
    ran = CliRunner().invoke(cli, ["eval", str(CALCULATOR / "agent.py"), eval_set, *map(str, args)])
    assert ran.exit_code == 0, ran.output


def _serve(config: ServerConfig, check: Callable[[httpx.AsyncClient], Awaitable[None]]) -> None:
    """Run ``check`` against the app (the tests run ``agentgauge eval`` first, which needs no running loop)."""

    async def main() -> None:
        transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            await check(client)

    asyncio.run(main())


def _evals(tmp_path: Path) -> Path:
    folder = tmp_path / "evals" / "calculator"
    folder.mkdir(parents=True)
    shutil.copy(CALCULATOR / "calculator.evalset.json", folder)
    return folder.parent


async def _opens(client: httpx.AsyncClient, app: str, result_id: str) -> None:
    """The result opens as JSON, as the HTML report and through ADK's route."""
    opened = await client.get(f"/api/apps/{app}/results/{result_id}")
    assert opened.status_code == 200 and opened.json()["evalCaseResults"]
    report = await client.get(f"/api/apps/{app}/results/{result_id}/report.html")
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/html")
    assert (await client.get(f"/dev/apps/{app}/eval-results/{result_id}")).status_code == 200
    assert result_id in (await client.get(f"/dev/apps/{app}/eval-results")).json()["evalResultIds"]


def test_runs_of_agentgauge_eval_are_listed_with_the_default_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentgauge.server import default_data_dir

    monkeypatch.chdir(tmp_path)
    _eval()  # saves under .agentgauge/results/calculator/, as the CLI does by default
    (saved,) = (tmp_path / ".agentgauge" / "results" / "calculator").glob("*.evalset_result.json")

    async def check(client: httpx.AsyncClient) -> None:
        (row,) = (await client.get("/api/apps/calculator/results?evalSetId=calculator")).json()
        assert row["evalSetResultId"] == saved.name.removesuffix(".evalset_result.json")
        assert (row["source"], row["overallStatus"], row["counts"]["passed"]) == ("data dir", "passed", 1)
        await _opens(client, "calculator", row["evalSetResultId"])

    _serve(ServerConfig(data_dir=default_data_dir(), evals_dir=_evals(tmp_path)), check)


def test_serve_lists_the_cli_folder_when_its_data_dir_is_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentgauge.cli._serve_cmd import _places

    monkeypatch.chdir(tmp_path)
    elsewhere = _places([], tmp_path / "elsewhere", None, None, None, None)
    assert elsewhere["result_dirs"] == [tmp_path / ".agentgauge" / "results"]
    default = _places([], None, None, None, None, 5.0)
    assert (default["data_dir"], default["result_dirs"], default["timeout"]) == (tmp_path / ".agentgauge", [], 5.0)


def test_output_dir_results_are_saved_and_listed_with_the_clis(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _eval("--output-dir", out)
    config = ServerConfig(data_dir=tmp_path / "data", evals_dir=_evals(tmp_path), output_dir=out,
                          agents={"calculator": str(CALCULATOR / "agent.py")})  # fmt: skip

    async def check(client: httpx.AsyncClient) -> None:
        body = {"caseIds": ["calc_add"]}
        run = (await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=body)).json()
        await client.get(f"/api/runs/{run['runId']}/events")  # ends with the run
        result_id = (await client.get(f"/api/runs/{run['runId']}")).json()["resultId"]
        assert (out / "calculator" / f"{result_id}.evalset_result.json").is_file()
        assert not (tmp_path / "data" / "results").exists()
        rows = (await client.get("/api/apps/calculator/results")).json()
        assert len(rows) == 2 and {r["source"] for r in rows} == {"output dir"}
        assert rows[0]["evalSetResultId"] == result_id  # newest first
        for row in rows:
            await _opens(client, "calculator", row["evalSetResultId"])

    _serve(config, check)


def test_store_results_are_listed_and_opened(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    url = f"sqlite:///{tmp_path / 'results.db'}"
    _eval("--store", url, "--output-dir", tmp_path / "unused")

    async def check(client: httpx.AsyncClient) -> None:
        (row,) = (await client.get("/api/apps/calculator/results")).json()
        assert (row["source"], row["overallStatus"]) == ("store", "passed")
        await _opens(client, "calculator", row["evalSetResultId"])

    _serve(ServerConfig(data_dir=tmp_path / "data", evals_dir=_evals(tmp_path), store=url), check)


def test_adk_eval_history_is_listed_and_opened(tmp_path: Path) -> None:
    evals = _evals(tmp_path)
    history = evals / "weather_app" / ".adk" / "eval_history"
    history.mkdir(parents=True)
    shutil.copy(ADK_RESULTS / "full.evalset_result.json", history / f"{ADK_ID}.evalset_result.json")
    # ADK before 1.22 wrote the JSON as one JSON string.
    shutil.copy(ADK_RESULTS / "legacy_double_encoded.evalset_result.json", history / "older.evalset_result.json")

    async def check(client: httpx.AsyncClient) -> None:
        rows = (await client.get("/api/apps/weather_app/results?evalSetId=weather")).json()
        assert sorted(r["evalSetResultId"] for r in rows) == ["older", ADK_ID]
        assert {r["source"] for r in rows} == {"ADK eval history"}
        assert {r["overallStatus"] for r in rows} == {"failed"}  # no summary in ADK's files: the cases decide
        for row in rows:
            await _opens(client, "weather_app", row["evalSetResultId"])

    _serve(ServerConfig(data_dir=tmp_path / "data", evals_dir=evals), check)


def test_adk_eval_history_beside_an_agent_served_from_elsewhere(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agents" / "calculator"
    shutil.copytree(CALCULATOR, agent_dir)
    history = agent_dir / ".adk" / "eval_history"
    history.mkdir(parents=True)
    shutil.copy(ADK_RESULTS / "full.evalset_result.json", history / f"{ADK_ID}.evalset_result.json")
    config = ServerConfig(data_dir=tmp_path / "data", evals_dir=tmp_path / "evals",
                          agents={"calculator": str(agent_dir / "agent.py")})  # fmt: skip

    async def check(client: httpx.AsyncClient) -> None:
        (row,) = (await client.get("/api/apps/calculator/results")).json()
        assert (row["evalSetResultId"], row["source"]) == (ADK_ID, "ADK eval history")

    _serve(config, check)


def test_a_result_in_two_places_is_listed_once(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _eval("--output-dir", data / "results")
    (saved,) = (data / "results" / "calculator").glob("*.evalset_result.json")
    evals = _evals(tmp_path)
    shutil.copy(saved, evals / "calculator")  # where servers before --data-dir saved results

    def listed_from(source: str) -> Callable[[httpx.AsyncClient], Awaitable[None]]:
        async def check(client: httpx.AsyncClient) -> None:
            (row,) = (await client.get("/api/apps/calculator/results")).json()
            assert row["source"] == source
            assert (await client.get("/dev/apps/calculator/eval_results")).json() == [row["evalSetResultId"]]

        return check

    _serve(ServerConfig(data_dir=data, evals_dir=evals), listed_from("data dir"))  # the first place wins
    saved.unlink()
    _serve(ServerConfig(data_dir=data, evals_dir=evals), listed_from("eval sets folder"))


def test_results_in_folders_beside_the_eval_sets_are_listed_and_opened(tmp_path: Path) -> None:
    """``serve examples`` lists the shipped judge results of ``examples/calibration/results/capitals/``."""
    evals = tmp_path / "evals"
    shutil.copytree(ROOT / "examples" / "calibration", evals / "calibration")
    shipped = sorted(
        p.name.removesuffix(".evalset_result.json")
        for p in (evals / "calibration" / "results").rglob("*.evalset_result.json")
    )

    async def check(client: httpx.AsyncClient) -> None:
        rows = (await client.get("/api/apps/calibration/results")).json()
        assert sorted(r["evalSetResultId"] for r in rows) == shipped and len(shipped) == 2
        assert {r["source"] for r in rows} == {"results beside the eval sets"}
        for row in rows:
            await _opens(client, "calibration", row["evalSetResultId"])
        labels = await client.get(f"/api/apps/calibration/results/{shipped[0]}/labels")
        assert labels.status_code == 200

    _serve(ServerConfig(data_dir=tmp_path / "data", evals_dir=evals), check)
