"""The persisted shape of a comparison of two results (``agentgauge compare --json``)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from ..divergence import Divergence
from ..model._base import GaugeModel, empty_dict, empty_list, omit_empty
from ..model._status import EvalStatus

__all__ = [
    "CaseChange",
    "ChangeKind",
    "Comparison",
    "EstimateDelta",
    "GateVerdict",
    "MetricDelta",
    "PassAtK",
    "ResultRef",
    "Significance",
]


def _is_false(value: bool) -> bool:
    return not value


class ChangeKind(StrEnum):
    """How one case's overall status moved from the base result to the new one."""

    FIXED = "fixed"
    """Not passed in base, passed in new."""
    BROKEN = "broken"
    """Passed in base, not passed in new: a regression. With several runs on both sides, only when the pass rate's
    drop is significant (Fisher's exact test at the comparison's alpha); otherwise the case is ``within_noise``."""
    WITHIN_NOISE = "within_noise"
    """The status flipped (passed to not passed, or back) with several runs on both sides, but the pass rate's
    change may be chance (Fisher's exact test not significant at alpha): listed, never broken or fixed."""
    STILL_FAILING = "still_failing"
    """Not passed in either."""
    STILL_PASSING = "still_passing"
    """Passed in both."""
    NEW = "new"
    """Only in the new result (the base ran every case of its eval set)."""
    REMOVED = "removed"
    """Only in the base result (the new one ran every case of its eval set)."""
    NOT_RUN = "not_run"
    """In one result only, because the other ran a selection of cases (``EVAL_SET:case,...``) or was interrupted:
    not compared, listed apart, never a regression."""


class ResultRef(GaugeModel):
    """One side of a comparison: which result it is and its headline numbers."""

    source: str
    """The file (or id) the result was read from."""
    eval_set_result_id: str = ""
    eval_set_id: str = ""
    num_runs: int = 1
    """The most runs any case has."""
    cases: int = 0
    """Eval cases (each counted once, whatever its runs)."""
    passed_cases: int = 0
    case_runs: int = 0
    """Case runs (each case once per run), counted apart from the cases."""
    passed_case_runs: int = 0
    case_status_rule: str = omit_empty(default="")
    """The rule that decided the cases' statuses over their runs (``mean of runs ≥ threshold``, ...)."""
    interrupted: bool = False
    selected_eval_ids: list[str] = omit_empty(factory=list)
    """The cases the run was limited to (empty: every case of its eval set ran)."""


class Significance(GaugeModel):
    """A statistical test and its plain-language reading."""

    test: str
    """``fisher_exact`` (one case's runs) or ``mcnemar_exact`` (cases that changed status)."""
    p_value: float
    significant: bool
    """``p_value < alpha``."""
    alpha: float = 0.05
    note: str


class CaseChange(GaugeModel):
    """One case in both results: its status on each side, runs passed, metric means and what changed."""

    eval_id: str
    change: ChangeKind
    base_status: EvalStatus | None = None
    new_status: EvalStatus | None = None
    base_runs: int = 0
    base_passed_runs: int = 0
    new_runs: int = 0
    new_passed_runs: int = 0
    base_status_text: str | None = omit_empty()
    """The base status with the rule that decided it (``failed (3/5 runs passed; rule: all runs pass)``)."""
    new_status_text: str | None = omit_empty()
    base_metrics: dict[str, float | None] = Field(default_factory=empty_dict)
    """Mean score per metric over the base runs (``None``: never scored)."""
    new_metrics: dict[str, float | None] = Field(default_factory=empty_dict)
    reason: str | None = omit_empty()
    """Why the case does not pass in the new result (its first error or failed metric)."""
    significance: Significance | None = omit_empty()
    """Fisher's exact test on the runs passed, when both sides ran the case at least twice."""
    base_runs_state: str | None = omit_empty()
    """With several runs, ``flaky (3/5 passed)`` (runs disagree) or ``broken (0/5 passed)`` (no run passed)."""
    new_runs_state: str | None = omit_empty()
    """The same for the new result: tells a flaky case from a broken one."""
    first_divergence: Divergence | None = omit_empty()
    """Where the new run first takes another step than the base run (tool, arguments, result, answer), and where
    they meet again; absent when both take the same steps (see :mod:`agentgauge.divergence`)."""


class MetricDelta(GaugeModel):
    """One metric's mean score over the cases present on both sides, and how it moved."""

    metric_name: str
    base_mean: float | None = None
    new_mean: float | None = None
    delta: float | None = None
    """``new_mean - base_mean`` (``None`` when either side never scored it)."""
    base_scored: int = 0
    """Case runs that produced a score in base."""
    new_scored: int = 0
    measurement: bool = Field(False, exclude_if=_is_false)
    """An informational metric (see :func:`agentgauge.model.is_measurement`): its delta is shown, labelled as a
    measurement, never with a significance verdict and never as a regression."""


