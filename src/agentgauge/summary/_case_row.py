"""The compact row a finished case run leaves behind: its status, error, metric outcomes, usage and first reason.

The lowest module of the summary layer: it imports :mod:`agentgauge.model` and the summary's text helpers
(:mod:`._reasons`, :mod:`._usage`), which import nothing else of agentgauge.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import EvalCaseResult, EvalStatus, UsageTotals
from ._reasons import first_reason
from ._usage import case_usage

__all__ = ["CaseRow", "MetricRow", "case_row", "metric_row"]


@dataclass(slots=True, frozen=True)
class MetricRow:
    """One metric's outcome in one case run, without criterion or details (what summaries need)."""

    metric_name: str
    score: float | None
    eval_status: EvalStatus
    threshold: float
    reducer: str | None = None
    """How the case's runs combine for this metric (``None``: mean)."""


@dataclass(slots=True, frozen=True)
class CaseRow:
    """The compact part of one case result that summaries, pass@k and the terminal overview need.

    A run keeps one of these per case run instead of the full :class:`EvalCaseResult` (whose invocations are
    written to the result file and dropped), so its memory does not grow with the size of the traces.
    """

    eval_id: str
    run_id: int
    final_eval_status: EvalStatus
    error_message: str | None
    metrics: tuple[MetricRow, ...]
    usage: UsageTotals | None = None  # None when no invocation recorded any duration, tokens or cost
    reason: str | None = None  # the first reason the case did not pass (None when it passed)

    @property
    def overall_eval_metric_results(self) -> tuple[MetricRow, ...]:
        """The metric outcomes, under the name :class:`EvalCaseResult` uses (so views can read either)."""
        return self.metrics


_SHARED_ROWS: dict[tuple[str, float | None, EvalStatus, float, str | None], MetricRow] = {}
_SHARED_ROWS_MAX = 4096


def metric_row(
    name: str, score: float | None, status: EvalStatus, threshold: float, reducer: str | None = None
) -> MetricRow:
    """The :class:`MetricRow` of these values, shared with earlier equal rows where one is remembered."""
    # Rows are immutable, and many repeat (a trajectory score is mostly 0.0 or 1.0): a million-case run shares them
    # instead of holding a million equal objects. Only the first few thousand distinct rows are remembered.
    key = (name, score, status, threshold, reducer)
    row = _SHARED_ROWS.get(key)
    if row is None:
        row = MetricRow(name, score, status, threshold, reducer)
        if len(_SHARED_ROWS) < _SHARED_ROWS_MAX:
            _SHARED_ROWS[key] = row
    return row


def case_row(result: EvalCaseResult) -> CaseRow:
    """The compact row of a case result (with its usage totals and first failure reason for the reports)."""
    usage = case_usage(result)
    return CaseRow(
        result.eval_id,
        result.run_id,
        result.final_eval_status,
        result.error_message,
        tuple(
            metric_row(m.metric_name, m.score, m.eval_status, m.threshold, m.reducer)
            for m in result.overall_eval_metric_results
        ),
        usage if usage.known else None,
        first_reason(result),
    )
