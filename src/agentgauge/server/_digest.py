"""One digest per stored result: what the result list, the case list and the history of an eval set need of it.

A digest holds, per case run, its status, first failure reason, turns, first user message and metric scores, and
per result its time, set, overall status, case counts and run metadata. The three views read the same digest, made
once per version of the result file (:class:`~agentgauge.server._history.ResultHistory` keeps them).

It is made two ways that give the same digest: from a parsed :class:`EvalSetResult` (:func:`digest_of_result`,
for results in a SQL store and for files the light reading leaves to the full parse) and from the raw JSON of a
file without validating the rest of the document (:mod:`._digest_read`), which is what makes a 5,000-case result
or a history of a thousand files open at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..model import EvalCaseResult, EvalSetResult, EvalStatus, RunMetadata, summarize_statuses

__all__ = [
    "RUN_SEVERITY",
    "TEXT_LIMIT",
    "CaseDigest",
    "CaseRun",
    "ResultDigest",
    "assemble_digest",
    "digest_of_result",
    "make_digest",
    "metadata_text",
]

TEXT_LIMIT = 200
"""Characters of a case's first user message kept (the case list searches them)."""

RUN_SEVERITY = {EvalStatus.ERROR: 3, EvalStatus.FAILED: 2, EvalStatus.NOT_EVALUATED: 1}
"""How bad a case run's status is: the worst run of a case (ties: the lowest run id) is the one a reader sees first."""

_STATUS_LETTER = {
    EvalStatus.PASSED: "P",
    EvalStatus.FAILED: "F",
    EvalStatus.ERROR: "E",
    EvalStatus.NOT_EVALUATED: "N",
    EvalStatus.INFORMATIONAL: "N",
}
_LETTER_SEVERITY = {"E": 3, "F": 2, "N": 1, "P": 0}  # the history's letter of a case is its worst run's
_COUNTED = ("passed", "failed", "error", "not_evaluated")  # a result row's counts (informational is not counted)


class CaseRun(NamedTuple):
    """One run of one case as the lists show it: its status, why it did not pass (``None`` when it passed), its
    number of turns, its first user message (cut to :data:`TEXT_LIMIT`) and its overall metric scores (metrics
    without a score left out), in the file's order."""

    eval_id: str
    run_id: int
    status: EvalStatus
    reason: str | None
    turns: int
    text: str
    scores: tuple[tuple[str, float], ...]


class CaseDigest(NamedTuple):
    """One case over its runs: the run a reader looks at first (its worst), how many runs it has and its history
    letter (``P`` passed, ``F`` failed, ``E`` error, ``N`` not evaluated: the worst over runs)."""

    worst: CaseRun
    runs: int
    letter: str


@dataclass(frozen=True)
class ResultDigest:
    """What the views need of one result: its set, time, overall status (``None``: no case and no summary), number
    of runs, whether it was interrupted or cancelled, its run metadata, its cases in the file's order, its case
    counts, the pass rate's parts over case runs and each metric's mean over the case runs that scored it."""

    eval_set_id: str
    timestamp: float | None
    overall_status: str | None
    num_runs: int
    interrupted: bool
    cancelled: bool
    run_metadata: RunMetadata | None
    runs: tuple[CaseRun, ...]
    cases: dict[str, CaseDigest]
    counts: dict[str, int]
    passed_runs: int
    metric_means: dict[str, float]
    metadata: dict[str, str]

    @property
    def total_runs(self) -> int:
        """Case runs in the result."""
        return len(self.runs)

    @property
    def statuses(self) -> dict[str, str]:
        """The history letter of each case, in the file's order."""
        return {eval_id: case.letter for eval_id, case in self.cases.items()}

    def row(self, result_id: str, source: str) -> dict[str, Any]:
        """One line of the result list: id, eval set, creation time, overall status, case counts, the run's labels
        and its whole ``runMetadata`` (git state, agent source hash, models, version; ``{}`` when none was
        recorded), under the id the result is opened by and with the label of the place it was found."""
        meta = self.run_metadata
        return {
            "evalSetResultId": result_id,
            "evalSetId": self.eval_set_id,
            "creationTimestamp": self.timestamp,
            "overallStatus": self.overall_status,
            "numRuns": self.num_runs,
            "counts": dict(self.counts),
            "interrupted": self.interrupted,
            "cancelled": self.cancelled,
            "labels": dict(meta.labels) if meta is not None else {},
            "runMetadata": meta.model_dump(mode="json") if meta is not None else {},
            "source": source,
        }


