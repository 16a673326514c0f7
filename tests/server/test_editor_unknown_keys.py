"""The input checks of ``agentgauge validate`` on the server's paths: the editor's check route, saving a case (native
editor and ADK's routes), uploading an eval set, saving metrics (file and picker) and starting a run. Errors
answer 422 naming the field and nothing is saved or run; warnings come with the answer; ``strict_inputs``
(``serve --strict``) makes every warning an error."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app
from agentgauge.server._editor import WARNINGS_HEADER

ROOT = Path(__file__).resolve().parents[2]
ADK_SET = ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json"
NATIVE_SET = ROOT / "examples/calculator/calculator.evalset.json"
AGENT = ROOT / "examples/calculator/agent.py"
APP = "app"
API = f"/api/apps/{APP}/eval-sets"


def _server(tmp_path: Path, *, strict: bool = False) -> tuple[httpx.AsyncClient, Path]:
    folder = tmp_path / "data" / APP
    folder.mkdir(parents=True)
    shutil.copy(ADK_SET, folder / "home.evalset.json")
    shutil.copy(NATIVE_SET, folder / "calc.evalset.json")
    config = ServerConfig(data_dir=tmp_path / "data", agents={APP: str(AGENT)}, strict_inputs=strict)
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1"), folder


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The server over a data directory holding an ADK set ``home`` and a native set ``calc``."""
    http, folder = _server(tmp_path)
    async with http:
        http.folder = folder  # type: ignore[attr-defined]
        yield http


