"""agentgauge's models in the shapes of trpc-agent-go's evaluation service (``server/evaluation/openapi.yaml``).

The native JSON already is trpc's; the service's schema is stricter in three ways, taken care of here: statuses are
``passed``, ``failed``, ``not_evaluated`` (an ``error`` case or metric is ``failed``, its message kept, as trpc
fails a case whose inference or evaluator failed), numbers are numbers (an absent score is left out, as Go's
``omitempty`` leaves out a zero one, never ``null``), and a tool is ``{id, name, arguments, result}`` only. The
``EvaluationResult`` of ``POST /runs`` is built from the run's saved result and its summary (the one case summary
every report reads).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..model import EvalSet, EvalSetResult
from ._safety import public_result

__all__ = ["evaluation_result", "trpc_eval_set", "trpc_result", "trpc_status"]

_STATUS = {"error": "failed", "informational": "not_evaluated"}
_TOOL_KEYS = ("id", "name", "arguments", "result")
_NUMBER_KEYS = ("score", "averageScore", "threshold")


def trpc_status(status: Any) -> Any:
    """A status as trpc's ``EvalStatus`` enum has it."""
    return _STATUS.get(status, status) if isinstance(status, str) else status


def _numbers(item: dict[str, Any]) -> dict[str, Any]:
    for key in _NUMBER_KEYS:
        if key in item and item[key] is None:
            del item[key]
    return item


def _counts(counts: Any) -> Any:
    """Status counts in trpc's keys: errors counted as failed."""
    if not isinstance(counts, dict):
        return counts
    out = {k: v for k, v in counts.items() if k != "error"}
    if counts.get("error"):
        out["failed"] = out.get("failed", 0) + counts["error"]
    return out


def _invocation(invocation: Any) -> Any:
    if isinstance(invocation, dict) and isinstance(invocation.get("tools"), list):
        invocation["tools"] = [
            {k: t[k] for k in _TOOL_KEYS if k in t} if isinstance(t, dict) else t for t in invocation["tools"]
        ]
    return invocation


def _metric_result(item: dict[str, Any]) -> dict[str, Any]:
    if "evalStatus" in item:
        item["evalStatus"] = trpc_status(item["evalStatus"])
    details = item.get("details")
    if isinstance(details, dict):
        _numbers(details)
        for rubric in details.get("rubricScores") or ():
            if isinstance(rubric, dict):
                _numbers(rubric)
    return _numbers(item)


def _case_result(case: dict[str, Any]) -> dict[str, Any]:
    case["finalEvalStatus"] = trpc_status(case.get("finalEvalStatus"))
    _numbers(case)
    case["overallEvalMetricResults"] = [_metric_result(m) for m in case.get("overallEvalMetricResults") or ()]
    for per in case.get("evalMetricResultPerInvocation") or ():
        _invocation(per.get("actualInvocation"))
        _invocation(per.get("expectedInvocation"))
        per["evalMetricResults"] = [_metric_result(m) for m in per.get("evalMetricResults") or ()]
    return case


def _metric_summaries(items: Iterable[Any]) -> list[Any]:
    out = []
    for item in items:
        item["statusCounts"] = _counts(item.get("statusCounts"))
        out.append(_metric_result(item))
    return out


def _summary(summary: dict[str, Any]) -> dict[str, Any]:
    summary["overallStatus"] = trpc_status(summary.get("overallStatus"))
    for key in ("runStatusCounts", "caseStatusCounts"):
        if key in summary:
            summary[key] = _counts(summary[key])
    for run in summary.get("runSummaries") or ():
        run["overallStatus"] = trpc_status(run.get("overallStatus"))
        run["caseStatusCounts"] = _counts(run.get("caseStatusCounts"))
        run["metricSummaries"] = _metric_summaries(run.get("metricSummaries") or ())
    for case in summary.get("evalCaseSummaries") or ():
        case["overallStatus"] = trpc_status(case.get("overallStatus"))
        case["runStatusCounts"] = _counts(case.get("runStatusCounts"))
        case["metricSummaries"] = _metric_summaries(case.get("metricSummaries") or ())
        for run in case.get("runSummaries") or ():
            run["finalEvalStatus"] = trpc_status(run.get("finalEvalStatus"))
            run["metricResults"] = [_metric_result(m) for m in run.get("metricResults") or ()]
    return summary


def trpc_result(result: EvalSetResult, *, debug: bool = False) -> dict[str, Any]:
    """An ``EvalSetResult`` in trpc's shape (agents' tracebacks dropped unless ``debug``, as every route does)."""
    data: dict[str, Any] = public_result(result, debug).model_dump(mode="json")
    data["evalCaseResults"] = [_case_result(c) for c in data.get("evalCaseResults") or ()]
    if isinstance(data.get("summary"), dict):
        data["summary"] = _summary(data["summary"])
    return data


def trpc_eval_set(eval_set: EvalSet) -> dict[str, Any]:
    """An ``EvalSet`` in trpc's shape (native JSON, tools as ``{id, name, arguments, result}``)."""
    data: dict[str, Any] = eval_set.model_dump(mode="json")
    for case in data.get("evalCases") or ():
        for key in ("conversation", "actualConversation"):
            for invocation in case.get(key) or ():
                _invocation(invocation)
    return data


def evaluation_result(app: str, result: EvalSetResult, seconds: float, *, debug: bool = False) -> dict[str, Any]:
    """trpc's ``EvaluationResult`` of a finished run: the app, the eval set, the overall status, the run's duration
    in nanoseconds (Go's ``time.Duration``), each case's runs and its metrics over the runs (the run's summary),
    and the saved ``evalSetResult``."""
    saved = trpc_result(result, debug=debug)
    summary = saved.get("summary") or {}
    runs: dict[str, list[Any]] = {}
    for case in saved["evalCaseResults"]:
        runs.setdefault(case.get("evalId", ""), []).append(case)
    cases = []
    for item in summary.get("evalCaseSummaries") or ():
        eval_id = item.get("evalId", "")
        metrics = [
            _numbers(
                {
                    "metricName": m.get("metricName"),
                    "score": m.get("averageScore"),
                    "evalStatus": m.get("evalStatus"),
                    "threshold": m.get("threshold"),
                }
            )
            for m in item.get("metricSummaries") or ()
        ]
        cases.append(
            {
                "evalId": eval_id,
                "overallStatus": item.get("overallStatus"),
                "evalCaseResults": runs.get(eval_id, []),
                "metricResults": metrics,
            }
        )
    return {
        "appName": app,
        "evalSetId": saved.get("evalSetId", ""),
        "overallStatus": summary.get("overallStatus", "not_evaluated"),
        "executionTime": int(seconds * 1e9),
        "evalCases": cases,
        "evalSetResult": saved,
    }
