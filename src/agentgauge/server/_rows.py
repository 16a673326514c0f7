"""One line of the web UI's result list: id, eval set, time, overall status, case counts and run metadata."""

from __future__ import annotations

from typing import Any

from ..model import EvalSetResult, summarize_statuses

__all__ = ["result_row"]


def _counts(result: EvalSetResult) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "error": 0, "not_evaluated": 0}
    for case in result.eval_case_results:
        key = case.final_eval_status.value
        if key in counts:
            counts[key] += 1
    return counts


def result_row(result: EvalSetResult) -> dict[str, Any]:
    """One line of a result list: id, eval set, creation time, overall status, case counts, the run's labels and
    its whole ``runMetadata`` (git state, agent source hash, models, version; ``{}`` when none was recorded)."""
    summary, metadata = result.summary, result.run_metadata
    if summary is not None:
        status: str | None = summary.overall_status.value
    elif result.eval_case_results:  # ADK's result files have no summary: the cases decide
        status = summarize_statuses(c.final_eval_status for c in result.eval_case_results).value
    else:
        status = None
    return {
        "evalSetResultId": result.eval_set_result_id,
        "evalSetId": result.eval_set_id,
        "creationTimestamp": result.creation_timestamp,
        "overallStatus": status,
        "numRuns": summary.num_runs if summary is not None else 1,
        "counts": _counts(result),
        "interrupted": result.interrupted,
        "cancelled": result.cancelled,
        "labels": dict(metadata.labels) if metadata is not None else {},
        "runMetadata": metadata.model_dump(mode="json") if metadata is not None else {},
    }
