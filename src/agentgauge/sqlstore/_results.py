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
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from ..errors import InputError
from ..model import EvalCaseResult, EvalSetResult
from ..storage import EvalResultManager, check_segment
from ..summary import summarize_results
from ._engine import Store, to_timestamp
from ._result_rows import DEFAULT_ARRAY_MAX_CASES, ResultTables
from ._result_writer import SqlResultWriter

__all__ = ["DEFAULT_ARRAY_MAX_CASES", "ResultInfo", "SqlEvalResultManager", "SqlResultWriter"]


@dataclass(frozen=True)
class ResultInfo:
    """One stored result as listed: ids, state and size, newest first in :meth:`SqlEvalResultManager.find`."""

    app_name: str
    eval_set_result_id: str
    eval_set_id: str
    status: str
    num_cases: int
    """Case runs stored (each case once per run: the store's ``num_cases`` column, as trpc-agent-go counts)."""
    creation_timestamp: float | None
    labels: dict[str, str] = field(default_factory=dict)
    """The run's labels (``eval --label``)."""
    case_counts: dict[str, int] | None = None
    """The result's cases by status over their runs (its summary's ``caseStatusCounts``; ``None`` until the run
    ends, and for results written without it)."""

    @property
    def cases(self) -> int | None:
        """How many eval cases the result holds (each counted once; ``None`` when unknown)."""
        return None if self.case_counts is None else sum(self.case_counts.values())


class SqlEvalResultManager(ResultTables, EvalResultManager):
    """:class:`~agentgauge.storage.EvalResultManager` on a store (a :class:`Store` or its URL), plus
    :meth:`open_writer` so :class:`~agentgauge.AgentEvaluator` streams each case result into the database."""

    def __init__(self, store: Store | str, *, array_max_cases: int = DEFAULT_ARRAY_MAX_CASES) -> None:
        EvalResultManager.__init__(self)
        ResultTables.__init__(self, store, array_max_cases=array_max_cases)

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
            labels = result.run_metadata.labels if result.run_metadata is not None else {}
            self.write_run_labels(conn, app, result.eval_set_result_id, labels)
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
            count = self._count_cases(conn, app, result_id)
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
        if header.get("run_metadata") is not None:
            doc["runMetadata"] = header["run_metadata"]
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
            # A run that never ended (killed): the summary of the cases it finished.
            ids = list(dict.fromkeys(c.eval_id for c in result.eval_case_results))
            runs = max(c.run_id for c in result.eval_case_results)
            result.summary = summarize_results(result.eval_case_results, case_ids=ids, num_runs=runs).full()
        return result

    def _ids(self, app: str) -> builtins.list[str]:
        t = self._t.eval_set_results
        with self.store.begin() as conn:
            return list(conn.execute(sa.select(t.c.eval_set_result_id).where(t.c.app_name == app)).scalars())

    # --- beyond the base interface ------------------------------------------------------------------------------

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
        labels: dict[str, str] | None = None,
    ) -> builtins.list[ResultInfo]:
        """Stored results, newest first, optionally of one app, eval set or result id (any app), or having every
        label of ``labels``."""
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
            t.c.run_metadata,
            t.c.summary["caseStatusCounts"].label("case_counts"),  # a JSON path: the summary itself is not read
        )
        if result_id is not None:
            query = query.where(t.c.eval_set_result_id == result_id)
        if app is not None:
            query = query.where(t.c.app_name == app)
        if eval_set_id is not None:
            query = query.where(t.c.eval_set_id == eval_set_id)
        if labels:
            query = query.where(self.labelled(labels))
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
                _labels(r.run_metadata),
                _counts(r.case_counts),
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


def _counts(value: Any) -> dict[str, int] | None:
    """A ``caseStatusCounts`` object as ``{status: count}`` (``None`` when absent or not an object of counts)."""
    if not isinstance(value, dict):
        return None
    counts = {"passed": 0, "failed": 0, "error": 0, "not_evaluated": 0}
    for key, count in value.items():
        name = "not_evaluated" if key in ("notEvaluated", "not_evaluated") else key
        if name not in counts or not isinstance(count, int) or isinstance(count, bool):
            return None
        counts[name] = count
    return counts


def _labels(metadata: Any) -> dict[str, str]:
    """The labels of a ``run_metadata`` column value (none when it is empty or not an object)."""
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, dict) else {}
