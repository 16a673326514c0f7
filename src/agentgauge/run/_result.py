"""What :meth:`AgentEvaluator.evaluate <agentgauge.run._evaluator.AgentEvaluator.evaluate>` returns: the evaluation
result with its per-case summaries; a large run reads its case results back from the saved result on demand."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..model import EvalSetResult, EvalStatus
from ..stats import pass_at_k, pass_hat_k

if TYPE_CHECKING:  # pragma: no cover
    from ..summary import CaseSummary, RowSummary

__all__ = ["EvaluationResult"]


class EvaluationResult:
    """Everything :meth:`AgentEvaluator.evaluate` produced.

    ``execution_time`` is in seconds; ``eval_set_result`` is the saved :class:`EvalSetResult` (with the
    multi-run ``summary``) and ``result_path`` where it was written (``None`` for non-file result managers).
    ``interrupted`` is true when the run was stopped before every case finished (only finished cases were saved).

    A large run does not keep its case results in memory: then ``eval_set_result`` and ``eval_cases`` are read
    back from the saved result the first time they are used (see ``max_results_in_memory`` of
    :class:`AgentEvaluator`). ``overall_status``, ``pass_at_k`` and ``pass_hat_k`` never need them.
    """

    def __init__(
        self,
        app_name: str,
        eval_set_id: str,
        overall_status: EvalStatus,
        execution_time: float,
        eval_set_result: EvalSetResult | None = None,
        result_path: Path | None = None,
        *,
        loader: Callable[[], EvalSetResult] | None = None,
        interrupted: bool = False,
        runs: tuple[int, int] | None = None,
        rows: RowSummary | None = None,
        result_header: EvalSetResult | None = None,
    ) -> None:
        if eval_set_result is None and loader is None:
            raise ValueError("an EvaluationResult needs its eval_set_result or a loader for it")
        self.app_name = app_name
        self.eval_set_id = eval_set_id
        self.overall_status = overall_status
        self.execution_time = execution_time
        self.result_path = result_path
        self.interrupted = interrupted
        self._eval_cases: list[CaseSummary] | None = None
        self._eval_set_result = eval_set_result
        self._loader = loader
        self._runs_counts = runs
        self.rows = rows
        """Compact per-case rows and the summary head of the run (``None`` when built from a result)."""
        self.result_header = result_header
        """The saved result without case results or per-case summaries (ids, timestamp, run summaries)."""

    @property
    def results_in_memory(self) -> bool:
        """True when the case results are held (else :attr:`eval_set_result` reads them back on first use)."""
        return self._eval_set_result is not None

    @property
    def eval_set_result(self) -> EvalSetResult:
        """The saved result with every case result (read from the result manager on first use for large runs)."""
        if self._eval_set_result is None:
            assert self._loader is not None
            self._eval_set_result = self._loader()
        return self._eval_set_result

    @property
    def eval_cases(self) -> list[CaseSummary]:
        """Per case (eval-set order): its :class:`~agentgauge.summary.CaseSummary` -- status over its runs (and the
        rule that decided it), runs passed, pass@k, metrics over runs, first reason -- as the saved summary says."""
        if self._eval_cases is None:
            if self.rows is not None:
                self._eval_cases = list(self.rows.cases)
            else:
                from ..summary import result_summary

                self._eval_cases = list(result_summary(self.eval_set_result).cases)
        return self._eval_cases

    def _runs(self) -> tuple[int, int]:
        if self._runs_counts is not None:
            return self._runs_counts
        summary = self.eval_set_result.summary
        if summary is None:
            return 0, 0
        return summary.num_runs, summary.run_status_counts.passed

    def pass_at_k(self, k: int) -> float:
        """pass@k over runs: n = number of runs, c = runs whose overall status passed."""
        return pass_at_k(*self._runs(), k)

    def pass_hat_k(self, k: int) -> float:
        """pass^k over runs: n = number of runs, c = runs whose overall status passed."""
        return pass_hat_k(*self._runs(), k)

    def __repr__(self) -> str:
        # Short on purpose: the default would format every case result (asyncio formats the main task's result).
        where = f", result_path={os.fspath(self.result_path)!r}" if self.result_path is not None else ""
        flag = ", interrupted=True" if self.interrupted else ""
        return (
            f"EvaluationResult(app_name={self.app_name!r}, eval_set_id={self.eval_set_id!r}, "
            f"overall_status={self.overall_status.value!r}, execution_time={self.execution_time:.3f}{where}{flag})"
        )
