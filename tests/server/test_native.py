"""agentgauge's /api: eval sets and cases, metrics files, background runs with server-sent progress, results,
the HTML report, comparison, validation and the OpenAPI page."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from agentgauge.server import ServerConfig, create_app

SLOW_AGENT = """
import asyncio
from agentgauge.agents import AgentOutput

async def root_agent(request):
    await asyncio.sleep(0.3)
    return AgentOutput(final_response="slow " + request.user_content.content)
"""


async def _events(client: httpx.AsyncClient, run_id: str) -> list[dict[str, Any]]:
    response = await client.get(f"/api/runs/{run_id}/events")
    assert response.headers["content-type"].startswith("text/event-stream")
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


async def test_apps_sets_and_cases(client: httpx.AsyncClient, data_dir: Path) -> None:
    apps = (await client.get("/api/apps")).json()
    assert apps == [{"name": "calculator", "hasAgent": True, "evalSets": ["calculator"]}]
    sets = (await client.get("/api/apps/calculator/eval-sets")).json()
    assert sets[0]["evalSetId"] == "calculator" and "calc_add" in sets[0]["caseIds"]
    created = await client.post("/api/apps/calculator/eval-sets", json={"evalSetId": "mine"})
    assert created.status_code == 201 and created.json()["evalSetId"] == "mine"
    case = (await client.get("/api/apps/calculator/eval-sets/calculator/cases/calc_add")).json()
    assert case["conversation"][0]["userContent"]["content"] == "calc add 2 3"
    case["conversation"][0]["finalResponse"]["content"] = "calc result: 6"
    saved = await client.put("/api/apps/calculator/eval-sets/calculator/cases/calc_add", json=case)
    assert saved.status_code == 200 and saved.json()["conversation"][0]["finalResponse"]["content"] == "calc result: 6"
    on_disk = json.loads((data_dir / "calculator" / "calculator.evalset.json").read_text())
    assert on_disk["evalCases"][0]["conversation"][0]["finalResponse"]["content"] == "calc result: 6"
    # An invalid case is refused with the JSON path of the problem, and the file is left alone.
    bad = await client.put("/api/apps/calculator/eval-sets/calculator/cases/calc_add", json={"conversation": 5})
    assert bad.status_code == 400 and "conversation" in bad.json()["error"]
    assert json.loads((data_dir / "calculator" / "calculator.evalset.json").read_text()) == on_disk
    wrong_id = await client.put("/api/apps/calculator/eval-sets/calculator/cases/calc_add", json={"evalId": "x"})
    assert wrong_id.status_code == 400 and "does not match" in wrong_id.json()["error"]
    assert (await client.delete("/api/apps/calculator/eval-sets/calculator/cases/calc_add")).status_code == 204
    assert (await client.get("/api/apps/calculator/eval-sets/calculator/cases/calc_add")).status_code == 404
    assert (await client.delete("/api/apps/calculator/eval-sets/mine")).status_code == 204
    assert (await client.get("/api/apps/calculator/eval-sets/mine")).status_code == 404


async def test_metrics_file(client: httpx.AsyncClient, data_dir: Path) -> None:
    got = (await client.get("/api/apps/calculator/eval-sets/calculator/metrics")).json()
    assert [m["metricName"] for m in got] == ["tool_trajectory_avg_score", "final_response_avg_score"]
    new = [{"metricName": "response_match_score", "threshold": 0.5}]
    put = await client.put("/api/apps/calculator/eval-sets/calculator/metrics", json=new)
    assert put.status_code == 200
    on_disk = json.loads((data_dir / "calculator" / "calculator.metrics.json").read_text())
    assert on_disk == [{"metricName": "response_match_score", "threshold": 0.5}]
    bad = await client.put("/api/apps/calculator/eval-sets/calculator/metrics", json=[{"metricName": "nope"}])
    assert bad.status_code == 400 and "unknown metric 'nope'" in bad.json()["error"]
    assert (await client.get("/api/apps/calculator/eval-sets/none/metrics")).json() == []
    listed = {m["name"]: m for m in (await client.get("/api/metrics")).json()}
    assert listed["response_evaluation_score"]["maxValue"] == 5.0 and listed["safety_v1"]["needsJudge"] is True


async def test_background_run_with_progress_events(client: httpx.AsyncClient) -> None:
    body = {"caseIds": ["calc_add", "calc_divide"], "numRuns": 2, "parallelism": 2}
    started = await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=body)
    assert started.status_code == 202
    run = started.json()
    assert run["total"] == 4 and set(run["cases"]) == {"calc_add", "calc_divide"}
    events = await _events(client, run["runId"])
    kinds = [e["event"] for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert kinds.count("case_started") == 4 and kinds.count("case_finished") == 4
    finished = [e for e in events if e["event"] == "case_finished"]
    assert sorted(e["done"] for e in finished) == [1, 2, 3, 4]
    assert {e["status"] for e in finished} == {"passed"}
    assert finished[0]["scores"] == {"tool_trajectory_avg_score": 1.0, "final_response_avg_score": 1.0}
    status = (await client.get(f"/api/runs/{run['runId']}")).json()
    assert status["status"] == "finished" and status["done"] == 4 and status["cases"]["calc_add"] == "passed"
    result_id = events[-1]["resultId"]
    result = (await client.get(f"/api/apps/calculator/results/{result_id}")).json()
    assert result["summary"]["numRuns"] == 2 and len(result["evalCaseResults"]) == 4
    # The bootstrap intervals and flaky cases of the JSON report ride along (issue 28).
    statistics = result["summary"]["statistics"]
    assert statistics["passRate"] == {"value": 1.0, "low": 1.0, "high": 1.0} and statistics["flakyCases"] == []
    assert statistics["resamples"] == 10_000 and statistics["seed"] == 0
    rows = (await client.get("/api/apps/calculator/results?evalSetId=calculator")).json()
    # The result list counts the cases once each, and the case runs apart.
    assert rows[0]["evalSetResultId"] == result_id
    assert rows[0]["counts"] == {"passed": 2, "failed": 0, "error": 0, "not_evaluated": 0}
    assert rows[0]["caseRuns"] == {"passed": 4, "failed": 0, "error": 0, "not_evaluated": 0}
    # ?since= skips events already seen.
    assert [e["seq"] for e in await _events(client, run["runId"])][-1] == events[-1]["seq"]
    later = (await client.get(f"/api/runs/{run['runId']}/events?since={events[-1]['seq']}")).text
    assert later.count("data: ") == 1


async def test_run_with_chosen_metrics_and_bad_requests(client: httpx.AsyncClient) -> None:
    body = {"caseIds": ["calc_add"], "metrics": [{"metricName": "response_match_score", "threshold": 0.5}]}
    run = (await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=body)).json()
    events = await _events(client, run["runId"])
    finished = [e for e in events if e["event"] == "case_finished"]
    assert list(finished[0]["scores"]) == ["response_match_score"]
    for bad, message, status in (
        ({"caseIds": ["nope"]}, "nope", 400),
        ({"metrics": [{"metricName": "nope"}]}, "unknown metric", 400),
        ({"numRuns": 0}, "numRuns", 400),
        ({"parallelism": 1000}, "parallelism", 400),
        ({"caseIds": "calc_add"}, "caseIds", 422),  # a wrong JSON type: 422, as ADK answers
    ):
        response = await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=bad)
        assert response.status_code == status, bad
        assert message in response.json()["error"]
    assert (await client.post("/api/apps/calculator/eval-sets/nope/runs", json={})).status_code == 404
    assert (await client.get("/api/runs/unknown")).status_code == 404


async def test_a_run_names_its_case_status_rule(client: httpx.AsyncClient) -> None:
    body = {"caseIds": ["calc_add"], "numRuns": 2, "caseStatus": "all"}
    run = (await client.post("/api/apps/calculator/eval-sets/calculator/runs", json=body)).json()
    events = await _events(client, run["runId"])
    result_id = events[-1]["resultId"]
    result = (await client.get(f"/api/apps/calculator/results/{result_id}")).json()
    assert result["summary"]["caseStatusRule"] == "all"
    cases = (await client.get(f"/api/apps/calculator/results/{result_id}/cases")).json()["cases"]
    assert [(c["evalId"], c["statusText"]) for c in cases] == [
        ("calc_add", "passed (2/2 runs passed; rule: all runs pass)")
    ]
    bad = await client.post("/api/apps/calculator/eval-sets/calculator/runs", json={"caseStatus": "most"})
    assert bad.status_code == 422 and "caseStatus" in bad.text


async def test_long_runs_do_not_block_other_requests(tmp_path: Path) -> None:
    app_dir = tmp_path / "slow"
    app_dir.mkdir()
    (app_dir / "agent.py").write_text(SLOW_AGENT)
    cases = [{"evalId": f"c{i}", "conversation": [{"userContent": {"content": str(i)}}]} for i in range(6)]
    (app_dir / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    config = ServerConfig(data_dir=tmp_path, agents={"slow": str(app_dir / "agent.py")})
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        body = {"parallelism": 1, "metrics": []}
        run = (await client.post("/api/apps/slow/eval-sets/s/runs", json=body)).json()
        listed = await client.get("/api/apps")  # answered while the run goes on (its status says so below)
        assert listed.status_code == 200
        assert (await client.get(f"/api/runs/{run['runId']}")).json()["status"] == "running"
        for _ in range(100):
            if (await client.get(f"/api/runs/{run['runId']}")).json()["status"] != "running":
                break
            await asyncio.sleep(0.1)
        assert (await client.get(f"/api/runs/{run['runId']}")).json()["status"] == "finished"


async def test_report_and_compare(client: httpx.AsyncClient) -> None:
    async def run() -> str:
        started = await client.post("/api/apps/calculator/eval-sets/calculator/runs", json={"caseIds": ["calc_add"]})
        return str((await _events(client, started.json()["runId"]))[-1]["resultId"])

    before = await run()
    case = (await client.get("/api/apps/calculator/eval-sets/calculator/cases/calc_add")).json()
    case["conversation"][0]["finalResponse"]["content"] = "calc result: 6"
    await client.put("/api/apps/calculator/eval-sets/calculator/cases/calc_add", json=case)
    after = await run()
    report = await client.get(f"/api/apps/calculator/results/{after}/report.html")
    assert report.headers["content-type"].startswith("text/html")
    assert "<del>6</del>" in report.text and "<ins>5</ins>" in report.text
    diff = (await client.get(f"/api/apps/calculator/compare?base={before}&new={after}")).json()
    # The compare package's model, camelCase: what `agentgauge compare --json` prints.
    assert diff["regressed"] is True
    assert (diff["base"]["source"], diff["new"]["source"]) == (before, after)
    assert (diff["base"]["passedCases"], diff["new"]["passedCases"]) == (1, 0)
    (row,) = diff["cases"]
    sides = (row["evalId"], row["change"], row["baseStatus"], row["newStatus"])
    assert sides == ("calc_add", "broken", "passed", "failed")
    assert (row["basePassedRuns"], row["newPassedRuns"]) == (1, 0)
    assert row["reason"].startswith("final_response_avg_score (invocation 1): score 0 < threshold 1")
    assert row["baseMetrics"]["final_response_avg_score"] == 1.0
    assert row["newMetrics"]["final_response_avg_score"] == 0.0
    deltas = {m["metricName"]: m for m in diff["metrics"]}
    assert deltas["final_response_avg_score"]["delta"] == -1.0
    assert diff["passAtK"] == [{"k": 1, "basePassAtK": 1.0, "newPassAtK": 0.0, "basePassHatK": 1.0,
                                "newPassHatK": 0.0}]  # fmt: skip
    assert diff["significance"]["test"] == "mcnemar_exact"
    assert "some cases ran once" in " ".join(diff["notes"])
    rate = diff["estimates"][0]  # one case: a change with no interval to draw
    assert (rate["name"], rate["base"], rate["new"], rate["delta"]) == ("pass rate (runs)", 1.0, 0.0, -1.0)
    assert "low" not in rate
    # `head` is kept as a synonym of `new`; giving neither is a 400 naming the parameter.
    legacy = (await client.get(f"/api/apps/calculator/compare?base={before}&head={after}")).json()
    assert legacy["cases"] == diff["cases"]
    missing = await client.get(f"/api/apps/calculator/compare?base={before}")
    assert missing.status_code == 400 and "'new'" in missing.text
    assert (await client.get(f"/api/apps/calculator/compare?base={before}&head=nope")).status_code == 404


async def test_validate_eval_set_like_agentevals(client: httpx.AsyncClient) -> None:
    good = Path(__file__).resolve().parents[2] / "examples" / "calculator" / "calculator.evalset.json"
    response = await client.post("/api/validate/eval-set", files={"eval_set_file": (good.name, good.read_bytes())})
    answer = response.json()
    agentevals_keys = {k: answer["data"][k] for k in ("valid", "evalSetId", "numCases", "errors")}
    assert agentevals_keys == {"valid": True, "evalSetId": "calculator", "numCases": 6, "errors": []}
    assert answer["error"] is None and answer["data"]["unknownKeys"] == [] and answer["data"]["warnings"] == []
    bad = b'{"evalSetId": "x", "evalCases": [{"evalId": 3}]}'
    response = await client.post("/api/validate/eval-set", files={"eval_set_file": ("bad.json", bad)})
    data = response.json()["data"]
    assert data["valid"] is False and data["numCases"] == 0
    assert "bad.json" in data["errors"][0] and "evalCases[0].evalId" in data["errors"][0]
    missing = await client.post("/api/validate/eval-set", files={"other": ("a.json", b"{}")})
    assert missing.status_code == 422


async def test_openapi_docs(client: httpx.AsyncClient) -> None:
    docs = await client.get("/docs")
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    # Rendered on the server: no script, nothing fetched from a CDN.
    assert "<script" not in docs.text and "cdn" not in docs.text.lower()
    assert '<code class="p">/dev/apps/{app_name}/eval-sets/{eval_set_id}/run</code>' in docs.text
    assert '<span class="m post">post</span><code class="p">/api/apps/{app}/eval-sets/{set_id}/runs</code>' in docs.text
    assert "<td><code>app_name</code></td><td>path</td><td>required</td>" in docs.text
    assert (await client.get("/redoc")).status_code != 200
    schema = (await client.get("/openapi.json")).json()
    for path in ("/dev/apps/{app_name}/eval-sets/{eval_set_id}/run", "/api/runs/{run_id}/events", "/run_sse"):
        assert path in schema["paths"]


async def test_ui_assets_are_served(client: httpx.AsyncClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200 and '<script src="/static/app.js">' in page.text
    for asset in ("/static/app.js", "/static/style.css", "/static/favicon.svg"):
        assert (await client.get(asset)).status_code == 200
    assert "http" not in "".join(line for line in page.text.splitlines() if "src=" in line or "href=" in line)


async def test_concurrent_writes_lose_nothing(client: httpx.AsyncClient, data_dir: Path) -> None:
    """Requests run in parallel threads; the managers' file locks keep every change."""
    await client.post("/api/apps/calculator/eval-sets", json={"evalSetId": "busy"})
    sessions = []
    for i in range(12):
        created = await client.post("/apps/calculator/users/u/sessions", json={"sessionId": f"s{i}"})
        sessions.append(created.json()["id"])
    adds = [
        client.post(
            "/dev/apps/calculator/eval-sets/busy/add-session", json={"evalId": f"c{i}", "sessionId": s, "userId": "u"}
        )
        for i, s in enumerate(sessions)
    ]
    case = (await client.get("/api/apps/calculator/eval-sets/calculator/cases/calc_add")).json()
    edits = [
        client.put("/api/apps/calculator/eval-sets/calculator/cases/calc_add", json={**case, "note": i})
        for i in range(8)
    ]
    responses = await asyncio.gather(*adds, *edits)
    assert all(r.status_code == 200 for r in responses), [r.text for r in responses if r.status_code != 200]
    stored = json.loads((data_dir / "calculator" / "busy.evalset.json").read_text())
    assert sorted(c["evalId"] for c in stored["evalCases"]) == sorted(f"c{i}" for i in range(12))
    calculator = json.loads((data_dir / "calculator" / "calculator.evalset.json").read_text())
    assert len(calculator["evalCases"]) == 6
