"""Schema of the SQL store: trpc-agent-go table compatibility, versioning and upgrades.

trpc-agent-go facts (shared/reference/wave2/sql-store.md, section E1; trpc-agent-go
``evaluation/internal/mysqldb/schema.go`` and ``evaluation/{evalset,metric,evalresult}/mysql/mysql.go`` at
0e352fdd1428): table names ``<prefix>evaluation_eval_sets`` / ``_eval_cases`` / ``_metrics`` /
``_eval_set_results``, the columns and index names below, and the SQL its managers run (quoted in the tests with
``?`` written as named parameters).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics, load_result
from agentgauge.sqlstore import SCHEMA_VERSION, SchemaTooNewError, StoreError, open_store

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MATH_RESULT = (
    EXAMPLES / "math_basic" / "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
)

TRPC_COLUMNS = {
    "evaluation_eval_sets": ["id", "app_name", "eval_set_id", "name", "description", "created_at", "updated_at"],
    "evaluation_eval_cases": [
        "id", "app_name", "eval_set_id", "eval_id", "eval_mode", "eval_case", "created_at", "updated_at",
    ],
    "evaluation_metrics": ["id", "app_name", "eval_set_id", "metric_name", "metric", "created_at", "updated_at"],
    "evaluation_eval_set_results": [
        "id", "app_name", "eval_set_result_id", "eval_set_id", "eval_set_result_name", "eval_case_results", "summary",
        "created_at", "updated_at",
    ],
}  # fmt: skip
TRPC_INDEXES = {
    "evaluation_eval_sets": {"uniq_eval_sets_app_eval_set", "idx_eval_sets_app_created"},
    "evaluation_eval_cases": {"uniq_eval_cases_app_set_case", "idx_eval_cases_app_set_order"},
    "evaluation_metrics": {"uniq_metrics_app_set_name", "idx_metrics_app_set"},
    "evaluation_eval_set_results": {
        "uniq_results_app_result_id", "idx_results_app_created", "idx_results_app_set_created",
    },
}  # fmt: skip
TRPC_UNIQUE = {
    "evaluation_eval_sets": ["app_name", "eval_set_id"],
    "evaluation_eval_cases": ["app_name", "eval_set_id", "eval_id"],
    "evaluation_metrics": ["app_name", "eval_set_id", "metric_name"],
    "evaluation_eval_set_results": ["app_name", "eval_set_result_id"],
}


def _engine(url: str) -> sa.Engine:
    return sa.create_engine(url)


def test_trpc_tables_columns_and_keys(store_url: str) -> None:
    open_store(store_url).results().store.ping()
    engine = _engine(store_url)
    inspector = sa.inspect(engine)
    for table, columns in TRPC_COLUMNS.items():
        present = [c["name"] for c in inspector.get_columns(table)]
        assert present[: len(columns)] == columns, table  # trpc's columns first, in trpc's order
        names = {i["name"] for i in inspector.get_indexes(table)} | {
            u["name"] for u in inspector.get_unique_constraints(table)
        }
        assert TRPC_INDEXES[table] <= names, table
        uniques = [u["column_names"] for u in inspector.get_unique_constraints(table)]
        uniques += [i["column_names"] for i in inspector.get_indexes(table) if i["unique"]]
        assert TRPC_UNIQUE[table] in uniques, table
    assert {"evaluation_case_results", "evaluation_metric_results", "schema_version"} <= set(
        inspector.get_table_names()
    )
    engine.dispose()


def test_trpc_statements_read_what_agentgauge_writes(store_url: str) -> None:
    """trpc-agent-go's own SELECTs, run on rows agentgauge wrote, give the JSON payloads trpc decodes."""
    store = open_store(store_url)
    eval_set = load_eval_set(EXAMPLES / "calculator" / "calculator.evalset.json")
    metrics = load_metrics(EXAMPLES / "calculator" / "calculator.metrics.json")
    result = load_result(MATH_RESULT)
    store.eval_sets().put("app", eval_set)
    store.metrics().put_all("app", "calculator", metrics)
    store.results().save("app", result.model_copy(deep=True))
    engine = _engine(store_url)
    p = {"app": "app", "set": "calculator"}
    with engine.connect() as conn:
        row = conn.execute(
            sa.text("SELECT name, description, created_at FROM evaluation_eval_sets "
                    "WHERE app_name = :app AND eval_set_id = :set"), p,
        ).one()  # fmt: skip
        assert row.name == eval_set.name
        cases = conn.execute(
            sa.text("SELECT eval_case FROM evaluation_eval_cases WHERE app_name = :app AND eval_set_id = :set "
                    "ORDER BY id ASC"), p,
        ).scalars().all()  # fmt: skip
        assert [_json(c) for c in cases] == [c.model_dump(mode="json") for c in eval_set.eval_cases]
        names = conn.execute(
            sa.text("SELECT metric_name FROM evaluation_metrics WHERE app_name = :app AND eval_set_id = :set "
                    "ORDER BY metric_name ASC"), p,
        ).scalars().all()  # fmt: skip
        assert names == sorted(m.metric_name for m in metrics)
        stored = conn.execute(
            sa.text("SELECT eval_set_id, eval_set_result_name, eval_case_results, summary, created_at FROM "
                    "evaluation_eval_set_results WHERE app_name = :app AND eval_set_result_id = :id"),
            {"app": "app", "id": result.eval_set_result_id},
        ).one()  # fmt: skip
        doc = result.model_dump(mode="json")
        assert stored.eval_set_id == result.eval_set_id
        assert stored.eval_set_result_name == result.eval_set_result_name
        assert _json(stored.eval_case_results) == doc["evalCaseResults"]  # the whole array, camelCase
        assert _json(stored.summary) == doc.get("summary")
        ids = conn.execute(
            sa.text("SELECT eval_set_result_id FROM evaluation_eval_set_results WHERE app_name = :app "
                    "ORDER BY created_at DESC"), p,
        ).scalars().all()  # fmt: skip
        assert ids == [result.eval_set_result_id]
    engine.dispose()


