"""The rows of a stored result: the header in ``evaluation_eval_set_results``, one row per case run in
``evaluation_case_results`` and one per metric of a case run in ``evaluation_metric_results``, keyed by (app,
result id, case, run) so every write is an upsert.

What :class:`~._results.SqlEvalResultManager` (whole results) and :class:`~._result_writer.SqlResultWriter`
(results streamed case by case) both write and read with.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import sqlalchemy as sa

from .._util.redact import redact
from ..model import EvalCaseResult, EvalSetResult
from ._engine import Store, from_timestamp

__all__ = ["DEFAULT_ARRAY_MAX_CASES", "ResultTables"]

DEFAULT_ARRAY_MAX_CASES = 10_000
"""Case results up to which the header row also carries the whole ``eval_case_results`` array (for trpc readers)."""

_PAGE = 500  # case rows read per query when streaming a result back


def _clean(text: str | None) -> str | None:
    """A plain-text column value: registered secrets masked (JSON columns are masked by the serializer) and NUL
    replaced, which PostgreSQL text columns cannot hold (the JSON payload keeps the exact text, escaped)."""
    return None if text is None else redact(text.replace("\x00", "\ufffd"))


class ResultTables:
    """Reading and writing the header, case and metric rows of results in a store (a :class:`Store` or its URL)."""

    def __init__(self, store: Store | str, *, array_max_cases: int = DEFAULT_ARRAY_MAX_CASES) -> None:
        self.store = store if isinstance(store, Store) else Store(store)
        self.array_max_cases = array_max_cases
        self._t = self.store.tables

    def _key(self, table: sa.Table, app: str, result_id: str) -> Any:
        return sa.and_(table.c.app_name == app, table.c.eval_set_result_id == result_id)

    def _case_rows(
        self, app: str, result_id: str, case: EvalCaseResult, seq: int
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        key = {"app_name": app, "eval_set_result_id": result_id, "eval_id": case.eval_id, "run_id": case.run_id}
        row = {
            **key,
            "eval_set_id": case.eval_set_id,
            "seq": seq,
            "final_eval_status": case.final_eval_status.value,
            "error_message": _clean(case.error_message),
            "session_id": _clean(case.session_id) or "",
            "user_id": _clean(case.user_id) or "",
            "result": case.model_dump(mode="json"),
            "created_at": from_timestamp(None),
            "updated_at": from_timestamp(None),
        }
        metrics = {
            m.metric_name: {
                **key,
                "eval_set_id": case.eval_set_id,
                "metric_name": m.metric_name,
                "score": m.score,
                "eval_status": m.eval_status.value,
                "threshold": m.threshold,
            }
            for m in case.overall_eval_metric_results
        }
        return row, list(metrics.values())

    def write_cases(
        self, conn: sa.Connection, app: str, result_id: str, cases: Iterable[tuple[int, EvalCaseResult]]
    ) -> int:
        """Upsert case results (with their sequence numbers) and their metric rows; returns how many."""
        case_rows: list[dict[str, Any]] = []
        metric_rows: list[dict[str, Any]] = []
        for seq, case in cases:
            row, metrics = self._case_rows(app, result_id, case, seq)
            case_rows.append(row)
            metric_rows.extend(metrics)
        if not case_rows:
            return 0
        t = self._t
        self.store.upsert(conn, t.case_results, case_rows, ("app_name", "eval_set_result_id", "eval_id", "run_id"))
        # Metric rows are upserted too (two writers of one case run never collide on the key); a case run written
        # again may have dropped a metric, whose row goes.
        mr = t.metric_results
        keys = ("app_name", "eval_set_result_id", "eval_id", "run_id", "metric_name")
        self.store.upsert(conn, mr, metric_rows, keys)
        names: dict[tuple[str, int], list[str]] = {(r["eval_id"], r["run_id"]): [] for r in case_rows}
        for m in metric_rows:
            names[(m["eval_id"], m["run_id"])].append(m["metric_name"])
        for (eval_id, run_id), kept in names.items():
            conn.execute(
                sa.delete(mr).where(
                    self._key(mr, app, result_id),
                    mr.c.eval_id == eval_id,
                    mr.c.run_id == run_id,
                    mr.c.metric_name.not_in(kept),
                )
            )
        return len(case_rows)

    def _header(
        self, app: str, result: EvalSetResult, *, status: str, cases: list[dict[str, Any]] | None
    ) -> dict[str, Any]:
        summary = result.summary.model_dump(mode="json") if result.summary is not None else None
        return {
            "app_name": app,
            "eval_set_result_id": result.eval_set_result_id,
            "eval_set_id": result.eval_set_id,
            "eval_set_result_name": result.eval_set_result_name or result.eval_set_result_id,
            "eval_case_results": cases if cases is not None else [],
            "summary": summary,
            "status": status,
            "interrupted": result.interrupted,
            "num_cases": len(result.eval_case_results),
            "creation_timestamp": result.creation_timestamp,
            "extra": dict(result.model_extra) if result.model_extra else None,
            "run_metadata": result.run_metadata.model_dump(mode="json") if result.run_metadata is not None else None,
            "created_at": from_timestamp(result.creation_timestamp),
            "updated_at": from_timestamp(None),
        }

    def upsert_header(self, conn: sa.Connection, row: dict[str, Any]) -> None:
        """Insert or replace a header row (keyed by app and result id)."""
        self.store.upsert(conn, self._t.eval_set_results, [row], ("app_name", "eval_set_result_id"))

    def write_run_labels(self, conn: sa.Connection, app: str, result_id: str, labels: dict[str, str]) -> None:
        """Replace the label rows of a result with ``labels`` (what results are filtered by)."""
        rl = self._t.run_labels
        conn.execute(sa.delete(rl).where(self._key(rl, app, result_id)))
        if labels:
            rows = [
                {"app_name": app, "eval_set_result_id": result_id, "label_key": key, "label_value": value}
                for key, value in labels.items()
            ]
            conn.execute(sa.insert(rl), rows)

    def labelled(self, wanted: dict[str, str]) -> Any:
        """A condition on ``evaluation_eval_set_results`` rows: the result has every label of ``wanted``."""
        t, rl = self._t.eval_set_results, self._t.run_labels
        return sa.and_(
            sa.true(),
            *(
                sa.exists().where(
                    rl.c.app_name == t.c.app_name,
                    rl.c.eval_set_result_id == t.c.eval_set_result_id,
                    rl.c.label_key == key,
                    rl.c.label_value == value,
                )
                for key, value in wanted.items()
            ),
        )

    def _count_cases(self, conn: sa.Connection, app: str, result_id: str) -> int:
        """How many case runs of a result are stored."""
        cr = self._t.case_results
        count: int = conn.execute(
            sa.select(sa.func.count()).select_from(cr).where(self._key(cr, app, result_id))
        ).scalar_one()
        return count

    def iter_case_results(self, app: str, result_id: str) -> Iterator[EvalCaseResult]:
        """The case results of a stored result in run order, read a page at a time (never all at once)."""
        cr = self._t.case_results
        last: tuple[int, int] | None = None
        while True:
            query = sa.select(cr.c.id, cr.c.seq, cr.c.result).where(self._key(cr, app, result_id))
            if last is not None:
                query = query.where(sa.tuple_(cr.c.seq, cr.c.id) > sa.tuple_(*last))
            with self.store.begin() as conn:
                page = conn.execute(query.order_by(cr.c.seq, cr.c.id).limit(_PAGE)).all()
            for row in page:
                yield EvalCaseResult.model_validate(row.result)
            if len(page) < _PAGE:
                return
            last = (page[-1].seq, page[-1].id)
