"""The end of an evaluation: the summary of its collected rows saved as one result (committed to the streamed result
file, or handed to the result manager) and returned as an :class:`EvaluationResult`.

Imports only the model, the summary rows and the run's own result types at start-up: the result file format is
loaded when a large run's details are read back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..model import (
    DEFAULT_CASE_STATUS,
    CaseNotRun,
    CaseStatusRule,
    EvalSet,
    EvalSetResult,
    EvalSetResultSummary,
    EvalStatus,
    RunMetadata,
)
from ..summary import RowSummary, summarize_rows
from ._result import EvaluationResult
from ._resume import close_progress

if TYPE_CHECKING:  # pragma: no cover
    from ..formats._result_writer import ResultWriter
    from ._collector import _Collector
    from ._resume import ProgressLog

__all__ = ["ResultSink", "ResultTarget", "open_writer"]


class ResultSink(Protocol):
    """Where the evaluator saves the result (every result manager satisfies it; ``path_for`` is optional)."""

    def save(self, app: str, result: EvalSetResult) -> str:
        """Store ``result`` and return its id."""
        ...


def open_writer(result_manager: ResultSink, app_name: str, eval_set_id: str, result_id: str) -> ResultWriter | None:
    """A writer that streams the result to its file, when the result manager offers one (``open_writer``)."""
    opener = getattr(result_manager, "open_writer", None)
    if opener is None:
        return None
    writer: ResultWriter = opener(app_name, eval_set_id, result_id)
    return writer


@dataclass(frozen=True)
class ResultTarget:
    """Where one evaluation's result goes: ``writer`` (streamed result file) or else ``result_manager.save``.

    ``selected_ids`` are the cases the runs were limited to (empty: all); ``started`` is the run's
    ``time.perf_counter()`` at its start.
    """

    app_name: str
    eval_set: EvalSet
    result_id: str
    num_runs: int
    selected_ids: Sequence[str]
    result_manager: ResultSink
    writer: ResultWriter | None
    started: float
    run_metadata: RunMetadata | None = None
    """The run's labels and provenance as known at its start; completed (models seen, end time) by :meth:`finish`."""
    case_status: CaseStatusRule = DEFAULT_CASE_STATUS
    """The rule that decides each case's status over its runs, written once into the summary."""
    cases_not_run: Sequence[CaseNotRun] = ()
    """The cases of the eval set this evaluation could not run, with why: written into the summary."""

    def finish(self, collector: _Collector, *, interrupted: bool, cancelled: bool) -> EvaluationResult:
        """Save the result of the collected cases and return it (``cancelled`` counts only when ``interrupted``)."""
        case_ids = [c.eval_id for c in self.eval_set.eval_cases]
        rows = self._rows(collector, case_ids, interrupted=interrupted)
        created = time.time()
        cancelled = interrupted and cancelled
        metadata = self._metadata(collector, created)
        eval_set_result: EvalSetResult | None = None
        full_summary: EvalSetResultSummary | None = None
        if collector.keep_full:
            full_summary = rows.full()  # the per-case entries once, for the file and the returned result
            eval_set_result = EvalSetResult(
                eval_set_result_id=self.result_id,
                eval_set_result_name=self.result_id,
                eval_set_id=self.eval_set.eval_set_id,
                eval_case_results=collector.full,
                summary=full_summary,
                creation_timestamp=created,
                interrupted=interrupted,
                cancelled=cancelled,
                run_metadata=metadata,
            )
        result_id, result_path = self._save(
            rows, full_summary, eval_set_result, created, (interrupted, cancelled), metadata
        )
        head = rows.head
        return EvaluationResult(
            app_name=self.app_name,
            eval_set_id=self.eval_set.eval_set_id,
            overall_status=head.overall_status,
            execution_time=time.perf_counter() - self.started,
            eval_set_result=eval_set_result,
            result_path=result_path,
            loader=_Loader(self.result_manager, self.app_name, result_id, result_path),
            interrupted=interrupted,
            runs=(head.num_runs, head.run_status_counts.passed),
            rows=rows,
            result_header=EvalSetResult(
                eval_set_result_id=result_id,
                eval_set_result_name=result_id,
                eval_set_id=self.eval_set.eval_set_id,
                summary=head,
                creation_timestamp=created,
                interrupted=interrupted,
                cancelled=cancelled,
                run_metadata=metadata,
            ),
        )

    def _metadata(self, collector: _Collector, finished_at: float) -> RunMetadata | None:
        if self.run_metadata is None:
            return None
        from ._metadata import finish_metadata

        return finish_metadata(self.run_metadata, collector.rows.models_seen(), finished_at)

    def abandon(
        self, collector: _Collector, progress_log: ProgressLog | None, *, cancelled: bool, discard_log: bool
    ) -> None:
        """After the run raised: when it was cancelled from outside (Ctrl-C under ``asyncio.run``) the cases finished
        so far are saved, marked interrupted; otherwise the streamed file is dropped. The progress log stays for
        ``--resume`` unless the result was saved or ``discard_log``."""
        if self.writer is not None:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                collector.flush()
                self.finish(collector, interrupted=True, cancelled=cancelled)
                close_progress(progress_log, saved=True)
            else:
                self.writer.abort()
        close_progress(progress_log, saved=discard_log)

    def _rows(self, collector: _Collector, case_ids: list[str], *, interrupted: bool) -> RowSummary:
        rows = summarize_rows(collector.rows, case_ids=case_ids, num_runs=self.num_runs, rule=self.case_status)
        rows.head.selected_eval_ids = list(self.selected_ids)  # `compare` tells cases not run from removed ones
        rows.head.cases_not_run = list(self.cases_not_run)
        if interrupted and rows.head.overall_status is EvalStatus.PASSED:
            rows.head.overall_status = EvalStatus.NOT_EVALUATED  # the cases that never ran were not evaluated
        return rows

    def _save(
        self,
        rows: RowSummary,
        full_summary: EvalSetResultSummary | None,
        eval_set_result: EvalSetResult | None,
        created: float,
        state: tuple[bool, bool],
        metadata: RunMetadata | None,
    ) -> tuple[str, Path | None]:
        """Commit the streamed file or save through the result manager: the result's id and path (when known)."""
        interrupted, cancelled = state
        if self.writer is not None:
            # Only when set: a result manager's own writer need not know these keywords.
            optional: dict[str, Any] = {"cancelled": True} if cancelled else {}
            if metadata is not None:
                optional["run_metadata"] = metadata
            self.writer.commit(
                summary=full_summary or rows.head,
                case_summaries=() if full_summary is not None else rows.case_summary_documents(),
                creation_timestamp=created,
                interrupted=interrupted,
                **optional,
            )
            return self.result_id, self.writer.path
        assert eval_set_result is not None
        result_id = self.result_manager.save(self.app_name, eval_set_result)
        path_for = getattr(self.result_manager, "path_for", None)
        return result_id, Path(path_for(self.app_name, result_id)) if path_for is not None else None


class _Loader:
    """Reads a saved result back: from the result manager when it can ``get`` one, else from its file."""

    def __init__(self, manager: ResultSink, app_name: str, result_id: str, path: Path | None) -> None:
        self._manager, self._app_name, self._result_id, self._path = manager, app_name, result_id, path

    def __call__(self) -> EvalSetResult:
        getter = getattr(self._manager, "get", None)
        if getter is not None:
            loaded: EvalSetResult = getter(self._app_name, self._result_id)
            return loaded
        from ..formats import load_result

        assert self._path is not None
        return load_result(self._path)