def _json(value: object) -> object:
    return json.loads(value) if isinstance(value, str) else value


_TRPC_DDL = {
    # trpc-agent-go's CREATE TABLE statements (schema.go), with the MySQL-only parts in the form each database takes.
    "sqlite": ("INTEGER PRIMARY KEY AUTOINCREMENT", "TEXT", "TIMESTAMP"),
    "postgresql": ("BIGSERIAL PRIMARY KEY", "JSON", "TIMESTAMP(6) WITH TIME ZONE"),
}


def _create_trpc_tables(url: str) -> None:
    engine = _engine(url)
    ident, js, ts = _TRPC_DDL[engine.dialect.name]
    stamps = f"created_at {ts} NOT NULL DEFAULT CURRENT_TIMESTAMP, updated_at {ts} NOT NULL DEFAULT CURRENT_TIMESTAMP"
    statements = [
        f"CREATE TABLE evaluation_eval_sets (id {ident}, app_name VARCHAR(255) NOT NULL, eval_set_id VARCHAR(255) "
        f"NOT NULL, name VARCHAR(255) NOT NULL, description TEXT DEFAULT NULL, {stamps})",
        "CREATE UNIQUE INDEX uniq_eval_sets_app_eval_set ON evaluation_eval_sets(app_name, eval_set_id)",
        f"CREATE TABLE evaluation_eval_cases (id {ident}, app_name VARCHAR(255) NOT NULL, eval_set_id VARCHAR(255) "
        f"NOT NULL, eval_id VARCHAR(255) NOT NULL, eval_mode VARCHAR(32) NOT NULL DEFAULT '', eval_case {js} NOT "
        f"NULL, {stamps})",
        "CREATE UNIQUE INDEX uniq_eval_cases_app_set_case ON evaluation_eval_cases(app_name, eval_set_id, eval_id)",
        f"CREATE TABLE evaluation_metrics (id {ident}, app_name VARCHAR(255) NOT NULL, eval_set_id VARCHAR(255) NOT "
        f"NULL, metric_name VARCHAR(255) NOT NULL, metric {js} NOT NULL, {stamps})",
        "CREATE UNIQUE INDEX uniq_metrics_app_set_name ON evaluation_metrics(app_name, eval_set_id, metric_name)",
        f"CREATE TABLE evaluation_eval_set_results (id {ident}, app_name VARCHAR(255) NOT NULL, eval_set_result_id "
        f"VARCHAR(255) NOT NULL, eval_set_id VARCHAR(255) NOT NULL, eval_set_result_name VARCHAR(255) NOT NULL, "
        f"eval_case_results {js} NOT NULL, summary {js} DEFAULT NULL, {stamps})",
        "CREATE UNIQUE INDEX uniq_results_app_result_id ON evaluation_eval_set_results(app_name, eval_set_result_id)",
    ]
    eval_set = load_eval_set(EXAMPLES / "math_basic" / "math-basic.evalset.json")
    metrics = load_metrics(EXAMPLES / "math_basic" / "math-basic.metrics.json")
    result = load_result(MATH_RESULT)
    with engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)
        # trpc-agent-go's INSERTs (mysql.go of each manager).
        conn.execute(
            sa.text("INSERT INTO evaluation_eval_sets (app_name, eval_set_id, name, description) "
                    "VALUES (:a, :s, :n, :d)"),
            {"a": "app", "s": eval_set.eval_set_id, "n": eval_set.eval_set_id, "d": ""},
        )  # fmt: skip
        for case in eval_set.eval_cases:
            conn.execute(
                sa.text("INSERT INTO evaluation_eval_cases (app_name, eval_set_id, eval_id, eval_mode, eval_case) "
                        "VALUES (:a, :s, :i, :m, :c)"),
                {"a": "app", "s": eval_set.eval_set_id, "i": case.eval_id, "m": case.eval_mode,
                 "c": json.dumps(case.model_dump(mode="json"))},
            )  # fmt: skip
        for metric in metrics:
            conn.execute(
                sa.text("INSERT INTO evaluation_metrics (app_name, eval_set_id, metric_name, metric) "
                        "VALUES (:a, :s, :n, :m)"),
                {"a": "app", "s": eval_set.eval_set_id, "n": metric.metric_name,
                 "m": json.dumps(metric.model_dump(mode="json"))},
            )  # fmt: skip
        doc = result.model_dump(mode="json")
        conn.execute(
            sa.text("INSERT INTO evaluation_eval_set_results (app_name, eval_set_result_id, eval_set_id, "
                    "eval_set_result_name, eval_case_results, summary) VALUES (:a, :i, :s, :n, :c, :m)"),
            {"a": "app", "i": result.eval_set_result_id, "s": result.eval_set_id, "n": result.eval_set_result_name,
             "c": json.dumps(doc["evalCaseResults"]), "m": json.dumps(doc["summary"]) if "summary" in doc else None},
        )  # fmt: skip
    engine.dispose()


