"""Unknown keys through the server: the editor's check route names them, saving one into an ADK file answers 422
naming its JSON path (nothing written), a native file keeps them, and the upload validation route reports them."""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
ADK_SET = ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json"
NATIVE_SET = ROOT / "examples/calculator/calculator.evalset.json"
APP = "app"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The server over a data directory holding an ADK set ``home`` and a native set ``calc``."""
    folder = tmp_path / "data" / APP
    folder.mkdir(parents=True)
    shutil.copy(ADK_SET, folder / "home.evalset.json")
    shutil.copy(NATIVE_SET, folder / "calc.evalset.json")
    transport = httpx.ASGITransport(app=create_app(ServerConfig(data_dir=tmp_path / "data")), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        http.folder = folder  # type: ignore[attr-defined]
        yield http


async def _native_case(client: httpx.AsyncClient, set_id: str, case_id: str) -> dict[str, object]:
    got = await client.get(f"/api/apps/{APP}/eval-sets/{set_id}/cases/{case_id}")
    assert got.status_code == 200, got.text
    case: dict[str, object] = got.json()
    return case


async def test_check_route_names_the_keys_and_the_dialect(client: httpx.AsyncClient) -> None:
    case = await _native_case(client, "home", "eval_case_id")
    case["conversaton"] = case.pop("conversation")
    checked = await client.post(f"/api/apps/{APP}/eval-sets/home/cases/eval_case_id/check", json=case)
    assert checked.status_code == 200
    assert checked.json() == {
        "dialect": "adk",
        "blocking": True,
        "unknownKeys": [{"path": "conversaton", "key": "conversaton", "didYouMean": "conversation"}],
    }
    clean = await _native_case(client, "calc", "calc_add")
    checked = await client.post(f"/api/apps/{APP}/eval-sets/calc/cases/calc_add/check", json=clean)
    assert checked.json() == {"dialect": "native", "blocking": False, "unknownKeys": []}


async def test_an_adk_file_refuses_unknown_keys_with_422(client: httpx.AsyncClient) -> None:
    path = client.folder / "home.evalset.json"  # type: ignore[attr-defined]
    before = path.read_bytes()
    case = await _native_case(client, "home", "eval_case_id")
    case["conversation"][0]["finalRespons"] = case["conversation"][0].pop("finalResponse")  # type: ignore[index]
    saved = await client.put(f"/api/apps/{APP}/eval-sets/home/cases/eval_case_id", json=case)
    assert saved.status_code == 422
    detail = saved.json()["detail"]
    assert "conversation[0].finalRespons: unknown key 'finalRespons' (did you mean 'finalResponse'?)" in detail
    assert "ADK" in detail and "Traceback" not in detail
    adk_case = (await client.get(f"/dev/apps/{APP}/eval-sets/home/eval-cases/eval_case_id")).json()
    adk_case["sessionInput"]["usrId"] = "x"
    saved = await client.put(f"/dev/apps/{APP}/eval-sets/home/eval-cases/eval_case_id", json=adk_case)
    assert saved.status_code == 422 and "sessionInput.usrId" in saved.json()["detail"]
    assert path.read_bytes() == before


async def test_a_native_file_keeps_unknown_keys(client: httpx.AsyncClient) -> None:
    case = await _native_case(client, "calc", "calc_add")
    case["note_for_me"] = "kept"
    saved = await client.put(f"/api/apps/{APP}/eval-sets/calc/cases/calc_add", json=case)
    assert saved.status_code == 200, saved.text
    stored = json.loads((client.folder / "calc.evalset.json").read_bytes())  # type: ignore[attr-defined]
    assert stored["evalCases"][0]["note_for_me"] == "kept"


async def test_a_missing_set_is_404_not_a_crash(client: httpx.AsyncClient) -> None:
    checked = await client.post(f"/api/apps/{APP}/eval-sets/nope/cases/x/check", json={"evalId": "x"})
    assert checked.status_code == 404
    put = await client.put(f"/dev/apps/{APP}/eval-sets/nope/eval-cases/x", json={"evalId": "x", "conversation": []})
    assert put.status_code == 404


@pytest.mark.parametrize(
    ("source", "valid", "field", "path"),
    [
        (ADK_SET, False, "errors", "eval_cases[0].conversaton"),
        (NATIVE_SET, True, "warnings", "evalCases[0].conversaton"),
    ],
)
async def test_upload_validation_reports_unknown_keys(
    client: httpx.AsyncClient, source: Path, valid: bool, field: str, path: str
) -> None:
    doc = json.loads(source.read_text())
    cases = doc.get("evalCases") or doc["eval_cases"]
    cases[0]["conversaton"] = cases[0].pop("conversation")
    files = {"eval_set_file": ("set.evalset.json", json.dumps(doc).encode(), "application/json")}
    answered = await client.post("/api/validate/eval-set", files=files)
    assert answered.status_code == 200
    data = answered.json()["data"]
    assert data["valid"] is valid
    assert data["unknownKeys"] == [{"path": path, "key": "conversaton", "didYouMean": "conversation"}]
    assert data[field] == [f"set.evalset.json: {path}: unknown key 'conversaton' (did you mean 'conversation'?)"]
