"""One candidate golden case per cluster, from its most typical member, marked for review."""

from __future__ import annotations

from ..model import EvalCase, EvalCaseResult, EvalSet, EvalSetResult, Invocation
from ._cluster import Cluster, Triage

__all__ = ["REVIEW_KEY", "add_candidates", "candidate_cases"]

REVIEW_KEY = "review"
"""The case key that marks a candidate for review: ``{"status": "candidate", "cluster", "size", "reason", "from"}``."""

_RUN_ONLY = {"duration": None, "model_duration": None, "tool_duration": None, "usage": None, "replay": None}


def _expected_turn(entry_expected: Invocation | None, actual: Invocation) -> Invocation:
    """The golden turn where the run had one, else what the agent did (to be corrected by the reviewer)."""
    if entry_expected is not None and (entry_expected.tools or entry_expected.final_response is not None):
        return entry_expected.model_copy(deep=True)
    return actual.model_copy(deep=True, update=_RUN_ONLY)


def _candidate(cluster: Cluster, run: EvalCaseResult, result: EvalSetResult) -> EvalCase:
    turns = [_expected_turn(e.expected_invocation, e.actual_invocation) for e in run.eval_metric_result_per_invocation]
    case = EvalCase(eval_id=f"triage_{cluster.rank}_{run.eval_id}", conversation=turns)
    review = {
        "status": "candidate",
        "cluster": cluster.title,
        "size": cluster.size,
        "reason": cluster.example.reason.splitlines()[0] if cluster.example.reason else "",
        "from": f"result {result.eval_set_result_id or '?'}, case {run.eval_id}, run {run.run_id}",
    }
    if case.__pydantic_extra__ is not None:
        case.__pydantic_extra__[REVIEW_KEY] = review
    return case


def candidate_cases(triage: Triage, result: EvalSetResult) -> list[EvalCase]:
    """A candidate golden case per cluster, heaviest first: the example member's user turns with their golden
    turns (or, for a reference-free case, the turns the agent took), ``review`` saying where it came from."""
    runs = {(r.eval_id, r.run_id): r for r in result.eval_case_results}
    out = []
    for cluster in triage.clusters:
        run = runs.get((cluster.example.eval_id, cluster.example.run_id))
        if run is not None and run.eval_metric_result_per_invocation:
            out.append(_candidate(cluster, run, result))
    return out


def add_candidates(eval_set: EvalSet, cases: list[EvalCase]) -> list[str]:
    """Append ``cases`` to ``eval_set`` (an id already taken gets ``_2``, ``_3``, ...); the ids they got."""
    taken = {c.eval_id for c in eval_set.eval_cases}
    added = []
    for case in cases:
        eval_id, number = case.eval_id, 2
        while eval_id in taken:
            eval_id, number = f"{case.eval_id}_{number}", number + 1
        taken.add(eval_id)
        case.eval_id = eval_id
        eval_set.eval_cases.append(case)
        added.append(eval_id)
    return added
