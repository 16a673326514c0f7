"""A result streamed into a store while it is produced: each case result committed as soon as it is handed over,
so a killed run keeps every finished case; the header's ``status`` says ``running`` until the run ends
(``completed`` / ``interrupted`` / ``cancelled``, or ``aborted``)."""

from __future__ import annotations

import contextlib

import sqlalchemy as sa

from ..errors import InputError
from ..formats._result_writer import ResultEnding, StreamingResultWriter
from ..model import EvalCaseResult, EvalCaseSummary, EvalSetResult
from ._engine import from_timestamp
from ._result_rows import ResultTables

__all__ = ["SqlResultWriter"]


class SqlResultWriter(StreamingResultWriter[None]):
    """A result written to the store while it is produced: the header row (``status = running``) at once, each
    case result committed on :meth:`add`, the summary on :meth:`commit`.

    Same methods as :class:`~agentgauge.formats._result_writer.ResultWriter`; :attr:`path` is ``None`` (no file).
    :meth:`abort` keeps the finished case runs (marked ``aborted``), which a resumed run can reuse.
    """

    path = None

    def __init__(self, manager: ResultTables, app: str, eval_set_id: str, result_id: str) -> None:
        self.manager = manager
        self.app = app
        self.eval_set_id = eval_set_id
        self.result_id = result_id
        self.count = 0
        self._closed = False
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

    @property
    def closed(self) -> bool:
        """True once the result was committed or aborted."""
        return self._closed

    def add(self, case: EvalCaseResult) -> None:
        """Store one case result (committed before this returns)."""
        with self.manager.store.begin() as conn:
            self.manager.write_cases(conn, self.app, self.result_id, [(self._seq, case)])
        self._seq += 1
        self.count += 1

    def _end(self, ending: ResultEnding) -> None:
        """Write the summary (its per-case entries followed by ``case_summaries``) and mark the result
        ``completed``, ``interrupted`` or ``cancelled``; the header's ``eval_case_results`` array is filled for
        trpc readers."""
        manager = self.manager
        summary = ending.summary
        if summary is not None:
            added = [
                c if isinstance(c, EvalCaseSummary) else EvalCaseSummary.model_validate(c)
                for c in ending.case_summaries
            ]
            summary = summary.model_copy(update={"eval_case_summaries": [*summary.eval_case_summaries, *added]})
        with manager.store.begin() as conn:
            stored = manager._count_cases(conn, self.app, self.result_id)
        array = None
        if stored <= manager.array_max_cases:
            array = [c.model_dump(mode="json") for c in manager.iter_case_results(self.app, self.result_id)]
        result = EvalSetResult(
            eval_set_result_id=self.result_id,
            eval_set_result_name=self.result_id,
            eval_set_id=self.eval_set_id,
            summary=summary,
            creation_timestamp=ending.creation_timestamp,
            interrupted=ending.interrupted,
            run_metadata=ending.run_metadata,
        )
        row = manager._header(self.app, result, status=ending.status, cases=array)
        row["num_cases"] = int(stored)
        labels = ending.run_metadata.labels if ending.run_metadata is not None else {}
        with manager.store.begin() as conn:
            manager.upsert_header(conn, row)
            manager.write_run_labels(conn, self.app, self.result_id, labels)
        self._closed = True

    def abort(self) -> None:
        """Stop writing: the header is marked ``aborted``; the case runs already stored stay. Safe to repeat."""
        if self._closed:
            return
        self._closed = True
        t = self.manager._t.eval_set_results
        # Called while another error propagates (often the store itself failing): best effort, never a new error.
        # Unmarked, the result still reads as an unfinished run with its stored cases.
        with contextlib.suppress(InputError), self.manager.store.begin() as conn:
            conn.execute(
                sa.update(t)
                .where(self.manager._key(t, self.app, self.result_id))
                .values(status="aborted", updated_at=from_timestamp(None))
            )

    def __repr__(self) -> str:
        return f"SqlResultWriter({self.manager.store.shown_url!r}, {self.result_id!r}, cases={self.count})"
