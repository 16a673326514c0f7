"""One digest per stored result: what the result list, the case list and the history of an eval set need of it.

A digest holds, per case run, its compact row (status, error, metric outcomes, first failure reason), turns and
first user message, per case its :class:`~agentgauge.summary.CaseSummary`, and per result its time, set, overall
status, case and case run counts and run metadata. The three views read the same digest, made
once per version of the result file (:class:`~agentgauge.server._history.ResultHistory` keeps them).

Each case's status over its runs is the result summary's (the run decided it, by the rule it names), else decided
by that rule (:mod:`agentgauge.summary`): the result list, the case list and the history count the cases each
once, and the case runs apart.

It is made two ways that give the same digest: from a parsed :class:`EvalSetResult` (:func:`digest_of_result`,
for results in a SQL store and for files the light reading leaves to the full parse) and from the raw JSON of a
file without validating the rest of the document (:mod:`._digest_read`), which is what makes a 5,000-case result
or a history of a thousand files open at once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..model import (
    DEFAULT_CASE_STATUS,
    CaseStatusRule,
    EvalCaseResult,
    EvalSetResult,
    EvalStatus,
    RunMetadata,
    summarize_statuses,
)
from ..summary import CaseRow, CaseSummary, metric_row, summarize_case
from ..summary._reasons import first_reason

__all__ = [
    "SEARCH_LIMIT",
    "TEXT_LIMIT",
    "CaseRun",
    "ResultDigest",
    "assemble_digest",
    "digest_of_result",
    "make_digest",
    "metadata_text",
    "search_text",
]

TEXT_LIMIT = 200
"""Characters of a case's first user message kept (the case list shows them)."""

SEARCH_LIMIT = 2000
"""Characters of a case's words kept for the case list's search (every user message and expected final answer):
enough for the words of a case, small enough that a list of 5,000 cases stays a few megabytes at most."""


def search_text(texts: Iterable[str | None]) -> str:
    """What the case list searches of a case: ``texts`` (its user messages and expected answers, turn by turn), one
    a line, cut to :data:`SEARCH_LIMIT` characters in all."""
    found: list[str] = []
    room = SEARCH_LIMIT
    for text in texts:
        if not text:
            continue
        found.append(text[:room])
        room -= len(found[-1]) + 1
        if room <= 0:
            break
    return "\n".join(found)


_STATUS_LETTER = {
    EvalStatus.PASSED: "P",
    EvalStatus.FAILED: "F",
    EvalStatus.ERROR: "E",
    EvalStatus.NOT_EVALUATED: "N",
    EvalStatus.INFORMATIONAL: "N",
}
_COUNTED = ("passed", "failed", "error", "not_evaluated")  # a result row's counts (informational is not counted)
_COUNTED_STATUSES = frozenset(EvalStatus(name) for name in _COUNTED)


_Metric = tuple[str, float | None, EvalStatus, float, str | None]
"""One overall metric outcome of a case run: name, score, status, threshold, reducer."""


class CaseRun(NamedTuple):
    """One run of one case as the lists show it: its status, error, first reason (``None`` when it passed), number
    of turns, first user message (cut to :data:`TEXT_LIMIT`), overall metric outcomes, in the file's order, and
    every user message and expected final answer of its turns (:func:`search_text`; plain tuples: a history of a
    thousand results holds tens of thousands of them)."""

    eval_id: str
    run_id: int
    status: EvalStatus
    error_message: str | None
    reason: str | None
    turns: int
    text: str
    metrics: tuple[_Metric, ...]
    search: str = ""

    @property
    def row(self) -> CaseRow:
        """The run's compact row (what its case's :class:`~agentgauge.summary.CaseSummary` is made of)."""
        metrics = tuple(metric_row(*m) for m in self.metrics)
        return CaseRow(self.eval_id, self.run_id, self.status, self.error_message, metrics, None, self.reason)

    @property
    def scores(self) -> tuple[tuple[str, float], ...]:
        """Its overall metric scores (metrics without a score left out), in the file's order."""
        return tuple((m[0], m[1]) for m in self.metrics if m[1] is not None)


