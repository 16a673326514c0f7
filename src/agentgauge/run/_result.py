"""What :meth:`AgentEvaluator.evaluate <agentgauge.run._evaluator.AgentEvaluator.evaluate>` returns: the evaluation
result with its per-case outcomes, which a large run reads back from the saved result on demand."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus
from ..stats import pass_at_k, pass_hat_k

if TYPE_CHECKING:  # pragma: no cover
    from ..service import RowSummary

__all__ = ["EvaluationCaseResult", "EvaluationResult"]


@dataclass
class EvaluationCaseResult:
    """One case across runs: overall status, per-run results and metric results averaged over runs."""

    eval_id: str
    overall_status: EvalStatus
    eval_case_results: list[EvalCaseResult]
    metric_results: list[EvalMetricResult]

    @property
    def num_runs(self) -> int:
        """How many runs of this case there were."""
        return len(self.eval_case_results)

    @property
    def num_passed(self) -> int:
        """How many of those runs passed."""
        return sum(r.final_eval_status is EvalStatus.PASSED for r in self.eval_case_results)

    def pass_at_k(self, k: int) -> float:
        """pass@k of this case over its runs (see :func:`agentgauge.stats.pass_at_k`)."""
        return pass_at_k(self.num_runs, self.num_passed, k)

    def pass_hat_k(self, k: int) -> float:
        """pass^k of this case over its runs (see :func:`agentgauge.stats.pass_hat_k`)."""
        return pass_hat_k(self.num_runs, self.num_passed, k)


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
        eval_cases: list[EvaluationCaseResult] | None = None,
        eval_set_result: EvalSetResult | None = None,
        result_path: Path | None = None,
        *,
        loader: Callable[[], EvalSetResult] | None = None,
        case_ids: Sequence[str] = (),
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
        self._eval_cases = eval_cases
        self._eval_set_result = eval_set_result
        self._loader = loader
        self._case_ids = list(case_ids)
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
    def eval_cases(self) -> list[EvaluationCaseResult]:
        """Per case (eval-set order): overall status, per-run results and metric results averaged over runs."""
        if self._eval_cases is None:
            from ..service import summarize_runs

            result = self.eval_set_result
            num_runs = result.summary.num_runs if result.summary else 1
            case_ids = self._case_ids or [c.eval_id for c in result.eval_case_results]
            _, aggregates = summarize_runs(result.eval_case_results, case_ids=case_ids, num_runs=num_runs)
            self._eval_cases = [
                EvaluationCaseResult(a.eval_id, a.overall_status, a.runs, a.metric_results) for a in aggregates
            ]
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
