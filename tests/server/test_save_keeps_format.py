"""Every write through the server keeps an ADK eval set an ADK eval set.

For every eval set in examples/ and the test data that google-adk's own ``EvalSet.model_validate_json`` accepts, the
server saves a case unchanged, saves an edited case, adds a chat session as a case and deletes a case. After each
write google-adk still loads the file, and every case the write did not touch is exactly what it was (same keys, same
spelling, same values); saving an unchanged case leaves the file's bytes alone.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("google.adk.evaluation.eval_set")

from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"
APP = "calculator"


def _adk_sets() -> list[Path]:
    """Every JSON file under examples/ and tests/**/data that ADK loads as an eval set."""
    candidates = sorted({*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/**/data/**/*.json")})
    found = []
    for path in candidates:
        data = path.read_bytes()
        if b"eval_cases" not in data and b"evalCases" not in data:
            continue
        try:
            AdkEvalSet.model_validate_json(data)
        except ValueError:
            continue
        found.append(path)
    return found


ADK_SETS = _adk_sets()


def test_the_examples_and_test_data_hold_adk_sets() -> None:
    names = {p.name for p in ADK_SETS}
    assert "home_automation_agent_light_on_off_set.evalset.json" in names
    assert len(ADK_SETS) >= 5, names


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The server over an empty data directory serving the calculator agent (whose chats become cases)."""
    config = ServerConfig(data_dir=tmp_path / "data", agents={APP: str(CALCULATOR / "agent.py")})
    (tmp_path / "data" / APP).mkdir(parents=True)
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        http.data_dir = tmp_path / "data"  # type: ignore[attr-defined]
        yield http


def _install(client: httpx.AsyncClient, source: Path) -> tuple[str, Path]:
    set_id = source.name.removesuffix(".json").removesuffix(".evalset")
    target = client.data_dir / APP / f"{set_id}.evalset.json"  # type: ignore[attr-defined]
    shutil.copy(source, target)
    return set_id, target


def _cases(data: bytes) -> dict[str, Any]:
    """The raw cases of an eval set file by id (raw: every key as spelled in the file)."""
    doc = json.loads(data)
    cases = doc.get("eval_cases", doc.get("evalCases"))
    return {c.get("eval_id", c.get("evalId")): c for c in cases}


def _adk_loads(path: Path) -> AdkEvalSet:
    return AdkEvalSet.model_validate_json(path.read_bytes())


def _unchanged_except(before: bytes, after: Path, *ids: str) -> None:
    """ADK loads ``after``; every case of ``before`` but ``ids`` is there, raw and as ADK reads it, unchanged."""
    loaded = {c.eval_id: c for c in _adk_loads(after).eval_cases}
    original = {c.eval_id: c for c in AdkEvalSet.model_validate_json(before).eval_cases}
    raw_before, raw_after = _cases(before), _cases(after.read_bytes())
    for case_id in original:
        if case_id in ids:
            continue
        assert loaded[case_id] == original[case_id], case_id
        assert raw_after[case_id] == raw_before[case_id], case_id
    before_top = {k: v for k, v in json.loads(before).items() if k not in ("eval_cases", "evalCases")}
    after_top = {k: v for k, v in json.loads(after.read_bytes()).items() if k not in ("eval_cases", "evalCases")}
    assert after_top == before_top


async def _chat(client: httpx.AsyncClient, text: str) -> str:
    created = await client.post(f"/apps/{APP}/users/u1/sessions", json={})
    assert created.status_code == 200, created.text
    session_id: str = created.json()["id"]
    message = {"role": "user", "parts": [{"text": text}]}
    body = {"appName": APP, "userId": "u1", "sessionId": session_id, "newMessage": message}
    ran = await client.post("/run", json=body)
    assert ran.status_code == 200, ran.text
    return session_id


@pytest.mark.parametrize("source", ADK_SETS, ids=lambda p: p.name)
async def test_saving_a_case_unchanged_keeps_the_file(client: httpx.AsyncClient, source: Path) -> None:
    set_id, path = _install(client, source)
    before = path.read_bytes()
    for case_id in _cases(before):
        url = f"/api/apps/{APP}/eval-sets/{set_id}/cases/{case_id}"
        saved = await client.put(url, json=(await client.get(url)).json())
        assert saved.status_code == 200, saved.text
    assert path.read_bytes() == before


def _without_timestamps(case: Any) -> Any:
    data = case.model_dump(mode="json", exclude_none=True)
    data.pop("creation_timestamp", None)
    for inv in data.get("conversation") or []:
        inv.pop("creation_timestamp", None)
    return data


