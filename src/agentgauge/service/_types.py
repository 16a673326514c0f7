"""Requests and results of the two service phases: inference and evaluation."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import EvalCaseResult, EvalMetric, EvalStatus, Invocation, SimulationSummary

__all__ = ["EvalSetRunResult", "EvaluateConfig", "EvaluateRequest", "InferenceRequest", "InferenceResult"]


@dataclass
class InferenceRequest:
    """Which cases of which eval set to run. An empty ``eval_case_ids`` means every case of the set."""

    app_name: str
    eval_set_id: str
    eval_case_ids: list[str] = field(default_factory=list)


@dataclass
class InferenceResult:
    """What the agent produced for one case (one session), or why it could not.

    ``status`` is ``passed`` when inference succeeded and ``failed`` otherwise; a failed result carries
    ``error_message`` and no ``inferences``. ``expected_inferences``, when set, are what the inferences are scored
    against instead of the case's conversation (an expected agent's run, or user-only placeholders of a simulated
    conversation); ``simulation`` describes a simulated conversation. When the agent itself failed,
    ``partial_inferences`` holds the turns it completed before the failure and ``error_traceback`` the agent's
    traceback (secrets masked); both are shown in reports, never scored.
    """

    app_name: str
    eval_set_id: str
    eval_case_id: str
    inferences: list[Invocation] = field(default_factory=list)
    session_id: str = ""
    user_id: str = ""
    status: EvalStatus = EvalStatus.PASSED
    error_message: str | None = None
    expected_inferences: list[Invocation] | None = None
    simulation: SimulationSummary | None = None
    partial_inferences: list[Invocation] = field(default_factory=list)
    error_traceback: str | None = None

    def fail(
        self, message: str, *, partial: list[Invocation] | None = None, traceback: str | None = None
    ) -> InferenceResult:
        """Mark this result failed with ``message``; the inferences move to ``partial_inferences`` only when given
        as ``partial`` (the turns finished before the failure), with the failure's ``traceback``."""
        self.status = EvalStatus.FAILED
        self.error_message = message
        self.inferences = []
        self.expected_inferences = None
        self.partial_inferences = list(partial or [])
        self.error_traceback = traceback
        return self


@dataclass
class EvaluateConfig:
    """The metrics to score every case with; ``skipped_metrics`` names metrics of the set left out of this run on
    purpose (``--only-metrics`` / ``--skip-metrics`` / ``--no-judges``): case rubrics naming them are ignored."""

    eval_metrics: list[EvalMetric] = field(default_factory=list)
    skipped_metrics: list[str] = field(default_factory=list)


@dataclass
class EvaluateRequest:
    """Score ``inference_results`` of an eval set with ``evaluate_config.eval_metrics``."""

    app_name: str
    eval_set_id: str
    inference_results: list[InferenceResult] = field(default_factory=list)
    evaluate_config: EvaluateConfig = field(default_factory=EvaluateConfig)


@dataclass
class EvalSetRunResult:
    """The case results of one evaluation pass over an eval set."""

    app_name: str
    eval_set_id: str
    eval_case_results: list[EvalCaseResult] = field(default_factory=list)
