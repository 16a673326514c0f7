"""Evaluation results: per metric, per invocation, per case, per set, plus the multi-run summary."""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, model_validator

from ._base import GaugeModel, empty_list, omit_empty
from ._evalset import ConversationScenario, Invocation
from ._metric import Criterion
from ._run_metadata import RunMetadata
from ._status import CaseStatusRule, EvalStatus, StatusField

__all__ = [
    "CaseMetricRunResult",
    "CaseRunSummary",
    "EvalCaseResult",
    "EvalCaseSummary",
    "EvalMetricResult",
    "EvalMetricResultDetails",
    "EvalMetricResultPerInvocation",
    "EvalSetResult",
    "EvalSetResultSummary",
    "MetricSummary",
    "RubricScore",
    "RunSummary",
    "ScoreValue",
    "SimulationSummary",
    "StatusCounts",
]


def _null_as(empty: Any) -> BeforeValidator:
    # ADK writes absent optional values as null (``rationale: null``, ``rubric_scores: null``).
    return BeforeValidator(lambda value: empty() if value is None else value)


class RubricScore(GaugeModel):
    """A judge's verdict on one rubric: its id, the reason and the score (``None`` when unparseable)."""

    id: str = ""
    reason: Annotated[str, _null_as(str)] = ""
    score: float | None = None


class ScoreValue(GaugeModel):
    """The typed value behind a score (trpc-agent-go's ``score.Value``): ``kind`` says which one field holds it,
    ``numeric`` (a number), ``boolean`` (a judge's pass/fail verdict) or ``categorical`` (a judge's label). The
    score stays what thresholds and means read; the value says what the judge actually answered."""

    kind: Literal["numeric", "boolean", "categorical"]
    numeric: float | None = omit_empty()
    boolean: bool | None = omit_empty()
    categorical: str | None = omit_empty()

    @model_validator(mode="after")
    def _one_field(self) -> ScoreValue:
        held = getattr(self, self.kind)
        if held is None:
            raise ValueError(f"a {self.kind} value needs its {self.kind!r} field")
        if self.kind == "numeric" and isinstance(held, float) and not math.isfinite(held):
            raise ValueError("a numeric value must be finite")
        return self

    @classmethod
    def of(cls, value: float | bool | str) -> ScoreValue:
        """The value of ``value``'s kind (``bool`` before numbers: ``True`` is no score of 1)."""
        if isinstance(value, bool):
            return cls(kind="boolean", boolean=value)
        if isinstance(value, str):
            return cls(kind="categorical", categorical=value)
        return cls(kind="numeric", numeric=float(value))

    def text(self) -> str:
        """The value as shown: ``0.75``, ``true``, ``"good"``."""
        if self.kind == "boolean":
            return "true" if self.boolean else "false"
        if self.kind == "categorical":
            return f"{self.categorical!r}"
        return f"{self.numeric:g}"


class EvalMetricResultDetails(GaugeModel):
    """Why a metric scored what it did: the reason, the score, its typed value and per-rubric scores.

    ``value`` (trpc-agent-go's typed ``details.value``) is what a judge answered (a number, a boolean verdict, a
    category) where the metric knows it. ``token_usage_details`` and ``duration_details`` are ADK's
    efficiency-metric details (token counts by type, seconds by kind), kept as written. ``null`` for any of the
    lists or details means "none".
    """

    reason: str | None = omit_empty()
    score: float | None = omit_empty()
    value: ScoreValue | None = omit_empty()
    rubric_scores: Annotated[list[RubricScore], _null_as(list)] = omit_empty(factory=list)
    token_usage_details: dict[str, Any] | None = omit_empty()
    duration_details: dict[str, Any] | None = omit_empty()


class EvalMetricResult(GaugeModel):
    """The outcome of one metric (overall or for one invocation). ``score`` is always written (null if none)."""

    metric_name: str
    score: float | None = None
    eval_status: StatusField = EvalStatus.NOT_EVALUATED
    threshold: float = 0.0
    criterion: Criterion | None = omit_empty()
    details: EvalMetricResultDetails | None = omit_empty()
    reducer: str | None = omit_empty()
    """The metric's reducer over runs (absent: mean), so a saved result is aggregated as its run was."""