class EstimateDelta(GaugeModel):
    """The pass rate (share of case runs that passed) or a metric's mean on each side over the cases both have, the
    change, and its paired bootstrap interval (``low``, ``high``; 95%, cases resampled with their runs)."""

    name: str
    """``pass rate (runs)`` or the metric's name."""
    cases: int = 0
    base: float | None = None
    new: float | None = None
    delta: float | None = None
    low: float | None = omit_empty()
    high: float | None = omit_empty()
    resamples: int = 0
    """Resamples drawn (0: no interval)."""
    significant: bool | None = omit_empty()
    """Whether the interval leaves out 0 (never set for a measurement: it has no verdict)."""
    measurement: bool = Field(False, exclude_if=_is_false)
    """The metric is a measurement (see :attr:`MetricDelta.measurement`)."""
    cases_needed: int | None = omit_empty()
    """When not significant: cases (the same on both sides, as many runs as now) to detect a change this large at
    alpha 0.05 with power 0.8, from the spread of the per-case differences."""


class PassAtK(GaugeModel):
    """Mean pass@k and pass^k over the common cases (trpc-agent-go semantics, see :mod:`agentgauge.stats`)."""

    k: int
    base_pass_at_k: float
    new_pass_at_k: float
    base_pass_hat_k: float
    new_pass_hat_k: float


class GateVerdict(GaugeModel):
    """Whether a comparison fails the gate it was judged by, the rule, and what failed it (see
    :func:`agentgauge.compare.judge_gate`)."""

    fail_on: str
    """The rule's name: ``broken``, ``significant``, ``any-change`` or ``never`` (``--fail-on``)."""
    alpha: float
    """The significance level of the rule's tests."""
    rule: str
    """The rule in plain words, as every surface states it."""
    failed: bool
    """Whether the comparison fails the rule: ``compare`` (and ``eval --baseline --fail-on``) then exits with 1."""
    findings: list[str] = Field(default_factory=empty_list)
    """What failed it, one line each (empty when it passed)."""
    within_noise: list[str] = omit_empty(factory=list)
    """The cases whose status flipped within noise (never a finding of ``broken``)."""


class Comparison(GaugeModel):
    """Everything ``agentgauge compare`` reports: per case changes, per metric deltas, pass@k, significance and the
    gate's verdict.

    ``regressed`` is true when at least one case is ``broken`` (with several runs: its pass-rate drop is significant);
    ``gate`` says whether the comparison fails the rule it was judged by (``--fail-on``, default ``broken``), which
    sets ``compare``'s exit code. Cases one side did not run (``not_run``) never count as broken.
    """

    base: ResultRef
    new: ResultRef
    cases: list[CaseChange] = Field(default_factory=empty_list)
    """Base order first, then the cases only the new result has."""
    metrics: list[MetricDelta] = Field(default_factory=empty_list)
    pass_at_k: list[PassAtK] = Field(default_factory=empty_list)
    estimates: list[EstimateDelta] = omit_empty(factory=list)
    """The pass rate's and each metric's change with its paired bootstrap interval."""
    significance: Significance | None = omit_empty()
    """The exact McNemar test on fixed against broken cases (absent when no case is on both sides)."""
    notes: list[str] = omit_empty(factory=list)
    """Plain-language remarks: different eval sets, interrupted runs, too few runs for a significance test."""
    regressed: bool = False
    alpha: float = 0.05
    """The significance level of every test of the comparison."""
    gate: GateVerdict | None = omit_empty()
    """The gate's verdict (absent when the comparison was not judged, e.g. ``eval --baseline`` without
    ``--fail-on``)."""

    def count(self, kind: ChangeKind) -> int:
        """How many cases changed this way."""
        return sum(1 for case in self.cases if case.change is kind)

    def status_flips(self) -> tuple[int, int]:
        """Cases on both sides whose status flipped: (to passed, to not passed), within noise included."""
        up = down = 0
        for case in self.cases:
            if case.base_status is None or case.new_status is None:
                continue
            was, now = case.base_status is EvalStatus.PASSED, case.new_status is EvalStatus.PASSED
            up, down = up + (now and not was), down + (was and not now)
        return up, down

    def not_run(self, side: str) -> list[str]:
        """The ids of the cases ``side`` (``"base"`` or ``"new"``) did not run while the other side did."""
        return [
            c.eval_id
            for c in self.cases
            if c.change is ChangeKind.NOT_RUN and (c.base_status if side == "base" else c.new_status) is None
        ]
