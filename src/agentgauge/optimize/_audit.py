"""The audit report of one optimisation (``audit.json``; rendered as Markdown and HTML): what was optimised and
how, the baseline's and the candidate's scores on train and validation with their intervals, the gate's verdicts,
the proposed patch and its diff, prompt hashes, models, what it cost, and the agentgauge version."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pydantic import Field

from ..compare import EstimateDelta, GateReport
from ..model import EvalSetResult, EvalStatus, GaugeModel
from ..model._base import empty_dict, empty_list, omit_empty
from ._patch import Patch
from ._search import EvaluationTiming

__all__ = [
    "AUDIT_FORMAT",
    "AuditReport",
    "CandidateRecord",
    "Spent",
    "SplitEvidence",
    "SplitRef",
    "SplitScore",
    "SurfaceRecord",
    "split_score",
]

AUDIT_FORMAT = "agentgauge.optimize/1"
"""The ``format`` of an audit report."""


class SplitRef(GaugeModel):
    """A split as the optimisation used it: eval set, file, cases and where its metrics came from."""

    name: str
    eval_set_id: str
    file: str
    case_ids: list[str] = Field(default_factory=empty_list)
    metrics: list[str] = Field(default_factory=empty_list)
    metrics_source: str = ""


class SplitScore(GaugeModel):
    """One evaluation of the gate's evidence: a result on a split, its pass rate of case runs with a 95%
    bootstrap interval (cases resampled) and how many cases passed."""

    result_id: str
    result_file: str | None = omit_empty()
    cases: int = 0
    runs: int = 1
    passed_cases: int = 0
    pass_rate: float | None = None
    low: float | None = omit_empty()
    high: float | None = omit_empty()


def split_score(result: EvalSetResult, result_file: str | None, resamples: int, seed: int) -> SplitScore:
    """The :class:`SplitScore` of a result (``resamples`` 0: no interval)."""
    from ..stats import ratio_interval

    passed: dict[str, int] = defaultdict(int)
    runs: dict[str, int] = defaultdict(int)
    for run in result.eval_case_results:
        runs[run.eval_id] += 1
        passed[run.eval_id] += run.final_eval_status is EvalStatus.PASSED
    ids = list(runs)
    total = sum(runs.values())
    score = SplitScore(
        result_id=result.eval_set_result_id,
        result_file=result_file,
        cases=len(ids),
        runs=max(runs.values(), default=1),
        passed_cases=sum(1 for i in ids if passed[i] == runs[i]),
        pass_rate=sum(passed.values()) / total if total else None,
    )
    if resamples > 0 and len(ids) >= 2:
        interval = ratio_interval(
            [float(passed[i]) for i in ids], [float(runs[i]) for i in ids], resamples=resamples, seed=seed
        )
        if interval is not None:
            score.low, score.high = interval.low, interval.high
    return score


class SplitEvidence(GaugeModel):
    """The candidate against the baseline on one split: both scores and the change of the pass rate and of each
    metric's mean, with paired bootstrap intervals (from ``agentgauge compare``), and the cases that changed."""

    split: str
    baseline: SplitScore
    candidate: SplitScore
    estimates: list[EstimateDelta] = Field(default_factory=empty_list)
    fixed: list[str] = omit_empty(factory=list)
    broken: list[str] = omit_empty(factory=list)
    within_noise: list[str] = omit_empty(factory=list)


class SurfaceRecord(GaugeModel):
    """A surface the optimisation could change: its id, kind, owner, its baseline text and that text's hash (and
    the hash of the proposed text, when the proposal changes it)."""

    surface_id: str
    kind: str
    owner: str = ""
    text: str = ""
    sha256: str
    proposed_sha256: str | None = omit_empty()


class CandidateRecord(GaugeModel):
    """A candidate the search considered: its index, the search's own score of it (validation mean), the
    candidates it came from, its texts' hashes and whether it is the one proposed to the gate."""

    index: int
    patch_id: str
    search_score: float | None = None
    parents: list[int] = omit_empty(factory=list)
    sha256: dict[str, str] = Field(default_factory=empty_dict)
    proposed: bool = False


class Spent(GaugeModel):
    """What the optimisation spent: the search's metric calls (case runs scored), the gate's case runs, the agent's
    model calls, costs (known prices only, in ``currency``; ``agent_cost_missing``: turns without a known price),
    the reflection model's and the judge metrics' calls (answers from the judge cache are not calls), wall time, and
    the budget limit that stopped the search (if one did)."""

    metric_calls: int = 0
    gate_case_runs: int = 0
    model_calls: int = 0
    agent_cost: float = 0.0
    agent_cost_missing: int = 0
    reflection_calls: int = 0
    reflection_cost: float | None = None
    judge_calls: int = 0
    judge_cost: float = 0.0
    total_cost: float = 0.0
    currency: str = "USD"
    seconds: float = 0.0
    search_seconds: float = 0.0
    stopped_by: str | None = omit_empty()


class AuditReport(GaugeModel):
    """Everything one optimisation did and found (see the module's description)."""

    format: str = AUDIT_FORMAT
    optimization_id: str
    created: float
    agentgauge_version: str
    agent: str
    agent_identity: str = ""
    """The agent as named, with the hash of its source files (``agent.py#<sha256>``)."""
    app_name: str
    optimizer: str
    settings: dict[str, Any] = Field(default_factory=empty_dict)
    """The optimiser's and the run's settings (seed, metric calls, minibatch, runs per case, parallelism, ...)."""
    budget: str = "unlimited"
    reflection_model: str | None = omit_empty()
    models: list[str] = Field(default_factory=empty_list)
    """The models the agent's turns recorded using."""
    train: SplitRef
    validation: SplitRef
    surfaces: list[SurfaceRecord] = Field(default_factory=empty_list)
    baseline: dict[str, SplitScore] = Field(default_factory=empty_dict)
    """The baseline's scores, by split (``train``, ``validation``)."""
    candidates: list[CandidateRecord] = Field(default_factory=empty_list)
    proposed: int | None = None
    """The index of the candidate the search proposed (``None``: it found none better than the baseline)."""
    evidence: dict[str, SplitEvidence] = Field(default_factory=empty_dict)
    """The proposed candidate against the baseline, by split."""
    gate: GateReport | None = None
    accepted: bool = False
    patch: Patch | None = None
    """The proposed patch (written as ``patch.json``; the patched agent is beside it when accepted)."""
    diff: str = ""
    spent: Spent = Field(default_factory=Spent)
    evaluations: list[EvaluationTiming] = Field(default_factory=empty_list)
    notes: list[str] = omit_empty(factory=list)
    search_details: dict[str, Any] = omit_empty(factory=dict)
    """The optimiser's own record of its search (GEPA's result as a dict)."""

    @property
    def verdict(self) -> str:
        """``accepted``, ``rejected`` or ``no candidate``."""
        if self.proposed is None:
            return "no candidate"
        return "accepted" if self.accepted else "rejected"
