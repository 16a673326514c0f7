"""A connection to a store database: the engine, transactions, upserts, and errors that never show credentials."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from .._util.redact import redact
from ..errors import InputError
from ._schema import Tables, build_tables, ensure_schema
from ._url import normalize_url, redact_url

__all__ = ["Store", "StoreError", "from_timestamp", "to_timestamp"]

_SQLITE_BUSY_MS = 60_000
_PG_LOCK_KEY = 0x61676175  # "agau": serialises schema set-up across processes on PostgreSQL


class StoreError(InputError):
    """The store cannot be reached or used (bad URL, server down, permission denied, ...). Never shows a password."""


def _dumps(value: Any) -> str:
    """JSON text for a JSON column, registered secrets masked (as in every file agentgauge writes)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # e.g. an integer beyond 64 bits in an unknown key
        text = json.dumps(value, ensure_ascii=False)
    return redact(text)


def _loads(text: str | bytes) -> Any:
    """A JSON column's value, integers beyond 64 bits exact (orjson alone would make them floats)."""
    from ..formats._jsonexact import loads

    return loads(text)


def to_timestamp(value: datetime | None) -> float | None:
    """Epoch seconds of a column value (SQLite returns naive datetimes: they are UTC)."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


def from_timestamp(value: float | None) -> datetime:
    """The column value for epoch seconds (now when ``None``)."""
    return datetime.now(UTC) if value is None else datetime.fromtimestamp(value, UTC)


def _first_line(error: BaseException) -> str:
    orig = getattr(error, "orig", None) or error
    lines = [line.strip() for line in str(orig).splitlines() if line.strip()]
    return lines[0] if lines else type(orig).__name__


class Store:
    """One store database: ``url`` (``sqlite:///file.db``, ``postgresql+psycopg://...``; a plain path is SQLite).

    The schema is created or upgraded on first use unless ``skip_init`` (like trpc-agent-go's ``WithSkipDBInit``);
    a database with a newer schema is refused. ``prefix`` is prepended to every table name (trpc's
    ``WithTablePrefix``). Thread-safe; share one instance between the managers of a process.
    """

    def __init__(self, url: str, *, prefix: str = "", skip_init: bool = False, echo: bool = False) -> None:
        self.url = normalize_url(url)
        self.shown_url = redact_url(self.url)
        self.tables: Tables = build_tables(prefix)
        self._skip_init = skip_init
        self._ready = False
        self._lock = threading.Lock()
        try:
            self.engine = sa.create_engine(
                self.url,
                echo=echo,
                json_serializer=_dumps,
                json_deserializer=_loads,
                pool_pre_ping=True,
                **self._engine_options(),
            )
        except (SQLAlchemyError, ImportError, ValueError) as exc:
            raise StoreError(self._message(exc)) from None
        if self.engine.dialect.name == "sqlite":
            database = self.engine.url.database
            if database and database != ":memory:" and not database.startswith("file:"):
                Path(database).parent.mkdir(parents=True, exist_ok=True)  # a new store in a new folder just works
            self._sqlite_setup()

    def _message(self, error: BaseException) -> str:
        """``store <url without password>: <the driver's first line>`` (the URL itself is masked in that line)."""
        return f"store {self.shown_url}: {redact(_first_line(error).replace(self.url, self.shown_url))}"

    def _engine_options(self) -> dict[str, Any]:
        if self.url.startswith("sqlite"):
            return {"connect_args": {"timeout": _SQLITE_BUSY_MS / 1000, "check_same_thread": False}}
        return {}

    def _sqlite_setup(self) -> None:
        @event.listens_for(self.engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            # The driver's own transaction handling is off; "begin" below opens every transaction IMMEDIATE, so
            # concurrent writers queue on the database lock (busy_timeout) instead of failing to upgrade a read lock.
            dbapi_conn.isolation_level = None
            cursor = dbapi_conn.cursor()
            cursor.execute(f"PRAGMA busy_timeout={_SQLITE_BUSY_MS}")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(self.engine, "begin")
        def _begin(conn: sa.Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    @property
    def dialect(self) -> str:
        """``sqlite``, ``postgresql``, ``mysql``, ..."""
        return str(self.engine.dialect.name)

    def _init(self) -> None:
        with self._lock:
            if self._ready:
                return
            if not self._skip_init:
                with self.engine.begin() as conn:
                    if self.dialect == "postgresql":
                        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
                    ensure_schema(conn, self.tables, self.shown_url)
            self._ready = True

    @contextmanager
    def begin(self) -> Iterator[sa.Connection]:
        """A connection in a transaction (committed when the block ends normally); errors become
        :class:`StoreError` with the password-free URL. :class:`IntegrityError` is passed through for callers that
        turn a duplicate key into their own message."""
        try:
            self._init()
            with self.engine.begin() as conn:
                yield conn
        except (IntegrityError, InputError):
            raise
        except SQLAlchemyError as exc:
            raise StoreError(self._message(exc)) from None

    def upsert(self, conn: sa.Connection, table: sa.Table, rows: Sequence[dict[str, Any]], keys: Sequence[str]) -> None:
        """Insert ``rows``, replacing the row with the same ``keys`` (one statement per dialect's upsert)."""
        if not rows:
            return
        update = [c for c in rows[0] if c not in keys]
        name = self.dialect
        if name in ("postgresql", "sqlite"):
            from sqlalchemy.dialects.postgresql import insert as pg_insert
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            insert = (pg_insert if name == "postgresql" else sqlite_insert)(table)
            stmt = insert.on_conflict_do_update(index_elements=list(keys), set_={c: insert.excluded[c] for c in update})
            conn.execute(stmt, list(rows))
        elif name == "mysql":
            from sqlalchemy.dialects.mysql import insert as my_insert

            my_stmt = my_insert(table)
            conn.execute(my_stmt.on_duplicate_key_update({c: my_stmt.inserted[c] for c in update}), list(rows))
        else:  # any other database: replace by key
            for row in rows:
                conn.execute(sa.delete(table).where(*(table.c[k] == row[k] for k in keys)))
            conn.execute(sa.insert(table), list(rows))

    def ping(self) -> int:
        """Connect, create or upgrade the schema, and return the schema version now in the database."""
        from ._schema import read_version

        with self.begin() as conn:
            return read_version(conn, self.tables)

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Store({self.shown_url!r})"