@dataclass(frozen=True)
class ResultDigest:
    """What the views need of one result: its set, time, overall status (``None``: no case and no summary), number
    of runs, whether it was interrupted or cancelled, its run metadata, its case runs in the file's order, each
    case's status over its runs (as the result's summary gives it, else decided by the result's rule, once, when
    the digest is made), the case counts and the case run counts apart, and each metric's mean over the case runs
    that scored it."""

    eval_set_id: str
    timestamp: float | None
    overall_status: str | None
    num_runs: int
    interrupted: bool
    cancelled: bool
    run_metadata: RunMetadata | None
    runs: tuple[CaseRun, ...]
    case_status: dict[str, EvalStatus]
    """Each case's status over its runs, in the file's order."""
    counts: dict[str, int]
    """The cases by status (each case once)."""
    run_counts: dict[str, int]
    """The case runs by status (each case once per run)."""
    metric_means: dict[str, float]
    metadata: dict[str, str]
    rule: CaseStatusRule = DEFAULT_CASE_STATUS
    not_run: tuple[tuple[str, str], ...] = ()
    """The cases of the eval set the run could not run, with why (``summary.casesNotRun``: a trace run's cases
    without a trace): in no count, listed apart."""

    @property
    def not_run_reasons(self) -> dict[str, str]:
        """:attr:`not_run` by case id (made once: a case list asks for every case)."""
        found: dict[str, str] | None = self.__dict__.get("_not_run")
        if found is None:  # the digest is frozen: made once
            found = self.__dict__["_not_run"] = dict(self.not_run)
        return found

    @property
    def total_runs(self) -> int:
        """Case runs in the result."""
        return len(self.runs)

    @property
    def passed_runs(self) -> int:
        """Case runs that passed."""
        return self.run_counts["passed"]

    @property
    def statuses(self) -> dict[str, str]:
        """The history letter of each case (its status over its runs), in the file's order."""
        return {eval_id: _STATUS_LETTER.get(status, "N") for eval_id, status in self.case_status.items()}

    @property
    def cases(self) -> dict[str, CaseSummary]:
        """Each case's :class:`~agentgauge.summary.CaseSummary`, in the file's order (made when first asked for:
        the case list of one result needs them, the result list and the history do not)."""
        found: dict[str, CaseSummary] | None = self.__dict__.get("_cases")
        if found is None:  # the digest is frozen: made once
            rows = _grouped(self.runs)
            found = self.__dict__["_cases"] = {
                eval_id: CaseSummary(eval_id, self.case_status[eval_id], self.rule, tuple(rows[eval_id]), index)
                for index, eval_id in enumerate(self.case_status)
            }
        return found

    def first_run(self, eval_id: str) -> CaseRun | None:
        """The run of a case a reader looks at first: the one its reason comes from, else its first run."""
        case = self.cases.get(eval_id)
        if case is None:
            return None
        index: dict[tuple[str, int], CaseRun] | None = self.__dict__.get("_runs_by_key")
        if index is None:  # built once (the digest is frozen): the case list asks for every case
            index = self.__dict__["_runs_by_key"] = {(r.eval_id, r.run_id): r for r in reversed(self.runs)}
        wanted = case.reason_run if case.reason_run is not None else case.first_run
        return index.get((eval_id, wanted))

    def row(self, result_id: str, source: str) -> dict[str, Any]:
        """One line of the result list: id, eval set, creation time, overall status, case counts (each case once),
        case run counts apart (``caseRuns``), the case status rule, the run's labels and its whole ``runMetadata``
        (git state, agent source hash, models, version; ``{}`` when none was recorded), under the id the result is
        opened by and with the label of the place it was found; ``notRun`` counts the cases of the set it could not
        run (apart from the counts)."""
        meta = self.run_metadata
        return {
            "evalSetResultId": result_id,
            "evalSetId": self.eval_set_id,
            "creationTimestamp": self.timestamp,
            "overallStatus": self.overall_status,
            "numRuns": self.num_runs,
            "counts": dict(self.counts),
            "caseRuns": dict(self.run_counts),
            "caseStatusRule": self.rule.value,
            "interrupted": self.interrupted,
            "cancelled": self.cancelled,
            "notRun": len(self.not_run),
            "labels": dict(meta.labels) if meta is not None else {},
            "runMetadata": meta.model_dump(mode="json") if meta is not None else {},
            "source": source,
        }


def _grouped(runs: tuple[CaseRun, ...]) -> dict[str, list[CaseRow]]:
    grouped: dict[str, list[CaseRow]] = {}
    for run in runs:
        grouped.setdefault(run.eval_id, []).append(run.row)
    return grouped


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


