"""The server's warm-up and its saved digests: what the first page load asks for is made when the server starts, each
result file is read once (by the warm-up or by a request, never both), and a restarted server reads the digests it
saved instead of the files that did not change."""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from agentgauge.server import ServerConfig, create_app
from agentgauge.server import _history as history_module
from agentgauge.server._cache import file_key
from agentgauge.server._digest_index import INDEX_FILE, IndexedDigest, load_index, save_index
from agentgauge.server._digest_read import digest_of_document, read_digest
from agentgauge.server._history import ResultHistory
from agentgauge.server._state import ServerState
from agentgauge.server._warmup import WarmUp

APP = "shop"
WAIT = 30


def _case(eval_id: str, passed: bool, score: float | None = None) -> dict[str, Any]:
    metric = {
        "metricName": "response_match_score",
        "score": (1.0 if passed else 0.25) if score is None else score,
        "evalStatus": "passed" if passed else "failed",
        "threshold": 0.8,
        "details": {"reason": "" if passed else f"actual 'no' != expected 'yes' in {eval_id}"},
    }
    turn = {"userContent": {"role": "user", "content": f"question {eval_id}"}, "finalResponse": {"content": "yes"}}
    return {
        "evalSetId": "orders",
        "evalId": eval_id,
        "runId": 1,
        "finalEvalStatus": "passed" if passed else "failed",
        "overallEvalMetricResults": [metric],
        "evalMetricResultPerInvocation": [{"actualInvocation": turn, "evalMetricResults": [metric]}],
    }


def _result(result_id: str, when: float, failing: str = "", **extra: Any) -> dict[str, Any]:
    cases = [_case(i, i != failing) for i in ("a", "b", "c")]
    top = {"evalSetResultId": result_id, "evalSetId": "orders", "creationTimestamp": when, "evalCaseResults": cases}
    return top | extra


