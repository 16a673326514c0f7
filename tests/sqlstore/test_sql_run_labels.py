"""Run metadata in the SQL store: saved whole or streamed, read back, results found by label (every label must
match), and a store of schema version 2 upgraded in place."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from agentgauge.model import EvalCaseResult, EvalSetResult, EvalStatus, RunMetadata
from agentgauge.sqlstore import SCHEMA_VERSION, open_store


def _result(result_id: str, labels: dict[str, str], stamp: float) -> EvalSetResult:
    case = EvalCaseResult(eval_set_id="s", eval_id="c", final_eval_status=EvalStatus.PASSED)
    metadata = RunMetadata(labels=labels, git_commit="abc", git_dirty=False, models=["m"], agentgauge_version="1")
    return EvalSetResult(
        eval_set_result_id=result_id,
        eval_set_id="s",
        eval_case_results=[case],
        creation_timestamp=stamp,
        run_metadata=metadata,
    )


def test_results_are_found_by_every_label(store_url: str) -> None:
    results = open_store(store_url).results()
    results.save("app", _result("r1", {"env": "prod", "team": "core"}, 1000.0))
    results.save("app", _result("r2", {"env": "staging", "team": "core"}, 2000.0))
    results.save("app", _result("r3", {}, 3000.0))
    assert [i.eval_set_result_id for i in results.find(app="app")] == ["r3", "r2", "r1"]
    assert [i.eval_set_result_id for i in results.find(labels={"team": "core"})] == ["r2", "r1"]
    assert [i.eval_set_result_id for i in results.find(labels={"team": "core", "env": "prod"})] == ["r1"]
    assert results.find(labels={"env": "prod", "team": "other"}) == []
    assert results.find(labels={"env": "dev"}) == []
    (r1,) = results.find("r1")
    assert r1.labels == {"env": "prod", "team": "core"}
    assert results.find("r3")[0].labels == {}
    assert results.get("app", "r1").run_metadata == _result("r1", {"env": "prod", "team": "core"}, 0).run_metadata
    results.save("app", _result("r1", {"env": "dev"}, 1000.0))  # a re-save replaces the labels
    assert [i.eval_set_result_id for i in results.find(labels={"env": "dev"})] == ["r1"]
    assert results.find(labels={"env": "prod"}) == []


def test_a_streamed_result_gets_its_metadata_at_commit(store_url: str) -> None:
    results = open_store(store_url).results()
    writer = results.open_writer("app", "s", "run1")
    writer.add(EvalCaseResult(eval_set_id="s", eval_id="c", final_eval_status=EvalStatus.PASSED))
    assert results.find(labels={"env": "ci"}) == []  # not labelled while running
    writer.commit(creation_timestamp=5.0, run_metadata=RunMetadata(labels={"env": "ci"}, agent="agent.py"))
    assert [i.eval_set_result_id for i in results.find(labels={"env": "ci"})] == ["run1"]
    stored = results.get("app", "run1").run_metadata
    assert stored == RunMetadata(labels={"env": "ci"}, agent="agent.py")


def test_a_version_2_store_is_upgraded(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'v2.db'}"
    open_store(url).results().list("app")  # the current schema, then made to look like version 2
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE evaluation_run_labels"))
        conn.execute(sa.text("ALTER TABLE evaluation_eval_set_results DROP COLUMN run_metadata"))
        conn.execute(sa.text("UPDATE schema_version SET version = 2"))
    results = open_store(url).results()
    results.save("app", _result("r", {"env": "prod"}, 1.0))
    assert [i.eval_set_result_id for i in results.find(labels={"env": "prod"})] == ["r"]
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == SCHEMA_VERSION == 3
    engine.dispose()
