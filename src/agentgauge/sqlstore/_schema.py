"""The store's tables (SQLAlchemy Core) and its versioned schema.

The four ``evaluation_*`` tables have the names, columns, keys and index names of trpc-agent-go's MySQL store
(``evaluation/internal/mysqldb/schema.go``), so a database written by one is read by the other. agentgauge adds
nullable or defaulted columns to them (a trpc writer that names only its own columns still inserts fine) and two
normalised tables, one row per case run and one per metric of a case run, keyed so writes are idempotent.

Versions (``schema_version`` table, one row):

- 0: no ``schema_version`` table -- an empty database, or one trpc-agent-go created;
- 1: the trpc tables with agentgauge's columns, ``evaluation_case_results``, ``evaluation_metric_results``;
- 2: ``evaluation_labels``, people's verdicts on judge metrics (``agentgauge calibrate``);
- 3: the results' ``run_metadata`` column (labels and provenance of a run) and ``evaluation_run_labels``, one row per
  label of a result, to find results by label.

:func:`ensure_schema` upgrades step by step inside one transaction and refuses a database of a newer version.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.dialects import mysql

from ..errors import InputError

__all__ = ["SCHEMA_VERSION", "SchemaTooNewError", "Tables", "build_tables", "ensure_schema", "read_version"]

SCHEMA_VERSION = 3
"""The schema version this agentgauge writes and reads."""

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")  # SQLite auto-increments only INTEGER PRIMARY KEY
_TIME = sa.DateTime(timezone=True).with_variant(mysql.TIMESTAMP(fsp=6), "mysql")
_NAME = sa.String(255)
# JSON on PostgreSQL and MySQL (PostgreSQL's ``json`` keeps the text as written: key order, and ``\u0000``, which
# ``jsonb`` refuses), TEXT holding the JSON document on SQLite (its JSON functions work on TEXT).
_JSON = sa.JSON(none_as_null=True)
_NOW = sa.text("CURRENT_TIMESTAMP")


class SchemaTooNewError(InputError):
    """The database was written by a newer agentgauge (its schema version is above :data:`SCHEMA_VERSION`)."""


@dataclass(frozen=True)
class Tables:
    """The store's tables for one table-name prefix."""

    metadata: sa.MetaData
    eval_sets: sa.Table
    eval_cases: sa.Table
    metrics: sa.Table
    eval_set_results: sa.Table
    case_results: sa.Table
    metric_results: sa.Table
    schema_version: sa.Table
    labels: sa.Table
    run_labels: sa.Table


def _stamps() -> list[sa.Column[object]]:
    return [
        sa.Column("created_at", _TIME, nullable=False, server_default=_NOW),
        sa.Column("updated_at", _TIME, nullable=False, server_default=_NOW),
    ]


def build_tables(prefix: str = "") -> Tables:
    """The tables, named ``<prefix>evaluation_...`` like trpc-agent-go's ``WithTablePrefix``."""
    md = sa.MetaData()
    eval_sets, eval_cases, metrics = _eval_set_tables(md, prefix)
    eval_set_results = _eval_set_results_table(md, prefix)
    case_results, metric_results = _case_run_tables(md, prefix)
    schema_version = sa.Table(
        f"{prefix}schema_version",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("updated_at", _TIME, nullable=False, server_default=_NOW),
    )
    labels = _labels_table(md, prefix)
    run_labels = _run_labels_table(md, prefix)
    return Tables(
        md,
        eval_sets,
        eval_cases,
        metrics,
        eval_set_results,
        case_results,
        metric_results,
        schema_version,
        labels,
        run_labels,
    )


def _eval_set_tables(md: sa.MetaData, p: str) -> tuple[sa.Table, sa.Table, sa.Table]:
    """trpc-agent-go's eval sets, their cases and their metrics."""
    eval_sets = sa.Table(
        f"{p}evaluation_eval_sets",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("name", _NAME, nullable=False),
        sa.Column("description", sa.Text, nullable=True),
        *_stamps(),
        # agentgauge: the set without its cases as written (name, timestamp, unknown keys), for exact round trips.
        sa.Column("extra", _JSON, nullable=True),
        sa.UniqueConstraint("app_name", "eval_set_id", name=f"{p}uniq_eval_sets_app_eval_set"),
        sa.Index(f"{p}idx_eval_sets_app_created", "app_name", "created_at"),
    )
    eval_cases = sa.Table(
        f"{p}evaluation_eval_cases",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("eval_id", _NAME, nullable=False),
        sa.Column("eval_mode", sa.String(32), nullable=False, server_default=""),
        sa.Column("eval_case", _JSON, nullable=False),
        *_stamps(),
        sa.UniqueConstraint("app_name", "eval_set_id", "eval_id", name=f"{p}uniq_eval_cases_app_set_case"),
        sa.Index(f"{p}idx_eval_cases_app_set_order", "app_name", "eval_set_id", "id"),
    )
    metrics = sa.Table(
        f"{p}evaluation_metrics",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("metric_name", _NAME, nullable=False),
        sa.Column("metric", _JSON, nullable=False),
        *_stamps(),
        sa.UniqueConstraint("app_name", "eval_set_id", "metric_name", name=f"{p}uniq_metrics_app_set_name"),
        sa.Index(f"{p}idx_metrics_app_set", "app_name", "eval_set_id"),
    )
    return eval_sets, eval_cases, metrics


