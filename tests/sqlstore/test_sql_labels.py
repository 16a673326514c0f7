"""Labels in the SQL store: one row per label key, and the table added to a store of schema version 1."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from agentgauge.model import HumanLabel
from agentgauge.sqlstore import SCHEMA_VERSION, open_store


def test_put_list_replace_delete(store_url: str) -> None:
    labels = open_store(store_url).labels()
    labels.put("app", HumanLabel(eval_id="a", metric_name="m", verdict="pass", eval_set_result_id="r1"))
    labels.put("app", HumanLabel(eval_id="a", metric_name="m", verdict="pass", eval_set_result_id="r1", invocation=2))
    labels.put("app", HumanLabel(eval_id="b", metric_name="m", verdict="fail", eval_set_result_id="r1", run_id=3))
    labels.put("app", HumanLabel(eval_id="a", metric_name="m", verdict="fail", eval_set_result_id="r1", note="no"))
    labels.put("other", HumanLabel(eval_id="a", metric_name="m", verdict="pass", eval_set_result_id="r1"))
    stored = labels.list("app", "r1")
    assert sorted((s.eval_id, s.invocation or 0, s.verdict.value, s.note) for s in stored) == [
        ("a", 0, "fail", "no"),
        ("a", 2, "pass", ""),
        ("b", 0, "fail", ""),
    ]
    assert [s.run_id for s in labels.list("app", "r1", "b")] == [3]
    assert labels.delete("app", "r1", "a", lambda label: label.invocation == 2) == 1
    assert [(s.eval_id, s.invocation) for s in labels.list("app", "r1", "a")] == [("a", None)]
    assert len(labels.list("other", "r1")) == 1


def test_a_version_1_store_gets_the_labels_table(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    open_store(url).results().list("app")  # create the current schema, then make it look like version 1
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE evaluation_labels"))
        conn.execute(sa.text("UPDATE schema_version SET version = 1"))
    labels = open_store(url).labels()
    labels.put("app", HumanLabel(eval_id="a", metric_name="m", verdict="pass", eval_set_result_id="r"))
    assert len(labels.list("app", "r")) == 1
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT version FROM schema_version")).scalar() == SCHEMA_VERSION
    engine.dispose()
