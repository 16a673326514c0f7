"""The ``evalCaseSummaries`` entry of a case that ran once, written as JSON straight from the row table.

A run writes one summary entry per case at its end; for a million single-run cases, building the pydantic models
of each and dumping them costs more than the rest of the summary. The document built here is the one
:meth:`~agentgauge.summary.CaseSummary.persisted` gives, dumped with ``model_dump(mode="json")`` (a test holds the
two equal).
"""

from __future__ import annotations

from typing import Any

from ..model import EvalStatus
from ._row_table import RowTable
from ._tally import MetricTally

__all__ = ["one_row_document"]

_COUNT_KEYS = {
    EvalStatus.PASSED: "passed",
    EvalStatus.FAILED: "failed",
    EvalStatus.ERROR: "error",
    EvalStatus.NOT_EVALUATED: "notEvaluated",
}


def _one_count(status: EvalStatus) -> dict[str, int]:
    """``StatusCounts`` with ``status`` counted once, as JSON (zero counts are left out)."""
    key = _COUNT_KEYS.get(status)
    return {key: 1} if key is not None else {}


def one_row_document(table: RowTable, index: int, eval_id: str, status: EvalStatus) -> dict[str, Any] | None:
    """What :meth:`CaseSummary.persisted` gives for the single row ``index``, dumped as JSON, built without the
    models (a summary entry per case is written at the end of every run); ``None`` when a metric name repeats (its
    results would be tallied together: the general path handles that)."""
    metrics = list(table.metrics(index))
    if len({name for name, _, _, _ in metrics}) != len(metrics):
        return None
    reducers = table.reducers(index) or {}
    run_status = table.status(index)
    summaries = []
    results = []
    for name, score, metric_status, threshold in metrics:
        tally = MetricTally(name, threshold, reducers.get(name))  # the mean and status the general path computes
        tally.add(score, metric_status)
        summaries.append(
            {
                "metricName": name,
                "averageScore": tally.average,
                "evalStatus": tally.status.value,
                "threshold": float(threshold),
                "statusCounts": _one_count(metric_status),
            }
        )
        results.append(
            {"metricName": name, "score": score, "evalStatus": metric_status.value, "threshold": float(threshold)}
        )
    run: dict[str, Any] = {"runId": table.run_id(index), "finalEvalStatus": run_status.value}
    message = table.error_message(index)
    if message:
        run["errorMessage"] = message
    run["metricResults"] = results
    return {
        "evalId": eval_id,
        "overallStatus": status.value,
        "runStatusCounts": _one_count(run_status),
        "metricSummaries": summaries,
        "runSummaries": [run],
    }
