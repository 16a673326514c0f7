"""A small comparison of two results of one eval set: per-case status changes and metric score deltas."""

from __future__ import annotations

from typing import Any

from ..model import EvalCaseResult, EvalSetResult, EvalStatus

__all__ = ["compare_results", "result_row"]


def _counts(result: EvalSetResult) -> dict[str, int]:
    counts = {"passed": 0, "failed": 0, "not_evaluated": 0}
    for case in result.eval_case_results:
        key = case.final_eval_status.value
        if key in counts:
            counts[key] += 1
    return counts


def result_row(result: EvalSetResult) -> dict[str, Any]:
    """One line of a result list: id, eval set, creation time, overall status and case counts."""
    summary = result.summary
    status = summary.overall_status.value if summary is not None else None
    return {
        "evalSetResultId": result.eval_set_result_id,
        "evalSetId": result.eval_set_id,
        "creationTimestamp": result.creation_timestamp,
        "overallStatus": status,
        "numRuns": summary.num_runs if summary is not None else 1,
        "counts": _counts(result),
        "interrupted": result.interrupted,
    }


def _case_status(runs: list[EvalCaseResult]) -> str:
    statuses = {r.final_eval_status for r in runs}
    if EvalStatus.FAILED in statuses:
        return EvalStatus.FAILED.value
    if statuses == {EvalStatus.PASSED}:
        return EvalStatus.PASSED.value
    return EvalStatus.NOT_EVALUATED.value


def _mean_scores(runs: list[EvalCaseResult]) -> dict[str, float | None]:
    sums: dict[str, list[float]] = {}
    for run in runs:
        for metric in run.overall_eval_metric_results:
            scores = sums.setdefault(metric.metric_name, [])
            if metric.score is not None:
                scores.append(metric.score)
    return {name: (sum(v) / len(v) if v else None) for name, v in sums.items()}


def _by_case(result: EvalSetResult) -> dict[str, list[EvalCaseResult]]:
    grouped: dict[str, list[EvalCaseResult]] = {}
    for case in result.eval_case_results:
        grouped.setdefault(case.eval_id, []).append(case)
    return grouped


def compare_results(base: EvalSetResult, head: EvalSetResult) -> dict[str, Any]:
    """What changed from ``base`` to ``head``: each case's status on both sides (``None`` where it did not run),
    its change (``fixed``, ``regressed``, ``changed``, ``same``, ``added``, ``removed``) and per-metric score
    deltas; counts of each change."""
    left, right = _by_case(base), _by_case(head)
    order = list(left) + [c for c in right if c not in left]
    cases = []
    totals: dict[str, int] = {}
    for case_id in order:
        before = _case_status(left[case_id]) if case_id in left else None
        after = _case_status(right[case_id]) if case_id in right else None
        if before is None:
            change = "added"
        elif after is None:
            change = "removed"
        elif before == after:
            change = "same"
        elif after == "passed":
            change = "fixed"
        elif before == "passed":
            change = "regressed"
        else:
            change = "changed"
        totals[change] = totals.get(change, 0) + 1
        old_scores = _mean_scores(left.get(case_id, []))
        new_scores = _mean_scores(right.get(case_id, []))
        metrics = []
        for name in list(old_scores) + [n for n in new_scores if n not in old_scores]:
            a, b = old_scores.get(name), new_scores.get(name)
            delta = None if a is None or b is None else b - a
            metrics.append({"metricName": name, "base": a, "head": b, "delta": delta})
        cases.append({"evalId": case_id, "base": before, "head": after, "change": change, "metrics": metrics})
    return {"base": result_row(base), "head": result_row(head), "changes": totals, "cases": cases}
