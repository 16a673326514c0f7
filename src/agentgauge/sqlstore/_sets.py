"""Eval sets and metrics in a store database, with the interface of the local managers.

Rows are those of trpc-agent-go's MySQL managers: one ``evaluation_eval_sets`` row per set, one
``evaluation_eval_cases`` row per case (the whole case as JSON, insertion order = case order), one
``evaluation_metrics`` row per metric. Every change is one transaction, so concurrent writers in any process
never lose each other's changes.
"""

from __future__ import annotations

import builtins
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from .._util.redact import redact
from ..errors import InputError, NotFoundError
from ..model import EvalCase, EvalMetric, EvalSet
from ..model._ids import check_case_id
from ..storage import EvalSetManager, MetricManager, check_segment
from ..storage._evalset import fill_timestamps
from ._engine import Store, from_timestamp, to_timestamp

__all__ = ["SqlEvalSetManager", "SqlMetricManager"]


def _case_row(app: str, set_id: str, case: EvalCase) -> dict[str, Any]:
    return {
        "app_name": app,
        "eval_set_id": set_id,
        "eval_id": case.eval_id,
        "eval_mode": case.eval_mode,
        "eval_case": case.model_dump(mode="json"),
    }


class SqlEvalSetManager(EvalSetManager):
    """:class:`~agentgauge.storage.EvalSetManager` on a store (a :class:`Store` or its URL).

    ``create`` inserts ``name = evalSetId`` like trpc-agent-go; the set's own fields (name, description,
    timestamp, unknown keys) are also kept as JSON in the ``extra`` column, so ``put`` then ``get`` gives back an
    identical set. Sets written by trpc-agent-go (no ``extra``) are read from the columns.
    """

    def __init__(self, store: Store | str) -> None:
        super().__init__()
        self.store = store if isinstance(store, Store) else Store(store)
        self._t = self.store.tables

    def _set_where(self, app: str, set_id: str) -> Any:
        sets = self._t.eval_sets
        return sa.and_(sets.c.app_name == app, sets.c.eval_set_id == set_id)

    def _case_where(self, app: str, set_id: str) -> Any:
        cases = self._t.eval_cases
        return sa.and_(cases.c.app_name == app, cases.c.eval_set_id == set_id)

    def _read(self, app: str, set_id: str) -> EvalSet | None:
        sets, cases = self._t.eval_sets, self._t.eval_cases
        with self.store.begin() as conn:
            row = conn.execute(sa.select(sets).where(self._set_where(app, set_id))).mappings().first()
            if row is None:
                return None
            found = conn.execute(
                sa.select(cases.c.eval_case).where(self._case_where(app, set_id)).order_by(cases.c.id)
            ).scalars()
            case_docs = list(found)
        doc: dict[str, Any] = dict(row["extra"] or {})
        if not doc:  # written by trpc-agent-go: the columns are all there is
            doc = {"evalSetId": set_id, "name": row["name"], "creationTimestamp": to_timestamp(row["created_at"])}
            if row["description"]:
                doc["description"] = row["description"]
        doc["evalSetId"] = set_id
        doc["evalCases"] = case_docs
        return EvalSet.model_validate(doc)

    def _set_row(self, app: str, eval_set: EvalSet) -> dict[str, Any]:
        header = eval_set.model_dump(mode="json", exclude={"eval_cases"})
        return {
            "app_name": app,
            "eval_set_id": eval_set.eval_set_id,
            "name": eval_set.name if eval_set.name is not None else eval_set.eval_set_id,
            "description": None if eval_set.description is None else redact(eval_set.description),
            "extra": header,
            "created_at": from_timestamp(eval_set.creation_timestamp),
            "updated_at": from_timestamp(None),
        }

    def _write(self, app: str, eval_set: EvalSet) -> None:
        with self.store.begin() as conn:
            self.store.upsert(conn, self._t.eval_sets, [self._set_row(app, eval_set)], ("app_name", "eval_set_id"))
            conn.execute(sa.delete(self._t.eval_cases).where(self._case_where(app, eval_set.eval_set_id)))
            rows = [_case_row(app, eval_set.eval_set_id, case) for case in eval_set.eval_cases]
            if rows:
                conn.execute(sa.insert(self._t.eval_cases), rows)

    def _remove(self, app: str, set_id: str) -> bool:
        with self.store.begin() as conn:  # cases then the set, in one transaction (as trpc-agent-go does)
            conn.execute(sa.delete(self._t.eval_cases).where(self._case_where(app, set_id)))
            return bool(conn.execute(sa.delete(self._t.eval_sets).where(self._set_where(app, set_id))).rowcount)

    def _ids(self, app: str) -> list[str]:
        sets = self._t.eval_sets
        with self.store.begin() as conn:
            return list(conn.execute(sa.select(sets.c.eval_set_id).where(sets.c.app_name == app)).scalars())

    def create(self, app: str, set_id: str) -> EvalSet:
        """Create an empty eval set named after its id; fails if it already exists."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        eval_set = EvalSet(eval_set_id=set_id, name=set_id, eval_cases=[], creation_timestamp=time.time())
        try:
            with self.store.begin() as conn:
                conn.execute(sa.insert(self._t.eval_sets), [self._set_row(app, eval_set)])
        except IntegrityError:
            raise InputError(f"eval set {set_id!r} of app {app!r} already exists") from None
        return eval_set

    def _require_set(self, conn: sa.Connection, app: str, set_id: str) -> None:
        sets = self._t.eval_sets
        if conn.execute(sa.select(sets.c.id).where(self._set_where(app, set_id))).first() is None:
            raise self._not_found(app, set_id)

    def get_case(self, app: str, set_id: str, case_id: str) -> EvalCase:
        """One case of an eval set; :class:`NotFoundError` when the set or the case does not exist."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        check_case_id(case_id)
        cases = self._t.eval_cases
        with self.store.begin() as conn:
            self._require_set(conn, app, set_id)
            doc = conn.execute(
                sa.select(cases.c.eval_case).where(self._case_where(app, set_id), cases.c.eval_id == case_id)
            ).scalar()
        if doc is None:
            raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")
        return EvalCase.model_validate(doc)

    def add_case(self, app: str, set_id: str, case: EvalCase) -> None:
        """Append a case; its id must be non-empty and new. Missing timestamps are set to now."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        check_case_id(case.eval_id)
        if not case.eval_id:
            raise InputError(f"cannot add a case with an empty evalId to eval set {set_id!r}")
        added = case.model_copy(deep=True)
        fill_timestamps(added, time.time())
        try:
            with self.store.begin() as conn:
                self._require_set(conn, app, set_id)
                conn.execute(sa.insert(self._t.eval_cases), [_case_row(app, set_id, added)])
        except IntegrityError:
            raise InputError(
                f"eval case {case.eval_id!r} already exists in eval set {set_id!r} of app {app!r}"
            ) from None

    def update_case(self, app: str, set_id: str, case: EvalCase) -> None:
        """Replace the case with the same id; :class:`NotFoundError` when there is none."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        check_case_id(case.eval_id)
        updated = case.model_copy(deep=True)
        fill_timestamps(updated, time.time())
        cases = self._t.eval_cases
        row = _case_row(app, set_id, updated)
        with self.store.begin() as conn:
            self._require_set(conn, app, set_id)
            changed = conn.execute(
                sa.update(cases)
                .where(self._case_where(app, set_id), cases.c.eval_id == case.eval_id)
                .values(eval_mode=row["eval_mode"], eval_case=row["eval_case"], updated_at=from_timestamp(None))
            ).rowcount
        if not changed:
            raise NotFoundError(f"eval case {case.eval_id!r} not found in eval set {set_id!r} of app {app!r}")

    def delete_case(self, app: str, set_id: str, case_id: str) -> None:
        """Remove a case; :class:`NotFoundError` when there is none."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        check_case_id(case_id)
        cases = self._t.eval_cases
        with self.store.begin() as conn:
            self._require_set(conn, app, set_id)
            gone = conn.execute(sa.delete(cases).where(self._case_where(app, set_id), cases.c.eval_id == case_id))
        if not gone.rowcount:
            raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")


class SqlMetricManager(MetricManager):
    """:class:`~agentgauge.storage.MetricManager` on a store: one ``evaluation_metrics`` row per metric.

    Metrics are listed in the order they were stored. Reads expand ``${VAR}`` in judgeModel fields; the rows keep
    the placeholders, and API keys are never written.
    """

    def __init__(self, store: Store | str) -> None:
        super().__init__()
        self.store = store if isinstance(store, Store) else Store(store)
        self._t = self.store.tables

    def _where(self, app: str, set_id: str) -> Any:
        metrics = self._t.metrics
        return sa.and_(metrics.c.app_name == app, metrics.c.eval_set_id == set_id)

    def _read(self, app: str, set_id: str, *, expand: bool) -> builtins.list[EvalMetric] | None:
        from ..formats._metrics import metrics_from_document

        metrics = self._t.metrics
        with self.store.begin() as conn:
            docs = list(
                conn.execute(sa.select(metrics.c.metric).where(self._where(app, set_id)).order_by(metrics.c.id))
                .scalars()
                .all()
            )
        if not docs:
            return None
        return metrics_from_document(docs, f"{self.store.shown_url} ({app}/{set_id})", expand=expand)

    @staticmethod
    def _row(app: str, set_id: str, metric: EvalMetric) -> dict[str, Any]:
        return {
            "app_name": app,
            "eval_set_id": set_id,
            "metric_name": metric.metric_name,
            "metric": metric.model_dump(mode="json"),
        }

    def _write(self, app: str, set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        with self.store.begin() as conn:
            conn.execute(sa.delete(self._t.metrics).where(self._where(app, set_id)))
            if metrics:
                conn.execute(sa.insert(self._t.metrics), [self._row(app, set_id, m) for m in metrics])

    def add(self, app: str, set_id: str, metric: EvalMetric) -> None:
        """Add a metric; a metric of the same name must not exist yet."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        try:
            with self.store.begin() as conn:
                conn.execute(sa.insert(self._t.metrics), [self._row(app, set_id, metric)])
        except IntegrityError:
            raise InputError(
                f"metric {metric.metric_name!r} already exists for eval set {set_id!r} of app {app!r}"
            ) from None

    def update(self, app: str, set_id: str, metric: EvalMetric) -> None:
        """Replace the metric of the same name; :class:`NotFoundError` when there is none."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        metrics = self._t.metrics
        with self.store.begin() as conn:
            changed = conn.execute(
                sa.update(metrics)
                .where(self._where(app, set_id), metrics.c.metric_name == metric.metric_name)
                .values(metric=self._row(app, set_id, metric)["metric"], updated_at=from_timestamp(None))
            ).rowcount
        if not changed:
            raise NotFoundError(f"metric {metric.metric_name!r} not found for eval set {set_id!r} of app {app!r}")

    def delete(self, app: str, set_id: str, name: str) -> None:
        """Remove a metric; :class:`NotFoundError` when there is none."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        metrics = self._t.metrics
        with self.store.begin() as conn:
            gone = conn.execute(sa.delete(metrics).where(self._where(app, set_id), metrics.c.metric_name == name))
        if not gone.rowcount:
            raise NotFoundError(f"metric {name!r} not found for eval set {set_id!r} of app {app!r}")
