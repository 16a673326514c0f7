"""Scoring one case: expected invocations, every metric through its evaluator, results as data."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from pydantic import ValidationError

from ..agents._safety import describe_exception
from ..evaluators._base import CURRENT_CASE, EvaluateResult, Evaluator, PerInvocationResult
from ..model import (
    EvalCase,
    EvalCaseResult,
    EvalMetric,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalStatus,
    Invocation,
    RubricScore,
    summarize_statuses,
)
from ._aggregation import CaseAggregationError, CaseResultAggregator, CaseScoreInput, score_case
from ._rubrics import RubricError, merge_case_rubrics
from ._turns import expected_invocations, turn_mismatches
from ._types import InferenceResult

__all__ = ["EvaluatorSource", "evaluate_case", "metric_results"]


class EvaluatorSource(Protocol):
    """Where the service finds a metric's evaluator (:class:`agentgauge.evaluators.Registry` satisfies it)."""

    def resolve(self, metric: EvalMetric) -> Evaluator:
        """The evaluator for ``metric`` (raises ``LookupError`` when none is registered)."""
        ...


class _MetricFailure(Exception):
    pass


def _reason(exc: BaseException) -> str:
    # The evaluator's own message as before; an unprintable one (its __str__ raises) is described safely.
    if isinstance(exc, SystemExit):
        return describe_exception(exc).replace("the agent", "the evaluator")
    try:
        return str(exc)
    except Exception:
        return describe_exception(exc)


def _details(
    reason: str, score: float | None, rubric_scores: list[RubricScore], item: PerInvocationResult | EvaluateResult
) -> EvalMetricResultDetails:
    return EvalMetricResultDetails(
        reason=reason or None,
        score=score,
        value=item.value if isinstance(item, PerInvocationResult) else None,
        rubric_scores=rubric_scores,
        token_usage_details=item.token_usage_details,
        duration_details=item.duration_details,
    )


def metric_results(metric: EvalMetric, result: EvaluateResult) -> tuple[EvalMetricResult, list[EvalMetricResult]]:
    """Map an evaluator's result to the overall and per-invocation :class:`EvalMetricResult` of ``metric``.

    The overall ``details.reason`` is the evaluator's overall reason, else the non-empty per-invocation reasons
    joined by ``";"``; its rubric scores are the evaluator's overall ones, else all per-invocation ones.
    """
    # Shared, not copied: results never modify it and managers copy on write (the cost shows at 1000s of cases).
    criterion = metric.criterion
    per_invocation = [
        EvalMetricResult(
            metric_name=metric.metric_name,
            score=item.score,
            eval_status=item.status,
            threshold=metric.threshold,
            criterion=criterion,
            details=_details(item.reason, item.score, list(item.rubric_scores), item),
        )
        for item in result.per_invocation_results
    ]
    reason = result.reason or ";".join(item.reason for item in result.per_invocation_results if item.reason)
    rubric_scores = list(result.rubric_scores) or [
        score for item in result.per_invocation_results for score in item.rubric_scores
    ]
    overall = EvalMetricResult(
        metric_name=metric.metric_name,
        score=result.overall_score,
        eval_status=result.overall_status,
        threshold=metric.threshold,
        criterion=criterion,
        details=_details(reason, result.overall_score, rubric_scores, result),
        reducer=metric.reducer,  # how runs of the case combine (summary), kept with the result
    )
    return overall, per_invocation


def _with_case_context(actuals: Sequence[Invocation], case: EvalCase) -> list[Invocation]:
    if not case.context_messages:
        return list(actuals)
    return [
        inv if inv.context_messages else inv.model_copy(update={"context_messages": list(case.context_messages)})
        for inv in actuals
    ]


async def _score(
    evaluators: EvaluatorSource, metric: EvalMetric, actuals: list[Invocation], expecteds: list[Invocation]
) -> tuple[EvalMetricResult, list[EvalMetricResult]]:
    try:
        evaluator = evaluators.resolve(metric)
        result = await evaluator.evaluate(actuals, expecteds, metric)
    except (Exception, SystemExit) as exc:  # a plug-in evaluator's sys.exit() errors its metric, not the run
        raise _MetricFailure(_reason(exc)) from None
    if not isinstance(result, EvaluateResult):
        raise _MetricFailure(f"evaluator returned {type(result).__name__}, expected EvaluateResult")
    if len(result.per_invocation_results) != len(actuals):
        raise _MetricFailure(
            f"{len(result.per_invocation_results)} per-invocation results for {len(actuals)} invocations"
        )
    try:
        return metric_results(metric, result)
    except ValidationError as exc:
        # A plug-in evaluator's malformed score or status errors its metric, not the whole run.
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise _MetricFailure(f"evaluator returned an invalid result: {where}: {first['msg']}") from None


def _errored(metric: EvalMetric, message: str, invocations: int) -> tuple[EvalMetricResult, list[EvalMetricResult]]:
    """The results of a metric whose evaluator failed: ``error``, no score, the message as the overall reason.

    Every invocation gets an ``error`` entry too, so readers that decide per invocation (ADK's drop-in report)
    see the metric as undecided instead of missing."""
    overall = EvalMetricResult(
        metric_name=metric.metric_name,
        eval_status=EvalStatus.ERROR,
        threshold=metric.threshold,
        criterion=metric.criterion,
        details=EvalMetricResultDetails(reason=message),
        reducer=metric.reducer,
    )
    per_invocation = EvalMetricResult(
        metric_name=metric.metric_name, eval_status=EvalStatus.ERROR, threshold=metric.threshold
    )
    return overall, [per_invocation] * invocations  # immutable in practice: shared, as criteria are


