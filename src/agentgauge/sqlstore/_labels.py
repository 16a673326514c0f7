"""People's labels on judge metrics of stored results, in the ``evaluation_labels`` table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sqlalchemy as sa

from ..model import HumanLabel
from ..storage import check_segment
from ._engine import Store

__all__ = ["SqlLabelStore"]


class SqlLabelStore:
    """The labels of a store's results: list, add or replace (one row per label key), delete."""

    def __init__(self, store: Store | str) -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self._t = self.store.tables.labels

    def list(self, app: str, result_id: str, eval_id: str | None = None) -> list[HumanLabel]:
        """The labels of a result (of one case when ``eval_id`` is given), oldest first."""
        check_segment(app, "app name")
        t = self._t
        query = sa.select(t.c.label).where(t.c.app_name == app, t.c.eval_set_result_id == result_id)
        if eval_id is not None:
            query = query.where(t.c.eval_id == eval_id)
        with self.store.begin() as conn:
            rows = conn.execute(query.order_by(t.c.id)).scalars().all()
        return [HumanLabel.model_validate(row) for row in rows]

    def put(self, app: str, label: HumanLabel) -> None:
        """Store ``label`` (which names its result) under ``app``, replacing the one with the same key."""
        check_segment(app, "app name")
        check_segment(label.eval_set_result_id, "eval set result id")
        row = _row(app, label)
        with self.store.begin() as conn:
            self.store.upsert(conn, self._t, [row], [k for k in row if k not in ("verdict", "label")])

    def delete(self, app: str, result_id: str, eval_id: str, matches: Callable[[HumanLabel], bool]) -> int:
        """Remove the case's labels ``matches`` accepts; returns how many were removed."""
        t = self._t
        removed = 0
        with self.store.begin() as conn:
            where = (t.c.app_name == app, t.c.eval_set_result_id == result_id, t.c.eval_id == eval_id)
            for row_id, data in conn.execute(sa.select(t.c.id, t.c.label).where(*where)).all():
                if matches(HumanLabel.model_validate(data)):
                    conn.execute(sa.delete(t).where(t.c.id == row_id))
                    removed += 1
        return removed


def _row(app: str, label: HumanLabel) -> dict[str, Any]:
    return {
        "app_name": app,
        "eval_set_result_id": label.eval_set_result_id,
        "eval_set_id": label.eval_set_id,
        "eval_id": label.eval_id,
        "run_id": label.run_id or 0,
        "invocation": label.invocation or 0,
        "metric_name": label.metric_name,
        "verdict": label.verdict.value,
        "label": label.model_dump(mode="json", by_alias=True),
    }