class EvalMetricResultPerInvocation(GaugeModel):
    """All metric results for one invocation, with the actual and expected invocation side by side."""

    actual_invocation: Invocation
    expected_invocation: Invocation | None = omit_empty()
    eval_metric_results: list[EvalMetricResult] = Field(default_factory=empty_list)


class SimulationSummary(GaugeModel):
    """How a simulated conversation went: the scenario's dialect and driver, the user turns played and why it
    ended (``stop_signal``: the simulated user sent the stop signal; ``turn_limit``: the turn limit was reached;
    ``simulator``: the simulator had nothing more to say; ``error``: the conversation failed, see the case's
    ``error_message``). ``scenario`` is the case's ``conversationScenario`` as played (reports show its starting
    prompt, plan and persona)."""

    dialect: str = ""
    driver: str = ""
    turns: int = 0
    stop_reason: str = ""
    scenario: ConversationScenario | None = omit_empty()


class EvalCaseResult(GaugeModel):
    """The result of one eval case in one run.

    ``score`` is the case-level score of trpc-agent-go (``evalCaseResults[].score``), given by the run's case
    result aggregator (:class:`agentgauge.service.CaseResultAggregator`; by default 1 for a passed case, 0
    otherwise) to cases scored by trpc's rules; absent for other cases and for cases that errored.
    ``simulation`` is set for ``conversationScenario`` cases, whose simulated conversation is the per-invocation
    ``actualInvocation`` list. When the agent failed, ``error_message`` says how, ``error_traceback`` holds its
    traceback (secrets masked) and ``eval_metric_result_per_invocation`` the turns it finished before the failure,
    without metric results.
    """

    eval_set_id: str = ""
    eval_id: str = ""
    run_id: int = 1
    score: float | None = Field(default=None, exclude_if=lambda v: v is None)
    final_eval_status: StatusField = EvalStatus.NOT_EVALUATED
    error_message: str | None = omit_empty()
    error_traceback: str | None = omit_empty()
    overall_eval_metric_results: list[EvalMetricResult] = Field(default_factory=empty_list)
    eval_metric_result_per_invocation: list[EvalMetricResultPerInvocation] = Field(default_factory=empty_list)
    session_id: str = ""
    user_id: str = ""
    simulation: SimulationSummary | None = omit_empty()


def _is_zero(value: int) -> bool:
    return value == 0


def _is_false(value: bool) -> bool:
    return not value


class StatusCounts(GaugeModel):
    """How many results had each status (zero counts are omitted on output)."""

    passed: int = Field(0, exclude_if=_is_zero)
    failed: int = Field(0, exclude_if=_is_zero)
    error: int = Field(0, exclude_if=_is_zero)
    not_evaluated: int = Field(0, exclude_if=_is_zero)

    def add(self, status: EvalStatus) -> None:
        """Count one more result with ``status`` (informational is not counted)."""
        if status is EvalStatus.PASSED:
            self.passed += 1
        elif status is EvalStatus.FAILED:
            self.failed += 1
        elif status is EvalStatus.ERROR:
            self.error += 1
        elif status is EvalStatus.NOT_EVALUATED:
            self.not_evaluated += 1


class MetricSummary(GaugeModel):
    """A metric's mean score over evaluated results, its status against the threshold, and status counts."""

    metric_name: str
    average_score: float | None = None
    eval_status: StatusField = EvalStatus.NOT_EVALUATED
    threshold: float = 0.0
    status_counts: StatusCounts = Field(default_factory=StatusCounts)


class RunSummary(GaugeModel):
    """One run across all cases: its status, case status counts and metric summaries."""

    run_id: int
    overall_status: StatusField = EvalStatus.NOT_EVALUATED
    case_status_counts: StatusCounts = Field(default_factory=StatusCounts)
    metric_summaries: list[MetricSummary] = Field(default_factory=empty_list)