def _failed_inference(result: EvalCaseResult, case: EvalCase, inference: InferenceResult) -> EvalCaseResult:
    """A failed case keeps the agent's traceback and the turns it finished (unscored, beside their expectations)."""
    if not inference.partial_inferences and not inference.error_traceback:
        return result
    expecteds = list(case.conversation or []) if not case.is_trace else []
    partial = [
        EvalMetricResultPerInvocation(
            actual_invocation=actual, expected_invocation=expecteds[i] if i < len(expecteds) else None
        )
        for i, actual in enumerate(inference.partial_inferences)
    ]
    return result.model_copy(
        update={"error_traceback": inference.error_traceback, "eval_metric_result_per_invocation": partial}
    )


def _verdict(
    case: EvalCase, overall: list[EvalMetricResult], errors: list[str]
) -> tuple[EvalStatus, list[str], list[Invocation]]:
    """The case status and error messages from its metrics, and the recorded turns beyond the expected ones.

    A recording longer or shorter than the expected conversation: the turns that line up were scored, the others
    fail the case by name (and recorded extra turns are kept, unscored, for the reports).
    """
    status = summarize_statuses(m.eval_status for m in overall)
    mismatches, extra = turn_mismatches(case)
    if mismatches:
        return EvalStatus.FAILED, [*mismatches, *errors], extra
    return status, errors, extra


async def evaluate_case(
    case: EvalCase,
    inference: InferenceResult,
    metrics: Sequence[EvalMetric],
    evaluators: EvaluatorSource,
    *,
    run_id: int = 1,
    skipped: Collection[str] = (),
    aggregator: CaseResultAggregator | None = None,
) -> EvalCaseResult:
    """Score one case's inference with every metric (in order) and return its :class:`EvalCaseResult`.

    A failed inference, a count mismatch between actual and expected invocations or a case rubric that cannot be
    attached gives an ``error`` result with ``error_message`` (and no metric results). A metric whose evaluator
    fails (a judge that cannot be reached or answers in a bad format, a plug-in that raises) gets status ``error``
    with the message as its reason, the case's ``error_message`` names it, and the other metrics keep their
    results. The case status summarises the metric statuses (failed > error > passed; no metrics:
    ``not_evaluated``). A trace-mode case whose recording has fewer or more turns than its expected conversation
    is scored on the turns that line up and fails with one ``missing turn N`` / ``unexpected turn N`` reason per
    other turn (first in ``error_message``). ``run_id`` tags the result with the run it belongs to; metrics named in
    ``skipped`` were left out of the run on purpose, so case rubrics naming them are ignored. The case score and the
    final status come from ``aggregator`` (``None``: trpc's default, for cases scored by trpc's rules; see
    :func:`~agentgauge.service.score_case`); an aggregator that fails makes the case an ``error``.
    """
    base = EvalCaseResult(
        eval_set_id=inference.eval_set_id,
        eval_id=case.eval_id,
        run_id=run_id,
        session_id=inference.session_id,
        user_id=inference.user_id,
        simulation=inference.simulation,
    )

    def failed(message: str) -> EvalCaseResult:
        return base.model_copy(update={"final_eval_status": EvalStatus.ERROR, "error_message": message})

    if inference.status is not EvalStatus.PASSED:
        return _failed_inference(failed(inference.error_message or "inference failed"), case, inference)
    expecteds = inference.expected_inferences
    if expecteds is None:
        expecteds = expected_invocations(case)
    if len(inference.inferences) != len(expecteds):
        return failed(
            f"inference count {len(inference.inferences)} does not match expected conversation length {len(expecteds)}"
        )
    actuals = _with_case_context(inference.inferences, case)
    try:
        case_metrics = merge_case_rubrics(list(metrics), case, skipped=skipped)
    except RubricError as exc:
        return failed(str(exc))
    overall: list[EvalMetricResult] = []
    per_invocation: list[list[EvalMetricResult]] = [[] for _ in actuals]
    errors: list[str] = []
    token = CURRENT_CASE.set(case)  # metrics that judge a simulated user read its conversationScenario
    try:
        for metric in case_metrics:
            try:
                metric_overall, metric_per_invocation = await _score(evaluators, metric, actuals, expecteds)
            except _MetricFailure as exc:
                reason = str(exc).removeprefix(f"{metric.metric_name}: ")  # evaluators often name their metric
                message = f"run evaluation for metric {metric.metric_name}: {reason}"
                errors.append(message)
                metric_overall, metric_per_invocation = _errored(metric, message, len(actuals))
            overall.append(metric_overall)
            for bucket, item in zip(per_invocation, metric_per_invocation, strict=True):
                bucket.append(item)
    finally:
        CURRENT_CASE.reset(token)
    status, errors, extra = _verdict(case, overall, errors)
    data = CaseScoreInput(inference.app_name, inference.eval_set_id, case, case_metrics, overall, status)
    score: float | None = None
    try:
        if not errors:  # a case with errors (a recording cut short) keeps the status they gave it, and no score
            score, status = await score_case(aggregator, data)
    except CaseAggregationError as exc:
        score, status, errors = None, EvalStatus.ERROR, [*errors, str(exc)]
    return base.model_copy(
        update={
            "score": score,
            "final_eval_status": status,
            "error_message": "; ".join(errors) if errors else None,
            "overall_eval_metric_results": overall,
            "eval_metric_result_per_invocation": [
                EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=e, eval_metric_results=r)
                for a, e, r in zip(actuals, expecteds, per_invocation, strict=True)
            ]
            + [EvalMetricResultPerInvocation(actual_invocation=a) for a in extra],
        }
    )
