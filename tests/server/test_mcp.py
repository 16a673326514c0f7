"""The MCP server driven by the official ``mcp`` SDK's own client: over HTTP (``serve --mcp`` on a loopback uvicorn
server) and over stdio (``agentgauge mcp`` as a subprocess). Each tool's answer, a run started and explained, a
trpc-agent-go result's case score read back, a foreign Host refused, ``run_evaluation`` refused without
``--mcp-allow-run``, files outside the eval set folder refused, bad arguments answered as tool errors."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"
TRPC_RESULT = ROOT / "tests" / "formats" / "data" / "trpc_case_scores.evalset_result.json"


def _calculator_data(folder: Path) -> Path:
    """The calculator app with one case expecting a wrong answer (``calc_add``: 6), so a run of it fails."""
    app = folder / "calculator"
    app.mkdir(parents=True)
    for name in ("calculator.evalset.json", "calculator.metrics.json"):
        shutil.copy(CALCULATOR / name, app / name)
    eval_set = json.loads((app / "calculator.evalset.json").read_text())
    eval_set["evalCases"][0]["conversation"][0]["finalResponse"]["content"] = "calc result: 6"
    (app / "calculator.evalset.json").write_text(json.dumps(eval_set))
    return folder


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """The tool's answer as JSON (it must not be an error)."""
    answer = await client.call_tool(tool, arguments)
    assert not answer.is_error, answer.content
    text = answer.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text  # one compact line
    return json.loads(text)


async def refused(client: Client, tool: str, **arguments: Any) -> str:
    """The tool's error message (it must be one)."""
    answer = await client.call_tool(tool, arguments)
    assert answer.is_error
    return str(answer.content[0].text)  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``serve --mcp --mcp-allow-run`` over the calculator app, on a loopback port; yields the base URL."""
    from _browser import running_server

    data = _calculator_data(tmp_path_factory.mktemp("mcp-http"))
    config = ServerConfig(
        data_dir=data, agents={"calculator": str(CALCULATOR / "agent.py")}, mcp=True, mcp_allow_run=True
    )
    with running_server(create_app(config)) as url:
        yield url


async def test_http_session_runs_and_explains_a_failure(mcp_server: str) -> None:
    async with Client(f"{mcp_server}/mcp") as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        names = "list_apps list_eval_sets list_results result_summary case_failures compare_results replay_case"
        assert tools == {*names.split(), "validate_file", "run_evaluation"}
        assert await call(client, "list_apps") == [{"app": "calculator", "agent": True, "evalSets": ["calculator"]}]
        sets = await call(client, "list_eval_sets", app="calculator")
        assert sets[0]["evalSetId"] == "calculator" and sets[0]["cases"] == 6
        first = await call(client, "run_evaluation", app="calculator", eval_set_id="calculator")
        assert (first["status"], first["counts"]) == ("failed", {"passed": 5, "failed": 1})
        assert first["notPassed"][0]["caseId"] == "calc_add"
        second = await call(client, "run_evaluation", app="calculator", eval_set_id="calculator", case_ids=["calc_add"])
        listed = await call(client, "list_results", app="calculator", limit=1)
        assert [r["resultId"] for r in listed["results"]] == [second["resultId"]] and listed["leftOut"] == 1

        why = await call(client, "case_failures", app="calculator", result="latest")
        assert (why["resultId"], why["notPassed"]) == (second["resultId"], 1)
        failure = why["failures"][0]
        assert failure["failedMetrics"][0]["metric"] == "final_response_avg_score"
        assert failure["firstDivergence"] == {
            "turn": 1,
            "user": "calc add 2 3",
            "expectedResponse": "calc result: 6",
            "actualResponse": "calc result: 5",
        }
        replay = await call(client, "replay_case", app="calculator", case_id="calc_add", result=first["resultId"])
        turn = replay["turns"][0]
        assert turn["events"][0].startswith("tool_call calculator") and turn["response"] == "calc result: 5"
        assert turn["failed"][0]["metric"] == "final_response_avg_score"

        changed = await call(client, "compare_results", app="calculator", base=first["resultId"], new="latest")
        assert changed["new"] == second["resultId"] and changed["counts"]["not_run"] == 5
        assert changed["changed"] and not changed["regressed"]

        summary = await client.read_resource(f"agentgauge://results/calculator/{first['resultId']}")
        assert json.loads(summary.contents[0].text)["metrics"]["final_response_avg_score"] == pytest.approx(0.8333)  # type: ignore[union-attr]


async def test_http_validates_files_inside_the_eval_folder_only(mcp_server: str) -> None:
    async with Client(f"{mcp_server}/mcp") as client:
        checked = await call(client, "validate_file", path="calculator/calculator.evalset.json")
        assert (checked["kind"], checked["valid"], checked["cases"]) == ("eval set", True, 6)
        metrics = await call(client, "validate_file", path="calculator/calculator.metrics.json")
        assert metrics["valid"] and metrics["metrics"] == ["tool_trajectory_avg_score", "final_response_avg_score"]
        assert "outside the eval set folder" in await refused(client, "validate_file", path="../../etc/passwd")
        assert "limit: must be a whole number from 1 to 200" in await refused(
            client, "list_results", app="calculator", limit=0
        )
        assert "no result" in await refused(client, "case_failures", app="calculator", result="label:team=nobody")
        assert "labels:" in await refused(client, "list_results", app="calculator", labels=["no-equals-sign"])


def test_http_refuses_a_foreign_host_and_other_origins(mcp_server: str) -> None:
    hello = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"accept": "application/json, text/event-stream"}
    foreign = httpx.post(f"{mcp_server}/mcp", json=hello, headers={**headers, "host": "evil.example"})
    assert foreign.status_code == 403
    cross = httpx.post(f"{mcp_server}/mcp", json=hello, headers={**headers, "origin": "http://evil.example"})
    assert cross.status_code == 403
    huge = httpx.post(f"{mcp_server}/mcp", content=b"[" * (11 * 1024 * 1024), headers=headers)
    assert huge.status_code == 413


async def test_stdio_session_reads_trpc_results_and_refuses_runs(tmp_path: Path) -> None:
    data = _calculator_data(tmp_path / "evals")
    results = tmp_path / "server" / "results" / "travel-app"
    results.mkdir(parents=True)
    shutil.copy(TRPC_RESULT, results / TRPC_RESULT.name)
    agentgauge = Path(sys.executable).parent / "agentgauge"
    params = StdioServerParameters(
        command=str(agentgauge),
        args=["mcp", str(CALCULATOR / "agent.py"), "--evals-dir", str(data), "--data-dir", str(tmp_path / "server")],
        cwd=str(tmp_path),
    )
    async with Client(params) as client:
        assert [a["app"] for a in await call(client, "list_apps")] == ["calculator"]
        listed = await call(client, "list_results", app="travel-app")
        assert [r["evalSetId"] for r in listed["results"]] == ["travel-advice"]
        why = await call(client, "case_failures", app="travel-app")
        assert why["notPassed"] == 1 and why["failures"][0]["caseId"] == "closed_on_monday"
        replay = await call(client, "replay_case", app="travel-app", case_id="museum_tickets")
        assert replay["caseScore"] == 1 and "handoff researcher" in replay["turns"][0]["events"]
        message = await refused(client, "run_evaluation", app="calculator", eval_set_id="calculator")
        assert "--mcp-allow-run" in message
