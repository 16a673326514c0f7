"""The diagnosis routes: two runs of a case side by side with their first divergence, and a result's triage."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agentgauge.server import ServerConfig, create_app

REPLAY = Path(__file__).resolve().parents[2] / "examples" / "replay"
API = "/api/apps/replay"
BASE = "calculator_replay_calculator_replay_1"
NEW = "calculator_replay_calculator_replay_2"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A server whose app ``replay`` holds the replayed run of the recorded agent and of the swapped one."""
    results = tmp_path / "data" / "results" / "replay"
    results.mkdir(parents=True)
    for name, result_id in (("replayed", BASE), ("swapped", NEW)):
        text = (REPLAY / f"{name}.evalset_result.json").read_text()
        original = text.split('"evalSetResultId": "', 1)[1].split('"', 1)[0]
        (results / f"{result_id}.evalset_result.json").write_text(text.replace(original, result_id))
    (tmp_path / "data" / "replay").mkdir()
    shutil.copy(REPLAY / "calculator_replay.evalset.json", tmp_path / "data" / "replay")
    with TestClient(create_app(ServerConfig(data_dir=tmp_path / "data"))) as test_client:
        yield test_client


def _ok(answer: Any) -> Any:
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_two_results_side_by_side_with_the_first_divergence(client: TestClient) -> None:
    data = _ok(client.get(f"{API}/diff", params={"base": BASE, "new": NEW, "case": "product_then_sum"}))
    assert (data["base"], data["new"], data["aligned"]) == ("run 1", "run 1", True)
    found = data["firstDivergence"]
    assert (found["kind"], found["turn"], found["step"], found["index"]) == ("different_arguments", 2, 1, 3)
    assert [s["op"] for s in data["steps"]] == ["match", "match", "replace", "delete", "replace"]
    same = _ok(client.get(f"{API}/diff", params={"base": BASE, "new": BASE, "case": "product_then_sum"}))
    assert same["firstDivergence"] is None


def test_a_run_against_its_expected_turns(client: TestClient) -> None:
    data = _ok(client.get(f"{API}/diff", params={"new": NEW, "case": "product_then_sum"}))
    assert data["base"] == "expected turns"
    assert data["firstDivergence"]["kind"] == "different_arguments"


def test_bad_diff_requests_name_the_field(client: TestClient) -> None:
    missing = client.get(f"{API}/diff", params={"base": BASE, "new": NEW, "case": "nope"})
    assert missing.status_code == 404 and "nope" in missing.text
    run = client.get(f"{API}/diff", params={"base": BASE, "new": NEW, "case": "product_then_sum", "newRun": 9})
    assert 400 <= run.status_code < 500 and "newRun" in run.text
    assert client.get(f"{API}/diff", params={"new": NEW}).status_code == 422  # no case
    assert client.get(f"{API}/diff", params={"new": "unknown", "case": "c"}).status_code == 404
    assert client.get(f"{API}/diff", params={"new": NEW, "case": "c", "baseRun": 0}).status_code == 422


def test_triage_of_a_result(client: TestClient) -> None:
    data = _ok(client.get(f"{API}/results/{NEW}/triage"))
    assert (data["runs"], data["failing"]) == (1, 1)
    [cluster] = data["clusters"]
    assert cluster["metric"] == "replay_fidelity" and cluster["divergence"] == "different_arguments"
    assert cluster["tool"] == "calculator" and cluster["example"]["evalId"] == "product_then_sum"
    assert _ok(client.get(f"{API}/results/{BASE}/triage"))["clusters"] == []
    assert client.get(f"{API}/results/{NEW}/triage", params={"merge": 2}).status_code == 422
    assert client.get(f"{API}/results/missing/triage").status_code == 404


def test_the_replay_view_carries_each_replayed_turns_record(client: TestClient) -> None:
    data = _ok(client.get(f"{API}/results/{NEW}/cases/product_then_sum/replay"))
    first, second = (turn["replay"] for turn in data["turns"])
    assert first["mode"] == "strict" and [c["name"] for c in first["answered"]] == ["calculator"]
    assert second["drift"][0]["recorded"] == {"a": 42, "b": 8, "operation": "add"}
    assert [c["name"] for c in second["unconsumed"]] == ["calculator", "is_prime"]  # strict: the drifted call too