def metadata_text(meta: RunMetadata | None) -> dict[str, str]:
    """A result's run metadata as text (``eval --label`` labels, git commit, branch and dirty flag, agent source
    hash, models, agentgauge version), when the file records any; ``{}`` otherwise."""
    if meta is None:
        return {}
    found = {str(k): str(v) for k, v in meta.labels.items()}
    provenance = {
        "git commit": (meta.git_commit or "")[:12],
        "git branch": meta.git_branch or "",
        "git dirty": "" if meta.git_dirty is None else str(meta.git_dirty).lower(),
        "agent source": meta.agent_source_hash or "",
        "models": ", ".join(meta.models),
        "agentgauge": meta.agentgauge_version or "",
    }
    found.update({k: v for k, v in provenance.items() if v})
    return found


def _cases(runs: Iterable[CaseRun]) -> dict[str, CaseDigest]:
    cases: dict[str, CaseDigest] = {}
    for run in runs:
        letter = _STATUS_LETTER.get(run.status, "N")
        kept = cases.get(run.eval_id)
        if kept is None:
            cases[run.eval_id] = CaseDigest(run, 1, letter)
            continue
        worst = kept.worst
        if (RUN_SEVERITY.get(run.status, 0), -run.run_id) > (RUN_SEVERITY.get(worst.status, 0), -worst.run_id):
            worst = run
        if _LETTER_SEVERITY[letter] <= _LETTER_SEVERITY[kept.letter]:
            letter = kept.letter
        cases[run.eval_id] = CaseDigest(worst, kept.runs + 1, letter)
    return cases


def make_digest(
    *,
    eval_set_id: str,
    timestamp: float | None,
    summary: tuple[EvalStatus, int] | None,
    interrupted: bool,
    cancelled: bool,
    run_metadata: RunMetadata | None,
    runs: tuple[CaseRun, ...],
) -> ResultDigest:
    """The digest of a result from its parts (``summary``: its overall status and number of runs, when the file
    has a summary; ADK's files have none and the case statuses decide)."""
    if summary is not None:
        overall: str | None = summary[0].value
    elif runs:
        overall = summarize_statuses(r.status for r in runs).value
    else:
        overall = None
    return assemble_digest(
        eval_set_id=eval_set_id,
        timestamp=timestamp,
        overall_status=overall,
        num_runs=summary[1] if summary is not None else 1,
        interrupted=interrupted,
        cancelled=cancelled,
        run_metadata=run_metadata,
        runs=runs,
    )


def assemble_digest(
    *,
    eval_set_id: str,
    timestamp: float | None,
    overall_status: str | None,
    num_runs: int,
    interrupted: bool,
    cancelled: bool,
    run_metadata: RunMetadata | None,
    runs: tuple[CaseRun, ...],
) -> ResultDigest:
    """The digest from its stored fields (:mod:`._digest_index`): the cases, counts, means and metadata text are
    computed from them, as :func:`make_digest` computes them."""
    counts = dict.fromkeys(_COUNTED, 0)
    sums: dict[str, list[float]] = {}
    for run in runs:
        if run.status.value in counts:
            counts[run.status.value] += 1
        for name, score in run.scores:
            total = sums.setdefault(name, [0.0, 0.0])
            total[0] += score
            total[1] += 1
    return ResultDigest(
        eval_set_id=eval_set_id,
        timestamp=timestamp,
        overall_status=overall_status,
        num_runs=num_runs,
        interrupted=interrupted,
        cancelled=cancelled,
        run_metadata=run_metadata,
        runs=runs,
        cases=_cases(runs),
        counts=counts,
        passed_runs=counts["passed"],
        metric_means={name: total / count for name, (total, count) in sums.items() if count},
        metadata=metadata_text(run_metadata),
    )


def case_run_of(case: EvalCaseResult) -> CaseRun:
    """A parsed case result as the lists show it."""
    from ..summary._reasons import first_reason

    turns = case.eval_metric_result_per_invocation
    text = turns[0].actual_invocation.user_content.content if turns else ""
    return CaseRun(
        eval_id=case.eval_id,
        run_id=case.run_id,
        status=case.final_eval_status,
        reason=first_reason(case),
        turns=len(turns),
        text=text[:TEXT_LIMIT],
        scores=tuple((m.metric_name, m.score) for m in case.overall_eval_metric_results if m.score is not None),
    )


def digest_of_result(result: EvalSetResult) -> ResultDigest:
    """The digest of a parsed result."""
    summary = result.summary
    return make_digest(
        eval_set_id=result.eval_set_id,
        timestamp=result.creation_timestamp,
        summary=(summary.overall_status, summary.num_runs) if summary is not None else None,
        interrupted=result.interrupted,
        cancelled=result.cancelled,
        run_metadata=result.run_metadata,
        runs=tuple(case_run_of(c) for c in result.eval_case_results),
    )
