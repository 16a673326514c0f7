"""The SQL managers pass the same behaviour tests as the local and in-memory ones (tests/storage), on SQLite and
PostgreSQL, plus what only a database can show: placeholders kept, keys never stored, writers in threads."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentgauge.errors import InputError
from agentgauge.model import Criterion, EvalMetric, EvalSet
from agentgauge.sqlstore import SqlEvalResultManager, SqlEvalSetManager, SqlMetricManager, Store
from agentgauge.storage import EvalResultManager, EvalSetManager, MetricManager

_SHARED_PATH = Path(__file__).resolve().parents[1] / "storage" / "test_storage_managers.py"
_spec = importlib.util.spec_from_file_location("_shared_manager_tests", _SHARED_PATH)
assert _spec is not None and _spec.loader is not None
_shared = importlib.util.module_from_spec(_spec)
sys.modules["_shared_manager_tests"] = _shared
_spec.loader.exec_module(_shared)

# The shared behaviour tests, run here with the SQL managers as their fixtures.
test_eval_set_lifecycle = _shared.test_eval_set_lifecycle
test_reads_are_copies = _shared.test_reads_are_copies
test_concurrent_writers_never_lose_an_update = _shared.test_concurrent_writers_never_lose_an_update
test_metric_manager = _shared.test_metric_manager
test_result_manager = _shared.test_result_manager


@pytest.fixture
def store(store_url: str) -> Store:
    return Store(store_url)


@pytest.fixture
def sets(store: Store) -> EvalSetManager:
    return SqlEvalSetManager(store)


@pytest.fixture
def metrics(store: Store) -> MetricManager:
    return SqlMetricManager(store)


@pytest.fixture
def results(store: Store) -> EvalResultManager:
    return SqlEvalResultManager(store)


def test_whole_set_round_trip(sets: SqlEvalSetManager) -> None:
    from agentgauge.formats import load_eval_set

    original = load_eval_set(
        Path(__file__).resolve().parents[2] / "examples" / "calculator" / "calculator.evalset.json"
    )
    original.description = "desc"
    sets.put("app", original)
    assert sets.get("app", original.eval_set_id) == original
    sets.put("app", EvalSet(eval_set_id=original.eval_set_id, eval_cases=original.eval_cases[:2]))
    assert len(sets.get("app", original.eval_set_id).eval_cases) == 2  # put replaces the cases


@pytest.mark.parametrize("bad", ["", "..", "a/b", "nul\x00"])
def test_bad_ids_are_rejected(sets: SqlEvalSetManager, metrics: SqlMetricManager, bad: str) -> None:
    for call in (
        lambda: sets.create(bad, "s"),
        lambda: sets.create("app", bad),
        lambda: sets.put("app", EvalSet(eval_set_id=bad)),
        lambda: metrics.add("app", bad, EvalMetric(metric_name="m")),
    ):
        with pytest.raises(InputError, match="invalid"):
            call()
    assert sets.list("app") == []


def test_metrics_keep_placeholders_and_never_store_keys(
    metrics: SqlMetricManager, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_MODEL", "gpt-judge")
    judge = {"judgeModel": {"modelName": "${JUDGE_MODEL}", "apiKey": "sk-should-never-be-stored"}}
    metrics.add("app", "s", EvalMetric(metric_name="llm", threshold=1, criterion=Criterion(llm_judge=judge)))
    got = metrics.get("app", "s", "llm")
    assert got.criterion is not None and got.criterion.llm_judge is not None
    assert got.criterion.llm_judge["judgeModel"]["modelName"] == "gpt-judge"  # expanded on read
    engine = sa.create_engine(store_url)
    with engine.connect() as conn:
        raw = conn.execute(sa.text("SELECT metric FROM evaluation_metrics")).scalar_one()
    engine.dispose()
    text = raw if isinstance(raw, str) else json.dumps(raw)
    assert "${JUDGE_MODEL}" in text and "sk-should-never-be-stored" not in text