@pytest.fixture
async def strict_client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The same server, with ``strict_inputs``."""
    http, folder = _server(tmp_path, strict=True)
    async with http:
        http.folder = folder  # type: ignore[attr-defined]
        yield http


async def _native_case(client: httpx.AsyncClient, set_id: str, case_id: str) -> dict[str, Any]:
    got = await client.get(f"{API}/{set_id}/cases/{case_id}")
    assert got.status_code == 200, got.text
    case: dict[str, Any] = got.json()
    return case


async def _adk_case(client: httpx.AsyncClient) -> dict[str, Any]:
    got = await client.get(f"/dev/apps/{APP}/eval-sets/home/eval-cases/eval_case_id")
    assert got.status_code == 200, got.text
    case: dict[str, Any] = got.json()
    return case


def _warnings(response: httpx.Response) -> list[dict[str, Any]]:
    header = response.headers.get(WARNINGS_HEADER)
    return json.loads(header) if header else []


async def test_check_route_judges_a_case_by_its_shape(client: httpx.AsyncClient) -> None:
    case = await _native_case(client, "home", "eval_case_id")  # the editor shows an ADK file's case natively
    case["conversaton"] = case.pop("conversation")
    checked = (await client.post(f"{API}/home/cases/eval_case_id/check", json=case)).json()
    assert checked["dialect"] == "native" and checked["blocking"] is False
    [key] = checked["unknownKeys"]
    assert (key["path"], key["key"], key["didYouMean"], key["severity"]) == (
        "conversaton",
        "conversaton",
        "conversation",
        "warning",
    )
    adk = await _adk_case(client)
    adk["conversation"][0]["finalRespons"] = adk["conversation"][0].pop("finalResponse")
    checked = (await client.post(f"{API}/home/cases/eval_case_id/check", json=adk)).json()
    assert checked["dialect"] == "adk" and checked["blocking"] is True
    assert [k["message"] for k in checked["unknownKeys"]] == [
        "unknown key 'finalRespons' (did you mean 'finalResponse'?); ADK's Invocation refuses it"
    ]
    clean = await _native_case(client, "calc", "calc_add")
    checked = (await client.post(f"{API}/calc/cases/calc_add/check", json=clean)).json()
    assert checked == {"dialect": "native", "blocking": False, "unknownKeys": []}


async def test_a_key_adks_model_refuses_is_not_saved(client: httpx.AsyncClient) -> None:
    path = client.folder / "home.evalset.json"  # type: ignore[attr-defined]
    before = path.read_bytes()
    adk = await _adk_case(client)
    adk["conversation"][0]["finalRespons"] = adk["conversation"][0].pop("finalResponse")
    for url in (f"{API}/home/cases/eval_case_id", f"/dev/apps/{APP}/eval-sets/home/eval-cases/eval_case_id"):
        saved = await client.put(url, json=adk)
        assert saved.status_code == 422, url
        detail = saved.json()["detail"]
        assert "conversation[0].finalRespons: unknown key 'finalRespons' (did you mean 'finalResponse'?)" in detail
        assert "ADK's Invocation refuses it" in detail and "Traceback" not in detail
    assert path.read_bytes() == before


async def test_adks_routes_keep_what_adks_eval_case_keeps(client: httpx.AsyncClient) -> None:
    adk = await _adk_case(client)
    adk["notes"] = "kept"
    saved = await client.put(f"/dev/apps/{APP}/eval-sets/home/eval-cases/eval_case_id", json=adk)
    assert saved.status_code == 200, saved.text
    stored = json.loads((client.folder / "home.evalset.json").read_bytes())  # type: ignore[attr-defined]
    assert stored["eval_cases"][0]["notes"] == "kept"


async def test_a_native_case_saves_with_its_warnings(client: httpx.AsyncClient) -> None:
    case = await _native_case(client, "calc", "calc_add")
    case["note_for_me"] = "kept"
    saved = await client.put(f"{API}/calc/cases/calc_add", json=case)
    assert saved.status_code == 200, saved.text
    [warning] = _warnings(saved)
    assert (warning["path"], warning["severity"]) == ("note_for_me", "warning")
    stored = json.loads((client.folder / "calc.evalset.json").read_bytes())  # type: ignore[attr-defined]
    assert stored["evalCases"][0]["note_for_me"] == "kept"


async def test_strict_inputs_refuse_every_warning(strict_client: httpx.AsyncClient) -> None:
    client = strict_client
    case = await _native_case(client, "calc", "calc_add")
    case["note_for_me"] = "x"
    checked = (await client.post(f"{API}/calc/cases/calc_add/check", json=case)).json()
    assert checked["blocking"] is True and checked["unknownKeys"][0]["message"].endswith("(serve --strict)")
    saved = await client.put(f"{API}/calc/cases/calc_add", json=case)
    assert saved.status_code == 422 and "note_for_me: unknown key 'note_for_me'" in saved.json()["detail"]
    metrics = [{"metricName": "tool_trajectory_avg_score", "treshold": 1}]
    put = await client.put(f"{API}/calc/metrics", json=metrics)
    assert put.status_code == 422 and "[0].treshold" in put.json()["detail"]


async def test_a_missing_set_is_404_not_a_crash(client: httpx.AsyncClient) -> None:
    checked = await client.post(f"{API}/nope/cases/x/check", json={"evalId": "x"})
    assert checked.status_code == 404
    put = await client.put(f"/dev/apps/{APP}/eval-sets/nope/eval-cases/x", json={"evalId": "x", "conversation": []})
    assert put.status_code == 404


@pytest.mark.parametrize(
    ("source", "edit", "valid", "field", "path", "tail"),
    [
        (ADK_SET, "turn", False, "errors", "eval_cases[0].conversation[0].final_respons", "Invocation refuses it"),
        (ADK_SET, "case", True, "warnings", "eval_cases[0].notes", "(ADK's EvalCase keeps it)"),
        (NATIVE_SET, "case", True, "warnings", "evalCases[0].notes", "trpc-agent-go ignore it)"),
    ],
    ids=["adk invocation", "adk case", "native case"],
)
async def test_upload_validation_reports_unknown_keys(
    client: httpx.AsyncClient, source: Path, edit: str, valid: bool, field: str, path: str, tail: str
) -> None:
    doc = json.loads(source.read_text())
    case = (doc.get("evalCases") or doc["eval_cases"])[0]
    if edit == "case":
        case["notes"] = "x"
    else:
        case["conversation"][0]["final_respons"] = case["conversation"][0].pop("final_response")
    files = {"eval_set_file": ("set.evalset.json", json.dumps(doc).encode(), "application/json")}
    answered = await client.post("/api/validate/eval-set", files=files)
    assert answered.status_code == 200
    data = answered.json()["data"]
    assert data["valid"] is valid
    [key] = data["unknownKeys"]
    assert key["path"] == path and key["message"].endswith(tail)
    assert data[field] == [f"set.evalset.json: {path}: {key['message']}"]


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"criteria": {"response_match": 0.8}}, 400, "criteria.response_match: unknown metric 'response_match' (did"),
        ({"criteria": {"response_match_score": 80}}, 400, "criteria.response_match_score: threshold 80 is outside"),
        ([{"metricName": "nope_metric"}], 400, "[0].metricName: unknown metric"),
        (
            {"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_sample": 1}}}},
            422,
            "criteria.final_response_match_v2.judge_model_options.num_sample: unknown key 'num_sample'",
        ),
    ],
    ids=["metric name", "threshold", "array metric name", "key ADK refuses"],
)
async def test_saving_metrics_refuses_what_validate_refuses(
    client: httpx.AsyncClient, body: Any, status: int, field: str
) -> None:
    put = await client.put(f"{API}/calc/metrics", json=body)
    assert put.status_code == status, put.text
    assert field in (put.json().get("error") or put.json()["detail"])
    assert not (client.folder / "calc.metrics.json").exists()  # type: ignore[attr-defined]


async def test_saving_metrics_answers_its_warnings(client: httpx.AsyncClient) -> None:
    body = [{"metricName": "tool_trajectory_avg_score", "criterion": {"toolTrajectory": {"orderSensitve": True}}}]
    put = await client.put(f"{API}/calc/metrics", json=body)
    assert put.status_code == 200, put.text
    [warning] = _warnings(put)
    assert warning["path"] == "[0].criterion.toolTrajectory.orderSensitve"
    assert warning["didYouMean"] == "orderSensitive"


async def test_a_run_reads_the_checked_inputs_only(client: httpx.AsyncClient) -> None:
    folder: Path = client.folder  # type: ignore[attr-defined]
    doc = json.loads(NATIVE_SET.read_text())
    doc["evalCases"][0]["notes"] = "x"
    (folder / "calc.evalset.json").write_text(json.dumps(doc))
    (folder / "calc.metrics.json").write_text('[{"metricName": "tool_trajectory_avg_score", "treshold": 1}]')
    started = await client.post(f"{API}/calc/runs", json={"caseIds": ["calc_add"]})
    assert started.status_code == 202, started.text
    assert [w["path"] for w in started.json()["warnings"]] == ["evalCases[0].notes", "[0].treshold"]
    adk = json.loads(ADK_SET.read_text())
    turn = adk["eval_cases"][0]["conversation"][0]
    turn["final_respons"] = turn.pop("final_response")
    (folder / "home.evalset.json").write_text(json.dumps(adk))
    refused = await client.post(f"{API}/home/runs", json={})
    assert refused.status_code == 422
    assert "eval_cases[0].conversation[0].final_respons: unknown key" in refused.json()["detail"]
    (folder / "calc.metrics.json").write_text('{"criteria": {"response_match_score": 80}}')
    refused = await client.post(f"{API}/calc/runs", json={})
    assert refused.status_code == 400 and "criteria.response_match_score: threshold 80" in refused.json()["error"]


async def test_the_metric_picker_saves_checked_metrics(client: httpx.AsyncClient) -> None:
    folder: Path = client.folder  # type: ignore[attr-defined]
    url = f"{API}/calc/metric-picker"
    body = {"metrics": [{"metricName": "response_match_score", "threshold": 80}]}
    refused = await client.put(url, json=body)
    assert refused.status_code == 400 and "[0].threshold: threshold 80 is outside" in refused.json()["error"]
    assert not (folder / "calc.metrics.json").exists()
    # an entry's other options are kept, unknown keys too: saved, with the warning
    entry = '{"metricName": "response_match_score", "threshold": 0.5, "treshold": 1}'
    (folder / "calc.metrics.json").write_text(f"[{entry}]")
    saved = await client.put(url, json={"metrics": [{"metricName": "response_match_score", "threshold": 0.7}]})
    assert saved.status_code == 200, saved.text
    assert [w["path"] for w in _warnings(saved)] == ["[0].treshold"]