@pytest.mark.parametrize("source", ADK_SETS, ids=lambda p: p.name)
async def test_saving_through_the_adk_route_keeps_an_adk_file(client: httpx.AsyncClient, source: Path) -> None:
    # ADK's routes answer without nulls (as ADK does), so what comes back may differ in spelling but not in meaning.
    set_id, path = _install(client, source)
    before = path.read_bytes()
    original = {c.eval_id: c for c in AdkEvalSet.model_validate_json(before).eval_cases}
    saved_ids: list[str] = []
    for case_id in _cases(before):
        url = f"/dev/apps/{APP}/eval-sets/{set_id}/eval-cases/{case_id}"
        saved = await client.put(url, json=(await client.get(url)).json())
        assert saved.status_code == 200, saved.text
        saved_ids.append(case_id)
        _unchanged_except(before, path, *saved_ids)
        after = next(c for c in _adk_loads(path).eval_cases if c.eval_id == case_id)
        assert _without_timestamps(after) == _without_timestamps(original[case_id])


@pytest.mark.parametrize("source", ADK_SETS, ids=lambda p: p.name)
async def test_saving_an_edited_case_keeps_the_dialect(client: httpx.AsyncClient, source: Path) -> None:
    set_id, path = _install(client, source)
    before = path.read_bytes()
    case_id = next(iter(_cases(before)))
    url = f"/api/apps/{APP}/eval-sets/{set_id}/cases/{case_id}"
    case = (await client.get(url)).json()
    case["conversation"][0]["userContent"]["content"] = "an edited question"
    saved = await client.put(url, json=case)
    assert saved.status_code == 200, saved.text
    _unchanged_except(before, path, case_id)
    edited = next(c for c in _adk_loads(path).eval_cases if c.eval_id == case_id)
    assert edited.conversation is not None
    assert edited.conversation[0].user_content.parts[0].text == "an edited question"
    assert "eval_id" in _cases(path.read_bytes())[case_id]  # the file's snake_case spelling


@pytest.mark.parametrize("source", ADK_SETS, ids=lambda p: p.name)
async def test_adding_a_chat_session_keeps_the_dialect(client: httpx.AsyncClient, source: Path) -> None:
    set_id, path = _install(client, source)
    before = path.read_bytes()
    session_id = await _chat(client, "calc mul 6 7")
    body = {"evalId": "from_chat", "sessionId": session_id, "userId": "u1"}
    added = await client.post(f"/dev/apps/{APP}/eval-sets/{set_id}/add-session", json=body)
    assert added.status_code == 200, added.text
    _unchanged_except(before, path)
    new = next(c for c in _adk_loads(path).eval_cases if c.eval_id == "from_chat")
    assert new.conversation is not None
    turn = new.conversation[0]
    assert turn.final_response is not None and turn.final_response.parts
    assert turn.final_response.parts[0].text == "calc result: 42"
    assert "eval_id" in _cases(path.read_bytes())["from_chat"]


@pytest.mark.parametrize("source", ADK_SETS, ids=lambda p: p.name)
async def test_deleting_a_case_keeps_the_others(client: httpx.AsyncClient, source: Path) -> None:
    set_id, path = _install(client, source)
    before = path.read_bytes()
    case_id = next(iter(_cases(before)))
    deleted = await client.delete(f"/api/apps/{APP}/eval-sets/{set_id}/cases/{case_id}")
    assert deleted.status_code == 204, deleted.text
    _unchanged_except(before, path, case_id)
    assert case_id not in _cases(path.read_bytes())


@pytest.mark.parametrize("route", ["/api/apps/{app}/eval-sets", "/dev/apps/{app}/eval-sets"])
async def test_a_new_set_beside_adk_sets_is_an_adk_set(client: httpx.AsyncClient, route: str) -> None:
    for source in ADK_SETS[:2]:
        _install(client, source)
    body = {"evalSetId": "fresh"} if route.startswith("/api") else {"evalSet": {"evalSetId": "fresh"}}
    created = await client.post(route.format(app=APP), json=body)
    assert created.status_code in (200, 201), created.text
    path = client.data_dir / APP / "fresh.evalset.json"  # type: ignore[attr-defined]
    assert _adk_loads(path).eval_set_id == "fresh"
    session_id = await _chat(client, "calc add 2 3")
    body = {"evalId": "first", "sessionId": session_id, "userId": "u1"}
    assert (await client.post(f"/dev/apps/{APP}/eval-sets/fresh/add-session", json=body)).status_code == 200
    assert [c.eval_id for c in _adk_loads(path).eval_cases] == ["first"]


async def test_a_new_set_in_a_native_app_stays_native(client: httpx.AsyncClient) -> None:
    shutil.copy(CALCULATOR / "calculator.evalset.json", client.data_dir / APP / "calculator.evalset.json")  # type: ignore[attr-defined]
    assert (await client.post(f"/api/apps/{APP}/eval-sets", json={"evalSetId": "fresh"})).status_code == 201
    doc = json.loads((client.data_dir / APP / "fresh.evalset.json").read_bytes())  # type: ignore[attr-defined]
    assert doc["evalSetId"] == "fresh" and "evalCases" in doc
