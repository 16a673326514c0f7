"""Eval set results in a store database: saved whole or streamed case by case during a run.

A result is a header row in ``evaluation_eval_set_results`` (trpc-agent-go's table) plus one row per case run in
``evaluation_case_results`` and one per metric of a case run in ``evaluation_metric_results``, keyed by (app,
result id, case, run) so every write is an upsert: writing the same case run twice leaves one row. During a run
each case result is committed as soon as it is handed over, so a killed run keeps every finished case; the header's
``status`` says ``running`` until the run ends (``completed`` / ``interrupted`` / ``cancelled``).

For trpc-agent-go readers the header's ``eval_case_results`` column holds the whole array once the run ends (up to
``array_max_cases`` case results; above that it stays ``[]`` and only the normalised rows hold them).
"""

from __future__ import annotations

import builtins
import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import sqlalchemy as sa

from .._util.redact import redact
from ..errors import InputError
from ..model import EvalCaseResult, EvalCaseSummary, EvalSetResult, EvalSetResultSummary
from ..storage import EvalResultManager, check_segment
from ._engine import Store, from_timestamp, to_timestamp

__all__ = ["DEFAULT_ARRAY_MAX_CASES", "ResultInfo", "SqlEvalResultManager", "SqlResultWriter"]

DEFAULT_ARRAY_MAX_CASES = 10_000
"""Case results up to which the header row also carries the whole ``eval_case_results`` array (for trpc readers)."""

_PAGE = 500  # case rows read per query when streaming a result back


@dataclass(frozen=True)
class ResultInfo:
    """One stored result as listed: ids, state and size, newest first in :meth:`SqlEvalResultManager.find`."""

    app_name: str
    eval_set_result_id: str
    eval_set_id: str
    status: str
    num_cases: int
    creation_timestamp: float | None


def _clean(text: str | None) -> str | None:
    """A plain-text column value: registered secrets masked (JSON columns are masked by the serializer) and NUL
    replaced, which PostgreSQL text columns cannot hold (the JSON payload keeps the exact text, escaped)."""
    return None if text is None else redact(text.replace("\x00", "\ufffd"))