def _data(root: Path, runs: int = 5) -> ServerConfig:
    """App ``shop``: eval set ``orders`` and ``runs`` results of it in the data directory."""
    evals = root / "evals" / APP
    evals.mkdir(parents=True)
    cases: list[dict[str, Any]] = [{"evalId": i, "conversation": []} for i in ("a", "b", "c")]
    (evals / "orders.evalset.json").write_text(json.dumps({"evalSetId": "orders", "evalCases": cases}))
    results = root / "data" / "results" / APP
    results.mkdir(parents=True)
    for n in range(runs):
        document = _result(f"run_{n}", 1.7e9 + n, failing="abc"[n % 3])
        (results / f"run_{n}.evalset_result.json").write_text(json.dumps(document))
    return ServerConfig(data_dir=root / "data", evals_dir=root / "evals")


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each result file was read into a digest."""
    counted: Counter[str] = Counter()

    def counting(path: Path) -> Any:
        counted[path.name] += 1
        return read_digest(path)

    monkeypatch.setattr(history_module, "read_digest", counting)
    return counted


def _warmed(client: TestClient) -> WarmUp:
    warm_up: WarmUp = client.app.state.agentgauge_warm_up  # type: ignore[attr-defined]
    assert warm_up.done.wait(WAIT)
    return warm_up


def test_the_warm_up_reads_every_result_once_and_the_first_listing_reads_none(
    tmp_path: Path, reads: Counter[str]
) -> None:
    config = _data(tmp_path)
    with TestClient(create_app(config)) as client:
        warm_up = _warmed(client)
        assert warm_up.digests == 5
        assert sorted(reads) == [f"run_{n}.evalset_result.json" for n in range(5)]
        assert set(reads.values()) == {1}
        rows = client.get(f"/api/apps/{APP}/results").json()
        assert [r["evalSetResultId"] for r in rows] == [f"run_{n}" for n in (4, 3, 2, 1, 0)]
        assert rows[0]["counts"] == {"passed": 2, "failed": 1, "error": 0, "not_evaluated": 0}
        case_list = client.get(f"/api/apps/{APP}/eval-sets/orders/case-list").json()
        assert {c["evalId"]: c["status"] for c in case_list["cases"]} == {"a": "passed", "b": "failed", "c": "passed"}
        assert set(reads.values()) == {1}  # the answers came from the digests the warm-up made
        state: ServerState = client.app.state.agentgauge  # type: ignore[attr-defined]
        assert state.results.files_read == 5
        # The registry is loaded with its judge metrics: the first listing of metrics imports nothing more.
        names = [m["name"] for m in client.get("/api/metrics").json()]
        assert names == state.registry.names() and any(state.registry.info(n).needs_judge for n in names)
        # The digests are saved a little after the warm-up, while the server runs.
        assert warm_up.saved.wait(WAIT) and set(load_index(config.data_dir / INDEX_FILE)) == {
            str(p) for p in (config.data_dir / "results" / APP).glob("*.json")
        }


def test_a_listing_during_the_warm_up_reads_no_file_twice(tmp_path: Path, reads: Counter[str]) -> None:
    config = _data(tmp_path, runs=40)
    state = ServerState(config)
    warm_up = WarmUp(state)
    listed: list[int] = []
    listings = [threading.Thread(target=lambda: listed.append(len(state.results.rows(APP)))) for _ in range(3)]
    warm_up.start()
    for thread in listings:
        thread.start()
    for thread in listings:
        thread.join(WAIT)
    assert warm_up.done.wait(WAIT)
    assert listed == [40, 40, 40]
    assert len(reads) == 40 and set(reads.values()) == {1}  # the memo's gate: whoever came first read it


def test_a_restarted_server_reads_its_saved_digests_not_the_unchanged_files(
    tmp_path: Path, reads: Counter[str]
) -> None:
    config = _data(tmp_path)
    with TestClient(create_app(config)) as client:
        _warmed(client)
        before = client.get(f"/api/apps/{APP}/results").json()
    assert (config.data_dir / INDEX_FILE).is_file()
    # One result rewritten while the server was stopped: only that file is read again.
    changed = config.data_dir / "results" / APP / "run_2.evalset_result.json"
    changed.write_text(json.dumps(_result("run_2", 1.7e9 + 2, failing="a", runMetadata={"labels": {"model": "m2"}})))
    reads.clear()
    with TestClient(create_app(config)) as client:
        _warmed(client)
        after = client.get(f"/api/apps/{APP}/results").json()
        assert client.app.state.agentgauge.results.files_read == 1  # type: ignore[attr-defined]
    assert reads == Counter({"run_2.evalset_result.json": 1})
    unchanged = [r for r in before if r["evalSetResultId"] != "run_2"]
    assert [r for r in after if r["evalSetResultId"] != "run_2"] == unchanged
    (row,) = [r for r in after if r["evalSetResultId"] == "run_2"]
    assert row["labels"] == {"model": "m2"} and row["runMetadata"]["labels"] == {"model": "m2"}
    # Nothing was read since: the index is not written again.
    stamp = (config.data_dir / INDEX_FILE).stat().st_mtime_ns
    reads.clear()
    with TestClient(create_app(config)) as client:
        _warmed(client)
    assert not reads and (config.data_dir / INDEX_FILE).stat().st_mtime_ns == stamp


@pytest.mark.parametrize(
    "index",
    [
        b"not json",
        b'{"format": 1, "agentgauge": "0.0.0-other", "files": {}}',
        b'{"format": 999, "agentgauge": "x", "files": {}}',
        b'{"format": 1}',
    ],
    ids=["damaged", "other version", "other format", "incomplete"],
)
def test_an_index_that_cannot_be_used_is_ignored_and_replaced(
    tmp_path: Path, reads: Counter[str], index: bytes
) -> None:
    config = _data(tmp_path)
    path = config.data_dir / INDEX_FILE
    path.parent.mkdir(parents=True)
    path.write_bytes(index)
    with TestClient(create_app(config)) as client:
        _warmed(client)
        assert len(client.get(f"/api/apps/{APP}/results").json()) == 5
    assert sum(reads.values()) == 5
    assert set(load_index(path)) == {str(p) for p in (config.data_dir / "results" / APP).glob("*.json")}


def test_an_entry_of_a_file_removed_or_replaced_is_not_used(tmp_path: Path) -> None:
    config = _data(tmp_path, runs=2)
    history = ResultHistory.for_config(config)
    assert len(history.rows(APP)) == 2 and history.save_index()
    assert not history.save_index()  # nothing read since
    folder = config.data_dir / "results" / APP
    (folder / "run_0.evalset_result.json").unlink()
    replaced = folder / "run_1.evalset_result.json"
    replaced.write_text(json.dumps(_result("run_1", 1.7e9 + 1, failing="c")))
    assert load_index(history.index) == {}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "document",
    [
        _result("plain", 1.7e9),
        _result("labelled", 1.7e9, failing="b", runMetadata={"labels": {"k": "v"}, "gitCommit": "c0", "models": ["m"]}),
        _result("summary", 1.7e9, summary={"overallStatus": "failed", "numRuns": 3}, interrupted=True),
        _result("cancelled", 1.7e9, cancelled=True) | {"creationTimestamp": None},
        {"evalSetResultId": "empty", "evalSetId": "orders", "evalCaseResults": []},
        {
            "evalSetResultId": "odd",
            "evalSetId": "orders",
            "evalCaseResults": [_case("x", True, score=math.nan), _case("y", False, score=math.inf)],
        },
    ],
    ids=lambda d: d["evalSetResultId"],
)
def test_a_digest_reads_back_from_the_index_as_it_was_made(tmp_path: Path, document: dict[str, Any]) -> None:
    made = digest_of_document(json.loads(json.dumps(document)), "result.json")
    assert made is not None
    assert repr(IndexedDigest.of((1, 2, 3), made).digest()) == repr(made)  # repr: a NaN score equals itself there
    file = tmp_path / "r.evalset_result.json"
    file.write_text(json.dumps(document))
    key = file_key(file)
    assert key is not None
    save_index(tmp_path / "index.json", [(str(file), key, made)])
    ((name, (kept_key, kept)),) = load_index(tmp_path / "index.json").items()
    assert (name, kept_key) == (str(file), key)
    assert repr(kept) == repr(made)


def test_a_failing_step_of_the_warm_up_leaves_the_others_and_the_server_working(
    tmp_path: Path, reads: Counter[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentgauge.evaluators import Registry

    def broken(self: Registry) -> list[Any]:
        raise RuntimeError("a plug-in failed")

    monkeypatch.setattr(Registry, "infos", broken)
    config = _data(tmp_path)
    with TestClient(create_app(config)) as client:
        warm_up = _warmed(client)
        assert warm_up.digests == 5 and sum(reads.values()) == 5  # the steps after the registry ran
        assert len(client.get(f"/api/apps/{APP}/results").json()) == 5
    assert (config.data_dir / INDEX_FILE).is_file()