def make_digest(
    *,
    eval_set_id: str,
    timestamp: float | None,
    summary: tuple[EvalStatus, int] | None,
    interrupted: bool,
    cancelled: bool,
    run_metadata: RunMetadata | None,
    runs: tuple[CaseRun, ...],
    rule: CaseStatusRule = DEFAULT_CASE_STATUS,
    saved: dict[str, EvalStatus] | None = None,
    not_run: tuple[tuple[str, str], ...] = (),
) -> ResultDigest:
    """The digest of a result from its parts (``summary``: its overall status and number of runs, when the file
    has a summary, with ``saved`` case statuses and the ``rule`` it names; ADK's files have none): each case's
    status is the saved one, else decided by the rule (:func:`agentgauge.summary.summarize_case`)."""
    saved = saved or {}
    case_status: dict[str, EvalStatus] = {}
    undecided: dict[str, list[CaseRun]] = {}
    for run in runs:
        known = saved.get(run.eval_id)
        if known is not None:
            case_status.setdefault(run.eval_id, known)
        else:  # in file order, decided below
            case_status.setdefault(run.eval_id, EvalStatus.NOT_EVALUATED)
            undecided.setdefault(run.eval_id, []).append(run)
    for eval_id, case_runs in undecided.items():
        case_status[eval_id] = summarize_case(eval_id, [r.row for r in case_runs], rule).status
    return assemble_digest(
        eval_set_id=eval_set_id,
        timestamp=timestamp,
        overall_status=summary[0].value if summary is not None else None,
        num_runs=summary[1] if summary is not None else 1,
        interrupted=interrupted,
        cancelled=cancelled,
        run_metadata=run_metadata,
        runs=runs,
        rule=rule,
        case_status=case_status,
        not_run=not_run,
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
    rule: CaseStatusRule,
    case_status: dict[str, EvalStatus],
    not_run: tuple[tuple[str, str], ...] = (),
) -> ResultDigest:
    """The digest from its stored fields (:mod:`._digest_index`): the counts, means and metadata text are computed
    from them, as :func:`make_digest` computes them (an overall status of ``None`` with case runs: the cases'
    statuses combined)."""
    counts = dict.fromkeys(_COUNTED, 0)
    for status in case_status.values():
        if status in _COUNTED_STATUSES:
            counts[status.value] += 1
    run_counts = dict.fromkeys(_COUNTED, 0)
    sums: dict[str, list[float]] = {}
    for run in runs:
        if run.status in _COUNTED_STATUSES:
            run_counts[run.status.value] += 1
        for name, score, *_ in run.metrics:
            if score is not None:
                total = sums.setdefault(name, [0.0, 0.0])
                total[0] += score
                total[1] += 1
    if overall_status is None and case_status:
        overall_status = summarize_statuses(case_status.values()).value
    return ResultDigest(
        eval_set_id=eval_set_id,
        timestamp=timestamp,
        overall_status=overall_status,
        num_runs=num_runs,
        interrupted=interrupted,
        cancelled=cancelled,
        run_metadata=run_metadata,
        runs=runs,
        case_status=case_status,
        counts=counts,
        run_counts=run_counts,
        metric_means={name: total / count for name, (total, count) in sums.items() if count},
        metadata=metadata_text(run_metadata),
        rule=rule,
        not_run=not_run,
    )


def case_run_of(case: EvalCaseResult) -> CaseRun:
    """A parsed case result as the lists show it."""
    turns = case.eval_metric_result_per_invocation
    text = turns[0].actual_invocation.user_content.content if turns else ""
    search = search_text(_turn_words(t.actual_invocation, t.expected_invocation) for t in turns)
    metrics = tuple(
        (m.metric_name, m.score, m.eval_status, m.threshold, m.reducer) for m in case.overall_eval_metric_results
    )
    status, reason = case.final_eval_status, first_reason(case)
    return CaseRun(
        case.eval_id, case.run_id, status, case.error_message, reason, len(turns), text[:TEXT_LIMIT], metrics, search
    )


def _turn_words(actual: Any, expected: Any) -> str:
    """A turn's user message and expected final answer, one a line (what the case list searches)."""
    answer = expected.final_response if expected is not None else None
    return "\n".join(t for t in (actual.user_content.content, answer.content if answer else None) if t)


def digest_of_result(result: EvalSetResult) -> ResultDigest:
    """The digest of a parsed result."""
    summary = result.summary
    saved = {s.eval_id: s.overall_status for s in summary.eval_case_summaries} if summary is not None else {}
    return make_digest(
        eval_set_id=result.eval_set_id,
        timestamp=result.creation_timestamp,
        summary=(summary.overall_status, summary.num_runs) if summary is not None else None,
        interrupted=result.interrupted,
        cancelled=result.cancelled,
        run_metadata=result.run_metadata,
        runs=tuple(case_run_of(c) for c in result.eval_case_results),
        rule=(summary.case_status_rule if summary is not None else None) or DEFAULT_CASE_STATUS,
        saved=saved,
        not_run=tuple((c.eval_id, c.reason) for c in summary.cases_not_run) if summary is not None else (),
    )
