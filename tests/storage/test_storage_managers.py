"""Eval set, metric and result managers (local and in-memory) share one behaviour."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agentgauge.errors import InputError, NotFoundError
from agentgauge.model import Criterion, EvalCase, EvalMetric, EvalSet, EvalSetResult, Invocation, Message
from agentgauge.storage import (
    EvalResultManager,
    EvalSetManager,
    InMemoryEvalResultManager,
    InMemoryEvalSetManager,
    InMemoryMetricManager,
    LocalEvalResultManager,
    LocalEvalSetManager,
    LocalMetricManager,
    MetricManager,
)

BAD_IDS = ["", ".", "..", "a/b", "a\\b", "nul\x00", "/abs", "C:\\x", "../escape"]


@pytest.fixture(params=["local", "memory"])
def sets(request: pytest.FixtureRequest, tmp_path: Path) -> EvalSetManager:
    return LocalEvalSetManager(tmp_path) if request.param == "local" else InMemoryEvalSetManager()


@pytest.fixture(params=["local", "memory"])
def metrics(request: pytest.FixtureRequest, tmp_path: Path) -> MetricManager:
    return LocalMetricManager(tmp_path) if request.param == "local" else InMemoryMetricManager()


@pytest.fixture(params=["local", "memory"])
def results(request: pytest.FixtureRequest, tmp_path: Path) -> EvalResultManager:
    return LocalEvalResultManager(tmp_path) if request.param == "local" else InMemoryEvalResultManager()


def _case(eval_id: str) -> EvalCase:
    return EvalCase(eval_id=eval_id, conversation=[Invocation(user_content=Message(content=f"q {eval_id}"))])


def test_eval_set_lifecycle(sets: EvalSetManager) -> None:
    created = sets.create("app", "s1")
    assert (created.eval_set_id, created.name, created.eval_cases) == ("s1", "s1", [])
    assert created.creation_timestamp is not None
    with pytest.raises(InputError, match="already exists"):
        sets.create("app", "s1")
    sets.add_case("app", "s1", _case("c1"))
    stored = sets.get_case("app", "s1", "c1")
    assert stored.creation_timestamp is not None
    assert stored.conversation is not None and stored.conversation[0].creation_timestamp is not None
    with pytest.raises(InputError, match="already exists"):
        sets.add_case("app", "s1", _case("c1"))
    with pytest.raises(InputError, match="empty evalId"):
        sets.add_case("app", "s1", EvalCase(eval_id=""))
    changed = _case("c1")
    changed.conversation[0].user_content.content = "changed"  # type: ignore[index]
    sets.update_case("app", "s1", changed)
    assert sets.get_case("app", "s1", "c1").conversation[0].user_content.content == "changed"  # type: ignore[index]
    with pytest.raises(NotFoundError):
        sets.update_case("app", "s1", _case("nope"))
    with pytest.raises(NotFoundError):
        sets.get_case("app", "s1", "nope")
    sets.delete_case("app", "s1", "c1")
    with pytest.raises(NotFoundError):
        sets.delete_case("app", "s1", "c1")
    assert sets.list("app") == ["s1"] and sets.list("other") == []
    sets.delete("app", "s1")
    with pytest.raises(NotFoundError):
        sets.get("app", "s1")
    with pytest.raises(NotFoundError):
        sets.delete("app", "s1")
    with pytest.raises(NotFoundError):
        sets.add_case("app", "s1", _case("c"))


def test_reads_are_copies(sets: EvalSetManager) -> None:
    sets.put("app", EvalSet(eval_set_id="s", eval_cases=[_case("c")]))
    got = sets.get("app", "s")
    got.eval_cases.clear()
    assert [c.eval_id for c in sets.get("app", "s").eval_cases] == ["c"]


@pytest.mark.parametrize("bad", BAD_IDS)
def test_bad_ids_are_rejected_and_nothing_is_written(tmp_path: Path, bad: str) -> None:
    local = LocalEvalSetManager(tmp_path / "base")
    for call in (
        lambda: local.create(bad, "s"),
        lambda: local.create("app", bad),
        lambda: local.put("app", EvalSet(eval_set_id=bad)),
        lambda: LocalMetricManager(tmp_path / "base").add("app", bad, EvalMetric(metric_name="m")),
        lambda: LocalEvalResultManager(tmp_path / "base").save(bad, EvalSetResult(eval_set_id="s")),
        # an empty result id means "generate one", so only non-empty bad ids apply here
        lambda: LocalEvalResultManager(tmp_path / "base").save(
            "app", EvalSetResult(eval_set_id="s", eval_set_result_id=bad or "..")
        ),
    ):
        with pytest.raises(InputError, match="invalid"):
            call()
    assert list(tmp_path.rglob("*")) == []


def test_concurrent_writers_never_lose_an_update(sets: EvalSetManager) -> None:
    sets.create("app", "s")
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for k in range(10):
                sets.add_case("app", "s", _case(f"w{n}-{k}"))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(sets.get("app", "s").eval_cases) == 60


def test_metric_manager(metrics: MetricManager) -> None:
    with pytest.raises(NotFoundError):
        metrics.get_all("app", "s")
    metrics.add("app", "s", EvalMetric(metric_name="a", threshold=1))
    metrics.add("app", "s", EvalMetric(metric_name="b", threshold=0.5))
    with pytest.raises(InputError, match="already exists"):
        metrics.add("app", "s", EvalMetric(metric_name="a"))
    assert metrics.list("app", "s") == ["a", "b"]
    metrics.update("app", "s", EvalMetric(metric_name="b", threshold=0.7))
    assert metrics.get("app", "s", "b").threshold == 0.7
    with pytest.raises(NotFoundError):
        metrics.update("app", "s", EvalMetric(metric_name="zz"))
    metrics.delete("app", "s", "a")
    with pytest.raises(NotFoundError):
        metrics.delete("app", "s", "a")
    with pytest.raises(NotFoundError):
        metrics.get("app", "s", "a")
    metrics.put_all("app", "s", [EvalMetric(metric_name="x"), EvalMetric(metric_name="y")])
    assert [m.metric_name for m in metrics.get_all("app", "s")] == ["x", "y"]
    with pytest.raises(InputError, match="duplicate"):
        metrics.put_all("app", "s", [EvalMetric(metric_name="x"), EvalMetric(metric_name="x")])


def test_local_metrics_keep_placeholders_and_never_write_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEY", "sk-live")
    manager = LocalMetricManager(tmp_path)
    path = manager.path_for("app", "s")
    path.parent.mkdir(parents=True)
    judge = {"judgeModel": {"modelName": "${KEY}", "apiKey": "${KEY}"}}
    path.write_text(json.dumps([{"metricName": "llm", "threshold": 1, "criterion": {"llmJudge": judge}}]))
    got = manager.get("app", "s", "llm")
    assert got.criterion is not None and got.criterion.llm_judge is not None
    assert got.criterion.llm_judge["judgeModel"]["modelName"] == "sk-live"
    manager.add(
        "app", "s", EvalMetric(metric_name="other", criterion=Criterion(llm_judge={"judgeModel": {"apiKey": "k2"}}))
    )
    text = path.read_text()
    assert "${KEY}" in text and "sk-live" not in text and "k2" not in text


def test_result_manager(results: EvalResultManager) -> None:
    result = EvalSetResult(eval_set_id="s")
    rid = results.save("app", result)
    assert rid.startswith("app_s_") and len(rid) == len("app_s_") + 36
    assert result.eval_set_result_id == rid and result.eval_set_result_name == rid
    assert result.creation_timestamp is not None
    assert results.get("app", rid).model_dump(mode="json") == result.model_dump(mode="json")
    assert results.list("app") == [rid] and results.list("none") == []
    with pytest.raises(NotFoundError):
        results.get("app", "missing")
    with pytest.raises(InputError, match="evalSetId"):
        results.save("app", EvalSetResult(eval_set_id=""))
    fixed = EvalSetResult(eval_set_id="s", eval_set_result_id="mine", eval_set_result_name="nice")
    assert results.save("app", fixed) == "mine"
    assert results.get("app", "mine").eval_set_result_name == "nice"


def test_local_result_layout_and_legacy_string_file(tmp_path: Path) -> None:
    manager = LocalEvalResultManager(tmp_path)
    rid = manager.save("app", EvalSetResult(eval_set_id="s"))
    assert manager.path_for("app", rid) == tmp_path / "app" / f"{rid}.evalset_result.json"
    assert manager.path_for("app", rid).is_file()
    legacy = {"eval_set_result_id": "old", "eval_set_id": "s", "eval_case_results": []}
    (tmp_path / "app" / "old.evalset_result.json").write_text(json.dumps(json.dumps(legacy)))
    assert manager.get("app", "old").eval_set_id == "s"
    assert manager.list("app") == sorted([rid, "old"])


class PrefixLocator:
    """A custom layout: ``<base>/<app>/custom-<id>.evalset.json``."""

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        return base_dir / app / f"custom-{id}.evalset.json"

    def list(self, base_dir: Path, app: str) -> list[str]:
        folder = base_dir / app
        if not folder.is_dir():
            return []
        return [p.name[len("custom-") : -len(".evalset.json")] for p in folder.glob("custom-*.evalset.json")]


def test_custom_locator(tmp_path: Path) -> None:
    from agentgauge.storage import Locator

    locator = PrefixLocator()
    assert isinstance(locator, Locator)
    manager = LocalEvalSetManager(tmp_path, locator=locator)
    manager.create("app", "s")
    assert (tmp_path / "app" / "custom-s.evalset.json").is_file()
    assert manager.list("app") == ["s"]


def test_local_set_manager_reads_adk_files(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "examples/helm/helm_eval_set.evalset.json"
    (tmp_path / "helm").mkdir()
    (tmp_path / "helm" / "helm_eval_set.evalset.json").write_bytes(source.read_bytes())
    manager = LocalEvalSetManager(tmp_path)
    assert manager.get_case("helm", "helm_eval_set", "helm_list_releases").conversation is not None


def test_relative_base_dir_is_fixed_at_construction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent calling os.chdir() during a run must not move where a manager made with a relative path writes."""
    from agentgauge.model import EvalSetResult
    from agentgauge.storage import LocalEvalResultManager

    monkeypatch.chdir(tmp_path)
    manager = LocalEvalResultManager("results")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = EvalSetResult(eval_set_result_id="r1", eval_set_result_name="r1", eval_set_id="s", eval_case_results=[])
    manager.save("app", result)
    assert (tmp_path / "results" / "app" / "r1.evalset_result.json").is_file()
    assert not (elsewhere / "results").exists()
