"""Reads are cheap: the server parses an eval set file once per version of the file (its inode, size and
modification time), serves every read route from that, and sees any change, its own or another program's."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app
from agentgauge.storage import LocalEvalSetManager

READS = (
    "/api/apps/calculator/eval-sets/calculator",
    "/api/apps/calculator/eval-sets",
    "/api/apps/calculator/eval-sets/calculator/cases/calc_add",
    "/dev/apps/calculator/eval-sets/calculator",
    "/dev/apps/calculator/eval-sets/calculator/eval-cases/calc_add",
    "/apps/calculator/eval_sets/calculator/evals",
)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The eval set ids the local manager parsed a file for, in order."""
    calls: list[str] = []
    original = LocalEvalSetManager._read

    def counting(self: LocalEvalSetManager, app: str, set_id: str, report: Any = None) -> Any:
        calls.append(set_id)
        return original(self, app, set_id, report)

    monkeypatch.setattr(LocalEvalSetManager, "_read", counting)
    return calls


async def test_one_parse_for_many_reads_and_again_after_a_change(
    client: httpx.AsyncClient, data_dir: Path, parses: list[str]
) -> None:
    first = await client.get(READS[0])
    for _ in range(10):
        for route in READS:
            assert (await client.get(route)).status_code == 200
    assert parses == ["calculator"]
    assert (await client.get(READS[0])).content == first.content

    # Another program rewrites the file (a new inode): read again, once.
    path = data_dir / "calculator" / "calculator.evalset.json"
    doc = json.loads(path.read_text())
    doc["evalCases"] = doc["evalCases"][:1]
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc))
    os.replace(tmp, path)
    for _ in range(5):
        listed = (await client.get("/api/apps/calculator/eval-sets")).json()
        assert listed[0]["caseIds"] == [doc["evalCases"][0]["evalId"]]
    assert parses == ["calculator", "calculator"]


async def test_an_edit_in_place_of_the_same_size_is_seen(
    client: httpx.AsyncClient, data_dir: Path, parses: list[str]
) -> None:
    path = data_dir / "calculator" / "calculator.evalset.json"
    before = (await client.get(READS[0])).json()
    text = path.read_text()
    assert '"calc_add"' in text
    stat = path.stat()
    with open(path, "r+", encoding="utf-8") as handle:  # same inode, same size: only the time tells
        handle.write(text.replace('"calc_add"', '"calc_ADD"', 1))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000))
    after = (await client.get(READS[0])).json()
    assert before["evalCases"][0]["evalId"] == "calc_add" and after["evalCases"][0]["evalId"] == "calc_ADD"
    assert len(parses) == 2


async def test_the_servers_own_writes_are_seen_at_once(
    client: httpx.AsyncClient, data_dir: Path, parses: list[str]
) -> None:
    case = (await client.get(READS[2])).json()
    case["conversation"][0]["finalResponse"]["content"] = "edited"
    assert (await client.put(READS[2], json=case)).status_code == 200
    served = (await client.get(READS[0])).json()
    assert served["evalCases"][0]["conversation"][0]["finalResponse"]["content"] == "edited"
    assert (await client.delete(READS[2])).status_code == 204
    assert "calc_add" not in (await client.get("/api/apps/calculator/eval-sets")).json()[0]["caseIds"]
    assert (await client.delete(READS[0])).status_code == 204
    assert (await client.get(READS[0])).status_code == 404


async def test_concurrent_reads_of_a_changed_file_parse_it_once(config: ServerConfig, parses: list[str]) -> None:
    transport = httpx.ASGITransport(app=create_app(config), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        answers = await asyncio.gather(*(client.get(READS[0]) for _ in range(16)))
    assert {a.status_code for a in answers} == {200} and len({a.content for a in answers}) == 1
    assert parses == ["calculator"]


async def test_a_broken_file_is_reported_and_not_parsed_again(
    client: httpx.AsyncClient, data_dir: Path, parses: list[str]
) -> None:
    (data_dir / "calculator" / "broken.evalset.json").write_text('{"evalSetId": "broken", "evalCases": 5}')
    for _ in range(3):
        listed = {s["evalSetId"]: s for s in (await client.get("/api/apps/calculator/eval-sets")).json()}
        assert "evalCases" in listed["broken"]["error"]
        answer = await client.get("/api/apps/calculator/eval-sets/broken")
        assert answer.status_code == 400 and "evalCases" in answer.json()["detail"]
    assert parses.count("broken") == 1