def _eval_set_results_table(md: sa.MetaData, p: str) -> sa.Table:
    """trpc-agent-go's result header (one row per result, the whole case array for trpc readers)."""
    return sa.Table(
        f"{p}evaluation_eval_set_results",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_result_id", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("eval_set_result_name", _NAME, nullable=False),
        sa.Column("eval_case_results", _JSON, nullable=False),
        sa.Column("summary", _JSON, nullable=True),
        *_stamps(),
        # agentgauge: run state (a trpc row is a finished result), sizes and the exact creation timestamp.
        sa.Column("status", sa.String(16), nullable=False, server_default="completed"),
        sa.Column("interrupted", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("num_cases", sa.Integer, nullable=False, server_default="0"),
        sa.Column("creation_timestamp", sa.Float, nullable=True),
        sa.Column("extra", _JSON, nullable=True),  # unknown top-level keys of the result, kept as written
        sa.Column("run_metadata", _JSON, nullable=True),  # labels and provenance of the run (schema 3)
        sa.UniqueConstraint("app_name", "eval_set_result_id", name=f"{p}uniq_results_app_result_id"),
        sa.Index(f"{p}idx_results_app_created", "app_name", "created_at"),
        sa.Index(f"{p}idx_results_app_set_created", "app_name", "eval_set_id", "created_at"),
    )


def _case_run_tables(md: sa.MetaData, p: str) -> tuple[sa.Table, sa.Table]:
    """agentgauge's normalised rows: one per case run of a result, one per metric of a case run."""
    case_results = sa.Table(
        f"{p}evaluation_case_results",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_result_id", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("eval_id", _NAME, nullable=False),
        sa.Column("run_id", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False, server_default="0"),
        sa.Column("final_eval_status", sa.String(16), nullable=False),
        sa.Column("error_message", sa.Text, nullable=True),
        sa.Column("session_id", _NAME, nullable=False, server_default=""),
        sa.Column("user_id", _NAME, nullable=False, server_default=""),
        sa.Column("result", _JSON, nullable=False),
        *_stamps(),
        sa.UniqueConstraint(
            "app_name", "eval_set_result_id", "eval_id", "run_id", name=f"{p}uniq_case_results_result_case_run"
        ),
        sa.Index(f"{p}idx_case_results_result_status", "app_name", "eval_set_result_id", "final_eval_status"),
        sa.Index(f"{p}idx_case_results_case_history", "app_name", "eval_set_id", "eval_id", "created_at"),
    )
    metric_results = sa.Table(
        f"{p}evaluation_metric_results",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_result_id", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False),
        sa.Column("eval_id", _NAME, nullable=False),
        sa.Column("run_id", sa.Integer, nullable=False),
        sa.Column("metric_name", _NAME, nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("eval_status", sa.String(16), nullable=False),
        sa.Column("threshold", sa.Float, nullable=True),
        sa.UniqueConstraint(
            "app_name",
            "eval_set_result_id",
            "eval_id",
            "run_id",
            "metric_name",
            name=f"{p}uniq_metric_results_result_case_run_metric",
        ),
        sa.Index(f"{p}idx_metric_results_metric_status", "metric_name", "eval_status"),
    )
    return case_results, metric_results


def _labels_table(md: sa.MetaData, p: str) -> sa.Table:
    """People's verdicts on judge metrics of a stored result (one row per label key; ``label`` is the whole
    ``HumanLabel`` JSON). ``run_id`` / ``invocation`` 0 stand for "unset" so the unique key holds no NULL."""
    return sa.Table(
        f"{p}evaluation_labels",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_result_id", _NAME, nullable=False),
        sa.Column("eval_set_id", _NAME, nullable=False, server_default=""),
        sa.Column("eval_id", _NAME, nullable=False),
        sa.Column("run_id", sa.Integer, nullable=False, server_default="0"),
        sa.Column("invocation", sa.Integer, nullable=False, server_default="0"),
        sa.Column("metric_name", _NAME, nullable=False),
        sa.Column("verdict", sa.String(16), nullable=False),
        sa.Column("label", _JSON, nullable=False),
        *_stamps(),
        sa.UniqueConstraint(
            "app_name",
            "eval_set_result_id",
            "eval_set_id",
            "eval_id",
            "run_id",
            "invocation",
            "metric_name",
            name=f"{p}uniq_labels_result_case_run_inv_metric",
        ),
        sa.Index(f"{p}idx_labels_result_case", "app_name", "eval_set_result_id", "eval_id"),
    )


def _run_labels_table(md: sa.MetaData, p: str) -> sa.Table:
    """The labels of each result's run (``eval --label KEY=VALUE``), one row per key, to filter results by label
    (the result's ``run_metadata`` column holds them too)."""
    return sa.Table(
        f"{p}evaluation_run_labels",
        md,
        sa.Column("id", _ID, primary_key=True, autoincrement=True),
        sa.Column("app_name", _NAME, nullable=False),
        sa.Column("eval_set_result_id", _NAME, nullable=False),
        sa.Column("label_key", sa.String(64), nullable=False),
        sa.Column("label_value", _NAME, nullable=False),
        sa.UniqueConstraint("app_name", "eval_set_result_id", "label_key", name=f"{p}uniq_run_labels_result_key"),
        sa.Index(f"{p}idx_run_labels_key_value", "label_key", "label_value"),
    )


def read_version(conn: sa.Connection, tables: Tables) -> int:
    """The schema version of the database (0 when it has no ``schema_version`` table or row)."""
    if not sa.inspect(conn).has_table(tables.schema_version.name):
        return 0
    found = conn.execute(sa.select(tables.schema_version.c.version).where(tables.schema_version.c.id == 1)).scalar()
    return int(found) if found is not None else 0


def _step_1(conn: sa.Connection, tables: Tables) -> None:
    """0 -> 1: create what is missing; trpc-agent-go's tables get agentgauge's columns and missing indexes."""
    inspector = sa.inspect(conn)
    for table in tables.metadata.sorted_tables:
        if not inspector.has_table(table.name):
            table.create(conn)
            continue
        present = {c["name"] for c in inspector.get_columns(table.name)}
        for column in table.columns:
            if column.name not in present:
                _add_column(conn, table, column)
        indexed = {i["name"] for i in inspector.get_indexes(table.name)}
        indexed |= {u["name"] for u in inspector.get_unique_constraints(table.name)}
        for index in table.indexes:
            if index.name not in indexed:
                index.create(conn)


def _add_column(conn: sa.Connection, table: sa.Table, column: sa.Column[object]) -> None:
    kind = column.type.compile(dialect=conn.dialect)
    sql = f"ALTER TABLE {_quote(conn, table.name)} ADD COLUMN {_quote(conn, column.name)} {kind}"
    default = column.server_default
    if default is not None:
        arg = getattr(default, "arg", None)
        value = arg.compile(dialect=conn.dialect) if isinstance(arg, sa.sql.ClauseElement) else f"'{arg}'"
        sql += f" DEFAULT {value}"
    if not column.nullable:
        sql += " NOT NULL"
    conn.exec_driver_sql(sql)


def _quote(conn: sa.Connection, name: str) -> str:
    return conn.dialect.identifier_preparer.quote(name)


def _step_2(conn: sa.Connection, tables: Tables) -> None:
    """1 -> 2: the labels table (a database upgraded from 0 got it in step 1 already)."""
    tables.labels.create(conn, checkfirst=True)


def _step_3(conn: sa.Connection, tables: Tables) -> None:
    """2 -> 3: the results' ``run_metadata`` column and the run labels table (present already after step 1)."""
    results = tables.eval_set_results
    present = {c["name"] for c in sa.inspect(conn).get_columns(results.name)}
    if "run_metadata" not in present:
        _add_column(conn, results, results.c.run_metadata)
    tables.run_labels.create(conn, checkfirst=True)


_STEPS: dict[int, Callable[[sa.Connection, Tables], None]] = {1: _step_1, 2: _step_2, 3: _step_3}


def ensure_schema(conn: sa.Connection, tables: Tables, where: str) -> int:
    """Bring the database to :data:`SCHEMA_VERSION` (inside the caller's transaction) and return the version found.

    Raises :class:`SchemaTooNewError` when the database's version is newer than this agentgauge's.
    """
    found = read_version(conn, tables)
    if found > SCHEMA_VERSION:
        raise SchemaTooNewError(
            f"store {where}: schema version {found} is newer than the version {SCHEMA_VERSION} this agentgauge "
            "supports; upgrade agentgauge to use this store (nothing was changed)"
        )
    if found == SCHEMA_VERSION:
        return found
    for step in range(found + 1, SCHEMA_VERSION + 1):
        _STEPS[step](conn, tables)
    version = tables.schema_version
    if found == 0 and conn.execute(sa.select(version.c.id)).first() is None:
        conn.execute(sa.insert(version).values(id=1, version=SCHEMA_VERSION))
    else:
        conn.execute(
            sa.update(version).where(version.c.id == 1).values(version=SCHEMA_VERSION, updated_at=sa.func.now())
        )
    return found