class CaseMetricRunResult(GaugeModel):
    """One metric's outcome for one case in one run."""

    metric_name: str
    score: float | None = None
    eval_status: StatusField = EvalStatus.NOT_EVALUATED
    threshold: float = 0.0


class CaseRunSummary(GaugeModel):
    """One case in one run: final status, error and metric outcomes."""

    run_id: int
    final_eval_status: StatusField = EvalStatus.NOT_EVALUATED
    error_message: str | None = omit_empty()
    metric_results: list[CaseMetricRunResult] = Field(default_factory=empty_list)


class EvalCaseSummary(GaugeModel):
    """One case across runs: overall status, run status counts, averaged metrics and per-run outcomes."""

    eval_id: str
    overall_status: StatusField = EvalStatus.NOT_EVALUATED
    run_status_counts: StatusCounts = Field(default_factory=StatusCounts)
    metric_summaries: list[MetricSummary] = Field(default_factory=empty_list)
    run_summaries: list[CaseRunSummary] = Field(default_factory=empty_list)


class CaseNotRun(GaugeModel):
    """A case of the eval set that a run did not run, and why: ``no trace`` when no recorded trace matched it
    (``eval --traces`` against an eval set)."""

    eval_id: str
    reason: str

    @property
    def status_text(self) -> str:
        """The case's status as lists and reports name it: ``not run: no trace``."""
        return f"not run: {self.reason}"


class EvalSetResultSummary(GaugeModel):
    """Multi-run summary of an eval set result (trpc-agent-go shape).

    ``case_status_counts`` (agentgauge's own) counts the cases by their overall status across runs: the numbers
    every report shows (passed + failed + error + not evaluated = cases); ``case_status_rule`` (agentgauge's own)
    names the rule that decided those statuses (absent: ``mean``, see :class:`CaseStatusRule`) and
    ``case_run_status_counts`` (agentgauge's own) counts the case runs (a case run is one case in one run:
    cases x runs of them) by their status. ``run_status_counts`` counts the runs (one pass over every case) by
    their status, as trpc-agent-go does. ``selected_eval_ids`` (agentgauge's own)
    lists the cases a run was limited to (``EVAL_SET:case,...``, the web UI's or the API's case selection); it is
    empty when every case of the eval set ran, so ``compare`` tells cases not run from cases removed from the set.
    ``cases_not_run`` (agentgauge's own) lists the cases of the eval set the run could not run, each with why (a
    trace run's cases without a trace): they are not among the counted cases, and every report counts them apart.
    """

    overall_status: StatusField = EvalStatus.NOT_EVALUATED
    num_runs: int = 1
    run_status_counts: StatusCounts = Field(default_factory=StatusCounts)
    case_status_counts: StatusCounts | None = omit_empty()
    case_status_rule: CaseStatusRule | None = omit_empty()
    case_run_status_counts: StatusCounts | None = omit_empty()
    selected_eval_ids: list[str] = omit_empty(factory=list)
    cases_not_run: list[CaseNotRun] = omit_empty(factory=list)
    run_summaries: list[RunSummary] = Field(default_factory=empty_list)
    eval_case_summaries: list[EvalCaseSummary] = Field(default_factory=empty_list)


class EvalSetResult(GaugeModel):
    """Everything one evaluation of an eval set produced: every case result of every run, plus a summary."""

    eval_set_result_id: str = ""
    eval_set_result_name: str = ""
    eval_set_id: str
    eval_case_results: list[EvalCaseResult] = Field(default_factory=empty_list)
    summary: EvalSetResultSummary | None = omit_empty()
    creation_timestamp: float | None = omit_empty()
    interrupted: bool = Field(False, exclude_if=_is_false)
    """True when the run was stopped (Ctrl-C) before every case finished: only finished cases are present."""
    cancelled: bool = Field(False, exclude_if=_is_false)
    """True when a user cancelled the run (the web UI's *Cancel*, ``DELETE /api/runs/{id}``); ``interrupted`` is
    set too."""
    run_metadata: RunMetadata | None = omit_empty()
    """Labels and provenance of the run (``eval --label``, git state, agent source hash, models, version); absent
    in results written before it existed and in files from other tools."""
