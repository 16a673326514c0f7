"""``/api`` route of an eval set's history: every run's pass rate and metric means over time (the trend chart) and
the runs × cases matrix of statuses, from every result of the set the server can find (its one history)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from pydantic import Field

from ..errors import InputError, NotFoundError
from ._answers import Answer, json_answer
from ._deps import StateDep

__all__ = ["HistoryAnswer", "HistoryRun", "router"]

router = APIRouter()
"""``/apps/{app}/eval-sets/{set_id}/history`` (mounted under ``/api``)."""


class HistoryRun(Answer):
    """One run (result) of the set: when, its pass rate over case runs (``passed`` of ``total`` case runs), its
    cases (``passed_cases`` of ``cases``, each counted once over its runs; ``failed_cases``: failed or error), each
    metric's mean and run metadata when the result file records any (labels, git commit, versions)."""

    result_id: str
    timestamp: float | None = None
    pass_rate: float | None = None
    passed: int
    total: int
    cases: int = 0
    passed_cases: int = 0
    failed_cases: int
    metric_means: dict[str, float]
    cancelled: bool = False
    source: str = ""
    metadata: dict[str, str] = Field(default_factory=dict)
    case_runs: dict[str, list[int]] = Field(
        default_factory=dict, description="with several runs per case: each case's runs passed and runs, [k, n]"
    )


class HistoryAnswer(Answer):
    """The runs of an eval set, oldest first, and the matrix of their case statuses: ``matrix[i]`` is run ``i``'s
    statuses, one letter per case of ``cases`` (``P`` passed, ``F`` failed, ``E`` error, ``N`` not evaluated, ``-``
    not run), each case's status over its runs as the result decided it."""

    app: str
    eval_set_id: str
    metrics: list[str]
    cases: list[str]
    runs: list[HistoryRun]
    matrix: list[str]
    truncated: int = Field(0, description="older runs left out (see limit)")


@router.get("/apps/{app}/eval-sets/{set_id}/history", response_model=HistoryAnswer)
def set_history(
    app: str, set_id: str, state: StateDep, limit: Annotated[int, Query(ge=1, le=10000)] = 1000
) -> Response:
    """The set's runs, oldest first (at most ``limit``, the newest kept), each with its pass rate and metric means,
    and the runs × cases status matrix; cases in the eval set's order, then cases only older runs had."""
    state.check_app(app)
    listed = [(row, digest) for row, digest in state.results.listed(app) if row["evalSetId"] == set_id]
    truncated = max(0, len(listed) - limit)
    listed = listed[:limit]
    try:
        cases = list(
            state.eval_sets.snapshot(app, set_id).view("review-ids", lambda s: [c.eval_id for c in s.eval_cases])
        )
    except (NotFoundError, InputError):
        cases = []  # a deleted or broken set still has a history
    known = set(cases)
    runs: list[dict[str, Any]] = []
    letters: list[dict[str, str]] = []
    metrics: dict[str, None] = {}
    for row, digest in reversed(listed):  # oldest first
        statuses = digest.statuses
        letters.append(statuses)
        for eval_id in statuses:
            if eval_id not in known:
                known.add(eval_id)
                cases.append(eval_id)
        metrics.update(dict.fromkeys(digest.metric_means))
        total = digest.total_runs
        # Built as the answer's JSON (HistoryRun's camelCase fields) directly: a thousand models validated on the
        # way out would cost more than the digests themselves.
        runs.append(
            {
                "resultId": row["evalSetResultId"],
                "timestamp": digest.timestamp,
                "passRate": digest.passed_runs / total if total else None,
                "passed": digest.passed_runs,
                "total": total,
                "cases": len(statuses),
                "passedCases": digest.counts["passed"],
                "failedCases": sum(1 for s in statuses.values() if s in ("F", "E")),
                "metricMeans": digest.metric_means,
                "cancelled": digest.cancelled,
                "source": str(row.get("source") or ""),
                "metadata": digest.metadata,
                # With several runs per case: each case's runs passed and runs, ``[k, n]`` (the matrix shades by it).
                "caseRuns": {i: [c.runs_passed, c.runs] for i, c in digest.cases.items() if c.runs > 1},
            }
        )
    matrix = ["".join(s.get(c, "-") for c in cases) for s in letters]
    answer = {
        "app": app,
        "evalSetId": set_id,
        "metrics": list(metrics),
        "cases": cases,
        "runs": runs,
        "matrix": matrix,
        "truncated": truncated,
    }
    return json_answer(answer)