def test_a_trpc_database_is_upgraded_and_read(store_url: str) -> None:
    _create_trpc_tables(store_url)
    store = open_store(store_url)
    assert store.results().store.ping() == SCHEMA_VERSION
    eval_set = load_eval_set(EXAMPLES / "math_basic" / "math-basic.evalset.json")
    found = store.eval_sets().get("app", eval_set.eval_set_id)
    assert found.eval_cases == eval_set.eval_cases
    assert found.name == eval_set.eval_set_id  # what trpc-agent-go's Create writes
    assert found.creation_timestamp is not None  # from created_at
    assert store.metrics().get_all("app", eval_set.eval_set_id) == load_metrics(
        EXAMPLES / "math_basic" / "math-basic.metrics.json"
    )
    result = load_result(MATH_RESULT)
    stored = store.results().get("app", result.eval_set_result_id)
    assert stored.eval_case_results == result.eval_case_results
    assert stored.summary == result.summary
    # agentgauge's columns were added to the trpc tables; new writes work next to the trpc rows.
    inspector = sa.inspect(store.results().store.engine)
    assert {"status", "interrupted", "num_cases", "creation_timestamp", "extra"} <= {
        c["name"] for c in inspector.get_columns("evaluation_eval_set_results")
    }
    store.eval_sets().add_case(
        "app", eval_set.eval_set_id, eval_set.eval_cases[0].model_copy(update={"eval_id": "new"})
    )
    assert store.eval_sets().get("app", eval_set.eval_set_id).eval_cases[-1].eval_id == "new"


def test_schema_version_is_recorded_and_a_newer_one_is_refused(store_url: str) -> None:
    store = open_store(store_url)
    assert store.results().store.ping() == SCHEMA_VERSION
    engine = _engine(store_url)
    with engine.begin() as conn:
        assert conn.execute(sa.text("SELECT id, version FROM schema_version")).all() == [(1, SCHEMA_VERSION)]
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    engine.dispose()
    with pytest.raises(SchemaTooNewError) as caught:
        open_store(store_url).results().list("app")
    shown = store_url.split("://", 1)[1]
    assert str(caught.value) == (
        f"store {store_url.split('://')[0]}://{shown}: schema version {SCHEMA_VERSION + 1} is newer than the version "
        f"{SCHEMA_VERSION} this agentgauge supports; upgrade agentgauge to use this store (nothing was changed)"
    )
    assert isinstance(caught.value, InputError)


def test_table_prefix(store_url: str) -> None:
    store = open_store(store_url, prefix="trpc_")
    store.results().save("app", load_result(MATH_RESULT))
    names = set(sa.inspect(store.results().store.engine).get_table_names())
    assert {"trpc_evaluation_eval_set_results", "trpc_evaluation_case_results", "trpc_schema_version"} <= names
    assert "evaluation_eval_set_results" not in names


def test_unreachable_store_error_hides_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        open_store("postgresql://alice:hunter2-secret@127.0.0.1:1/db").results().list("app")
    message = str(caught.value)
    assert "hunter2-secret" not in message
    assert message.startswith("store postgresql+psycopg://alice:***@127.0.0.1:1/db: connection failed")


def test_skip_init_does_not_create_tables(sqlite_url: str) -> None:
    store = open_store(sqlite_url, skip_init=True)
    with pytest.raises(StoreError, match="no such table"):
        store.results().list("app")
