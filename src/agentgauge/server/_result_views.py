"""Stored results as the review views read them: parsed once per version of the file, and one compact digest per
result (statuses by case, pass rate, metric means) for the history of an eval set.

A result file is parsed again only when it changes (:class:`~agentgauge.server._cache.FileMemo`); a result in a SQL
store has no file version and is read each time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import EvalCaseResult, EvalSetResult, EvalStatus
from ._cache import FileMemo
from ._safety import public_result
from ._state import ServerState

__all__ = ["ResultDigest", "case_runs", "load_result", "result_digest", "run_metadata"]

_RESULTS: FileMemo[EvalSetResult] = FileMemo(8)
"""Parsed results (a 5,000-case result is a few MB: only the last few opened are kept)."""
_DIGESTS: FileMemo[ResultDigest] = FileMemo(4096)
"""One digest per result file version: a history of a thousand runs is read from disk once."""

_STATUS_LETTER = {
    EvalStatus.PASSED: "P",
    EvalStatus.FAILED: "F",
    EvalStatus.ERROR: "E",
    EvalStatus.NOT_EVALUATED: "N",
    EvalStatus.INFORMATIONAL: "N",
}
_SEVERITY = {"E": 3, "F": 2, "N": 1, "P": 0}  # a case's status over runs is its worst run's


def _path(state: ServerState, app: str, result_id: str) -> Path | None:
    return state.results.source_of(app, result_id).path_for(app, result_id)


def load_result(state: ServerState, app: str, result_id: str) -> EvalSetResult:
    """The result as it may be sent over HTTP (no tracebacks unless ``--debug``); :class:`NotFoundError` when no
    source holds it."""

    def parse(_: Path) -> EvalSetResult:
        return state.results.get(app, result_id)

    path = _path(state, app, result_id)
    found = _RESULTS.get(path, parse) if path is not None else None
    # Tracebacks are dropped per request: servers with and without --debug may share the memo.
    return public_result(found if found is not None else parse(Path()), state.config.debug)


def case_runs(result: EvalSetResult, eval_id: str) -> list[EvalCaseResult]:
    """The runs of one case in the result, by run id."""
    return sorted((c for c in result.eval_case_results if c.eval_id == eval_id), key=lambda c: c.run_id)


def run_metadata(result: EvalSetResult) -> dict[str, str]:
    """The result's run metadata as text (``eval --label`` labels, git commit, branch and dirty flag, agent source
    hash, models, agentgauge version), when the file records any; ``{}`` otherwise."""
    meta: Any = getattr(result, "run_metadata", None)
    if meta is None:
        return {}
    found = {str(k): str(v) for k, v in (getattr(meta, "labels", None) or {}).items()}
    provenance = {
        "git commit": (getattr(meta, "git_commit", None) or "")[:12],
        "git branch": getattr(meta, "git_branch", None) or "",
        "git dirty": "" if getattr(meta, "git_dirty", None) is None else str(meta.git_dirty).lower(),
        "agent source": getattr(meta, "agent_source_hash", None) or "",
        "models": ", ".join(getattr(meta, "models", None) or []),
        "agentgauge": getattr(meta, "agentgauge_version", None) or "",
    }
    found.update({k: v for k, v in provenance.items() if v})
    return found


@dataclass(frozen=True)
class ResultDigest:
    """What the history of an eval set needs of one result: when, which set, the status of each case (a letter:
    ``P`` passed, ``F`` failed, ``E`` error, ``N`` not evaluated; the worst over runs), the pass rate over case
    runs and each metric's mean over the case runs that scored it."""

    result_id: str
    eval_set_id: str
    timestamp: float | None
    statuses: dict[str, str]
    passed_runs: int
    total_runs: int
    metric_means: dict[str, float]
    cancelled: bool
    metadata: dict[str, str] = field(default_factory=dict)


def _digest(result: EvalSetResult, result_id: str) -> ResultDigest:
    statuses: dict[str, str] = {}
    sums: dict[str, list[float]] = {}
    passed = 0
    for case in result.eval_case_results:
        letter = _STATUS_LETTER.get(case.final_eval_status, "N")
        passed += letter == "P"
        kept = statuses.get(case.eval_id)
        if kept is None or _SEVERITY[letter] > _SEVERITY[kept]:
            statuses[case.eval_id] = letter
        for metric in case.overall_eval_metric_results:
            if metric.score is not None:
                total = sums.setdefault(metric.metric_name, [0.0, 0.0])
                total[0] += metric.score
                total[1] += 1
    return ResultDigest(
        result_id=result_id,
        eval_set_id=result.eval_set_id,
        timestamp=result.creation_timestamp,
        statuses=statuses,
        passed_runs=passed,
        total_runs=len(result.eval_case_results),
        metric_means={name: total / count for name, (total, count) in sums.items() if count},
        cancelled=result.cancelled,
        metadata=run_metadata(result),
    )


def result_digest(state: ServerState, app: str, row: dict[str, Any]) -> ResultDigest | None:
    """The digest of the result a result-list row names; ``None`` when it cannot be read any more."""
    from ..errors import InputError, NotFoundError

    result_id = str(row["evalSetResultId"])

    def make(_: Path) -> ResultDigest:
        return _digest(state.results.get(app, result_id), result_id)

    try:
        path = _path(state, app, result_id)
        return _DIGESTS.get(path, make) if path is not None else make(Path())
    except (InputError, NotFoundError, OSError, ValueError):
        return None  # a damaged or vanished file hides one run, not the history