class SqlEvalResultManager(EvalResultManager):
    """:class:`~agentgauge.storage.EvalResultManager` on a store (a :class:`Store` or its URL), plus
    :meth:`open_writer` so :class:`~agentgauge.AgentEvaluator` streams each case result into the database."""

    def __init__(self, store: Store | str, *, array_max_cases: int = DEFAULT_ARRAY_MAX_CASES) -> None:
        super().__init__()
        self.store = store if isinstance(store, Store) else Store(store)
        self.array_max_cases = array_max_cases
        self._t = self.store.tables

    # --- rows ---------------------------------------------------------------------------------------------------

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

    def _key(self, table: sa.Table, app: str, result_id: str) -> Any:
        return sa.and_(table.c.app_name == app, table.c.eval_set_result_id == result_id)

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
            "created_at": from_timestamp(result.creation_timestamp),
            "updated_at": from_timestamp(None),
        }

    def upsert_header(self, conn: sa.Connection, row: dict[str, Any]) -> None:
        """Insert or replace a header row (keyed by app and result id)."""
        self.store.upsert(conn, self._t.eval_set_results, [row], ("app_name", "eval_set_result_id"))

    # --- EvalResultManager ----------------------------------------------------------------------------------------

    def _write(self, app: str, result: EvalSetResult) -> None:
        cases = result.eval_case_results
        array = [c.model_dump(mode="json") for c in cases] if len(cases) <= self.array_max_cases else None
        t = self._t
        with self.store.begin() as conn:
            # A re-save replaces the result (trpc-agent-go's upsert): case runs no longer in it are removed.
            conn.execute(sa.delete(t.metric_results).where(self._key(t.metric_results, app, result.eval_set_result_id)))
            conn.execute(sa.delete(t.case_results).where(self._key(t.case_results, app, result.eval_set_result_id)))
            self.upsert_header(conn, self._header(app, result, status="completed", cases=array))
            self.write_cases(conn, app, result.eval_set_result_id, enumerate(cases))

    def _read(self, app: str, result_id: str) -> EvalSetResult | None:
        t = self._t
        with self.store.begin() as conn:
            header = (
                conn.execute(sa.select(t.eval_set_results).where(self._key(t.eval_set_results, app, result_id)))
                .mappings()
                .first()
            )
            if header is None:
                return None
            count = conn.execute(
                sa.select(sa.func.count()).select_from(t.case_results).where(self._key(t.case_results, app, result_id))
            ).scalar_one()
        cases = list(self.iter_case_results(app, result_id)) if count else None
        return self._assemble(header, cases)

    def _assemble(self, header: Any, cases: builtins.list[EvalCaseResult] | None) -> EvalSetResult:
        from ..formats._results import result_from_document

        doc: dict[str, Any] = {
            **(header["extra"] or {}),
            "evalSetResultId": header["eval_set_result_id"],
            "evalSetResultName": header["eval_set_result_name"],
            "evalSetId": header["eval_set_id"],
            "evalCaseResults": [] if cases is not None else (header["eval_case_results"] or []),
        }
        if header["summary"] is not None:
            doc["summary"] = header["summary"]
        stamp = header["creation_timestamp"]
        # trpc-agent-go rebuilds the timestamp from created_at; agentgauge keeps the exact float too.
        doc["creationTimestamp"] = stamp if stamp is not None else to_timestamp(header["created_at"])
        unfinished = header["status"] not in ("completed", "interrupted", "cancelled")
        if header["interrupted"] or unfinished:
            doc["interrupted"] = True
        if header["status"] == "cancelled":
            doc["cancelled"] = True
        result = result_from_document(
            doc, f"{self.store.shown_url} ({header['app_name']}/{header['eval_set_result_id']})"
        )
        if cases is not None:
            result.eval_case_results = cases
        if unfinished and result.summary is None and result.eval_case_results:
            from ..service import summarize_runs

            # A run that never ended (killed): the summary of the cases it finished.
            ids = list(dict.fromkeys(c.eval_id for c in result.eval_case_results))
            runs = max(c.run_id for c in result.eval_case_results)
            result.summary, _ = summarize_runs(result.eval_case_results, case_ids=ids, num_runs=runs)
        return result

    def _ids(self, app: str) -> builtins.list[str]:
        t = self._t.eval_set_results
        with self.store.begin() as conn:
            return list(conn.execute(sa.select(t.c.eval_set_result_id).where(t.c.app_name == app)).scalars())

    # --- beyond the base interface ------------------------------------------------------------------------------

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

    def scored(self, app: str, result_id: str) -> set[tuple[str, int]]:
        """The (case id, run id) pairs of a result already stored (what a resumed run can skip)."""
        cr = self._t.case_results
        with self.store.begin() as conn:
            rows = conn.execute(sa.select(cr.c.eval_id, cr.c.run_id).where(self._key(cr, app, result_id))).all()
        return {(r.eval_id, int(r.run_id)) for r in rows}

    def find(
        self,
        result_id: str | None = None,
        *,
        app: str | None = None,
        eval_set_id: str | None = None,
        limit: int | None = None,
    ) -> builtins.list[ResultInfo]:
        """Stored results, newest first, optionally of one app, eval set or result id (any app)."""
        t, cr = self._t.eval_set_results, self._t.case_results
        # A run that has not ended (or was killed) has no count in its header yet: count its stored case runs.
        stored = (
            sa.select(sa.func.count())
            .where(cr.c.app_name == t.c.app_name, cr.c.eval_set_result_id == t.c.eval_set_result_id)
            .scalar_subquery()
        )
        num_cases = sa.case((t.c.status.in_(("running", "aborted")), stored), else_=t.c.num_cases)
        query = sa.select(
            t.c.app_name,
            t.c.eval_set_result_id,
            t.c.eval_set_id,
            t.c.status,
            num_cases.label("num_cases"),
            t.c.creation_timestamp,
            t.c.created_at,
        )
        if result_id is not None:
            query = query.where(t.c.eval_set_result_id == result_id)
        if app is not None:
            query = query.where(t.c.app_name == app)
        if eval_set_id is not None:
            query = query.where(t.c.eval_set_id == eval_set_id)
        query = query.order_by(t.c.created_at.desc(), t.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self.store.begin() as conn:
            rows = conn.execute(query).all()
        return [
            ResultInfo(
                r.app_name,
                r.eval_set_result_id,
                r.eval_set_id,
                r.status,
                int(r.num_cases),
                r.creation_timestamp if r.creation_timestamp is not None else to_timestamp(r.created_at),
            )
            for r in rows
        ]

    def open_writer(self, app: str, eval_set_id: str, result_id: str) -> SqlResultWriter:
        """A writer that stores each case result as it is added (the evaluator's streaming seam)."""
        check_segment(app, "app name")
        if not eval_set_id:
            raise InputError("cannot save a result without an evalSetId")
        check_segment(result_id, "eval set result id")
        return SqlResultWriter(self, app, eval_set_id, result_id)


class SqlResultWriter:
    """A result written to the store while it is produced: the header row (``status = running``) at once, each
    case result committed on :meth:`add`, the summary on :meth:`commit`.

    Same methods as :class:`~agentgauge.formats._result_writer.ResultWriter`; :attr:`path` is ``None`` (no file).
    :meth:`abort` keeps the finished case runs (marked ``aborted``), which a resumed run can reuse.
    """

    path = None

    def __init__(self, manager: SqlEvalResultManager, app: str, eval_set_id: str, result_id: str) -> None:
        self.manager = manager
        self.app = app
        self.eval_set_id = eval_set_id
        self.result_id = result_id
        self.count = 0
        self.closed = False
        t = manager._t
        header = EvalSetResult(eval_set_result_id=result_id, eval_set_result_name=result_id, eval_set_id=eval_set_id)
        with manager.store.begin() as conn:
            existing = conn.execute(
                sa.select(sa.func.max(t.case_results.c.seq)).where(manager._key(t.case_results, app, result_id))
            ).scalar()
            self._seq = 0 if existing is None else int(existing) + 1  # continuing a stored result adds after it
            row = manager._header(app, header, status="running", cases=None)
            row.pop("created_at")  # kept when the result already exists (a continued run)
            row.pop("creation_timestamp")
            manager.upsert_header(conn, row)

    def add(self, case: EvalCaseResult) -> None:
        """Store one case result (committed before this returns)."""
        with self.manager.store.begin() as conn:
            self.manager.write_cases(conn, self.app, self.result_id, [(self._seq, case)])
        self._seq += 1
        self.count += 1

    def commit(
        self,
        *,
        summary: EvalSetResultSummary | None = None,
        case_summaries: Iterable[EvalCaseSummary | dict[str, Any]] = (),
        creation_timestamp: float | None = None,
        interrupted: bool = False,
        cancelled: bool = False,
    ) -> None:
        """Write the summary (with ``case_summaries``, models or their JSON documents, appended to its per-case
        entries) and mark the result ``completed`` (or ``interrupted``, or ``cancelled`` when a user cancelled the
        run). The header's ``eval_case_results`` array is filled for trpc readers."""
        manager, t = self.manager, self.manager._t
        if summary is not None:
            added = [c if isinstance(c, EvalCaseSummary) else EvalCaseSummary.model_validate(c) for c in case_summaries]
            summary = summary.model_copy(update={"eval_case_summaries": [*summary.eval_case_summaries, *added]})
        with manager.store.begin() as conn:
            stored = conn.execute(
                sa.select(sa.func.count())
                .select_from(t.case_results)
                .where(manager._key(t.case_results, self.app, self.result_id))
            ).scalar_one()
        array = None
        if stored <= manager.array_max_cases:
            array = [c.model_dump(mode="json") for c in manager.iter_case_results(self.app, self.result_id)]
        result = EvalSetResult(
            eval_set_result_id=self.result_id,
            eval_set_result_name=self.result_id,
            eval_set_id=self.eval_set_id,
            summary=summary,
            creation_timestamp=creation_timestamp,
            interrupted=interrupted,
        )
        status = "cancelled" if cancelled else "interrupted" if interrupted else "completed"
        row = manager._header(self.app, result, status=status, cases=array)
        row["num_cases"] = int(stored)
        with manager.store.begin() as conn:
            manager.upsert_header(conn, row)
        self.closed = True

    def abort(self) -> None:
        """Stop writing: the header is marked ``aborted``; the case runs already stored stay. Safe to repeat."""
        if self.closed:
            return
        self.closed = True
        t = self.manager._t.eval_set_results
        # Called while another error propagates (often the store itself failing): best effort, never a new error.
        # Unmarked, the result still reads as an unfinished run with its stored cases.
        with contextlib.suppress(InputError), self.manager.store.begin() as conn:
            conn.execute(
                sa.update(t)
                .where(self.manager._key(t, self.app, self.result_id))
                .values(status="aborted", updated_at=from_timestamp(None))
            )

    def __enter__(self) -> SqlResultWriter:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if not self.closed:
            self.abort()

    def __repr__(self) -> str:
        return f"SqlResultWriter({self.manager.store.shown_url!r}, {self.result_id!r}, cases={self.count})"
