"""The SQL store: eval sets, metrics and results in SQLite or PostgreSQL (any SQLAlchemy 2 database).

Tables are compatible with trpc-agent-go's MySQL store (``evaluation_eval_sets``, ``evaluation_eval_cases``,
``evaluation_metrics``, ``evaluation_eval_set_results``), plus normalised ``evaluation_case_results`` and
``evaluation_metric_results`` rows keyed by (result, case, run). Needs the ``sql`` extra
(``pip install 'agentgauge[sql]'``); nothing here imports SQLAlchemy until a store is opened, so importing this
package is free.

    from agentgauge.sqlstore import open_store
    store = open_store("sqlite:///results.db")
    results = store.results()          # SqlEvalResultManager: save / get / list / open_writer / find
    labels = store.labels()            # SqlLabelStore: people's labels on judge verdicts
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._cli import check_result_id, load_stored_result, open_result_store
from ._url import STORE_ENV, normalize_url, redact_url, resolve_store_url

if TYPE_CHECKING:  # pragma: no cover
    from ._catalog import StoredResultCatalog
    from ._engine import Store, StoreError
    from ._labels import SqlLabelStore
    from ._result_rows import DEFAULT_ARRAY_MAX_CASES
    from ._result_writer import SqlResultWriter
    from ._results import ResultInfo, SqlEvalResultManager
    from ._schema import SCHEMA_VERSION, SchemaTooNewError
    from ._sets import SqlEvalSetManager, SqlMetricManager

__all__ = [
    "DEFAULT_ARRAY_MAX_CASES",
    "SCHEMA_VERSION",
    "STORE_ENV",
    "OpenedStore",
    "ResultInfo",
    "SchemaTooNewError",
    "SqlEvalResultManager",
    "SqlEvalSetManager",
    "SqlLabelStore",
    "SqlMetricManager",
    "SqlResultWriter",
    "Store",
    "StoreError",
    "StoredResultCatalog",
    "check_result_id",
    "load_stored_result",
    "normalize_url",
    "open_result_store",
    "open_store",
    "redact_url",
    "resolve_store_url",
]

_LAZY = {
    "Store": "._engine",
    "StoreError": "._engine",
    "DEFAULT_ARRAY_MAX_CASES": "._result_rows",
    "ResultInfo": "._results",
    "SqlEvalResultManager": "._results",
    "SqlResultWriter": "._result_writer",
    "SCHEMA_VERSION": "._schema",
    "SchemaTooNewError": "._schema",
    "SqlEvalSetManager": "._sets",
    "SqlLabelStore": "._labels",
    "SqlMetricManager": "._sets",
    "StoredResultCatalog": "._catalog",
}


def _require_sqlalchemy() -> None:
    from ..errors import InputError

    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        raise InputError(
            "the SQL store needs SQLAlchemy: pip install 'agentgauge[sql]' (PostgreSQL also needs psycopg)"
        ) from None


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _require_sqlalchemy()
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


class OpenedStore:
    """A store and its three managers (created on first use, sharing one connection pool)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._results: SqlEvalResultManager | None = None
        self._sets: SqlEvalSetManager | None = None
        self._metrics: SqlMetricManager | None = None

    def results(self) -> SqlEvalResultManager:
        """The result manager."""
        if self._results is None:
            from ._results import SqlEvalResultManager

            self._results = SqlEvalResultManager(self.store)
        return self._results

    def eval_sets(self) -> SqlEvalSetManager:
        """The eval set manager."""
        if self._sets is None:
            from ._sets import SqlEvalSetManager

            self._sets = SqlEvalSetManager(self.store)
        return self._sets

    def metrics(self) -> SqlMetricManager:
        """The metric manager."""
        if self._metrics is None:
            from ._sets import SqlMetricManager

            self._metrics = SqlMetricManager(self.store)
        return self._metrics

    def labels(self) -> SqlLabelStore:
        """People's labels on judge metrics of the store's results."""
        from ._labels import SqlLabelStore

        return SqlLabelStore(self.store)

    def __repr__(self) -> str:
        return f"OpenedStore({self.store.shown_url!r})"


def open_store(url: str, *, prefix: str = "", skip_init: bool = False) -> OpenedStore:
    """Open the store at ``url`` (``sqlite:///path.db``, ``postgresql+psycopg://user@host/db``, or a plain file
    path for SQLite); the schema is created or upgraded on first use. Raises :class:`InputError` when SQLAlchemy or
    the database driver is missing, :class:`StoreError` for a URL SQLAlchemy refuses."""
    _require_sqlalchemy()
    from ._engine import Store

    return OpenedStore(Store(url, prefix=prefix, skip_init=skip_init))
