"""The case-level score (trpc-agent-go's ``evalCaseResults[].score``): trpc's default aggregator on cases scored by
trpc's rules, none on ADK-scored or errored cases, a custom aggregator (plain or async) replacing it everywhere,
and an aggregator's failure as one case error."""

from __future__ import annotations

import math
from typing import Any

import pytest
from svc_fakes import ExactAnswer, FakeRegistry, case, inv

from agentgauge import AgentEvaluator
from agentgauge.model import Criterion, EvalCase, EvalMetric, EvalSet, EvalStatus
from agentgauge.service import CaseScore, CaseScoreInput, InferenceResult, evaluate_case
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

EXACT = EvalMetric(metric_name="exact_answer", threshold=1.0)
ADK_EXACT = EvalMetric(metric_name="exact_answer", threshold=1.0, criterion=Criterion(adk={"threshold": 1.0}))


def _inference(eval_case: EvalCase, answers: list[str]) -> InferenceResult:
    turns = [inv(t.user_content.content, a) for t, a in zip(eval_case.conversation or [], answers, strict=False)]
    return InferenceResult("app", "set", eval_case.eval_id, inferences=turns, session_id="s", user_id="u")


async def _score(answers: list[str], metrics: list[EvalMetric], aggregator: Any = None) -> Any:
    eval_case = case("c", inv("q1", "a1"), inv("q2", "a2"))
    registry = FakeRegistry(exact_answer=ExactAnswer())
    return await evaluate_case(eval_case, _inference(eval_case, answers), metrics, registry, aggregator=aggregator)


@pytest.mark.parametrize(
    ("answers", "score", "status"),
    [(["a1", "a2"], 1.0, EvalStatus.PASSED), (["a1", "no"], 0.0, EvalStatus.FAILED)],
)
async def test_trpc_scored_cases_get_trpcs_default_score(answers: list[str], score: float, status: EvalStatus) -> None:
    result = await _score(answers, [EXACT])
    assert (result.score, result.final_eval_status) == (score, status)


async def test_no_metric_gives_a_not_evaluated_case_no_score() -> None:
    result = await _score(["a1", "a2"], [])
    assert (result.score, result.final_eval_status) == (None, EvalStatus.NOT_EVALUATED)


async def test_adk_scored_and_errored_cases_get_no_score() -> None:
    assert (await _score(["a1", "a2"], [ADK_EXACT])).score is None
    errored = await _score(["a1"], [EXACT])  # one answer for two turns: the case errors
    assert (errored.score, errored.final_eval_status) == (None, EvalStatus.ERROR)


class Weighted:
    """Passes a case on the mean of its metric scores (trpc's caseaggregation example)."""

    def aggregate(self, data: CaseScoreInput) -> CaseScore:
        scores = [m.score or 0.0 for m in data.metric_results]
        mean = sum(scores) / len(scores)
        return CaseScore(mean, EvalStatus.PASSED if mean >= 0.5 else EvalStatus.FAILED)


class AsyncStrict:
    async def aggregate(self, data: CaseScoreInput) -> CaseScore:
        assert data.status is EvalStatus.PASSED and data.app_name == "app" and data.eval_case.eval_id == "c"
        return CaseScore(0.25, EvalStatus.FAILED)


async def test_a_custom_aggregator_decides_score_and_status_even_for_adk_metrics() -> None:
    result = await _score(["a1", "no"], [ADK_EXACT], Weighted())
    assert (result.score, result.final_eval_status) == (0.5, EvalStatus.PASSED)
    strict = await _score(["a1", "a2"], [EXACT], AsyncStrict())
    assert (strict.score, strict.final_eval_status) == (0.25, EvalStatus.FAILED)


class Answers:
    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def aggregate(self, data: CaseScoreInput) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (RuntimeError("weights missing"), "case result aggregator Answers failed: weights missing"),
        ({"score": 1}, "case result aggregator Answers returned dict, not CaseScore"),
        (CaseScore(math.nan, EvalStatus.PASSED), "the score must be a finite number, got nan"),
        (CaseScore(1.0, EvalStatus.ERROR), "the status must be passed, failed or not_evaluated"),
    ],
)
async def test_an_aggregator_that_fails_errors_its_case_with_one_message(answer: Any, message: str) -> None:
    result = await _score(["a1", "a2"], [EXACT], Answers(answer))
    assert result.final_eval_status is EvalStatus.ERROR and result.score is None
    assert message in (result.error_message or "")
    assert [m.eval_status for m in result.overall_eval_metric_results] == [EvalStatus.PASSED]  # kept


def test_the_evaluator_takes_the_aggregator_and_writes_the_score() -> None:
    eval_case = case("c", inv("q1", "a1"))
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", EvalSet(eval_set_id="set", eval_cases=[eval_case]))
    metrics.put_all("app", "set", [EXACT])
    results = InMemoryEvalResultManager()

    def agent(request: Any) -> str:
        return "a1"

    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=results,
        registry=FakeRegistry(exact_answer=ExactAnswer()),
        case_aggregator=AsyncStrict(),
    )
    outcome = evaluator.evaluate_sync("set")
    [written] = outcome.eval_set_result.eval_case_results
    assert (written.score, written.final_eval_status) == (0.25, EvalStatus.FAILED)
    assert written.model_dump(mode="json")["score"] == 0.25


async def test_typed_values_reach_the_per_invocation_details_only() -> None:
    from svc_fakes import FuncEvaluator

    from agentgauge.evaluators import EvaluateResult, PerInvocationResult
    from agentgauge.model import ScoreValue

    def verdicts(actuals: Any, expecteds: Any, metric: EvalMetric) -> EvaluateResult:
        per = [
            PerInvocationResult(a, e, 1.0, EvalStatus.PASSED, "ok", value=ScoreValue.of(True))
            for a, e in zip(actuals, expecteds, strict=True)
        ]
        return EvaluateResult(1.0, EvalStatus.PASSED, per)

    eval_case = case("c", inv("q1", "a1"))
    judge = EvalMetric(metric_name="judge", threshold=0.5)
    result = await evaluate_case(
        eval_case, _inference(eval_case, ["a1"]), [judge], FakeRegistry(judge=FuncEvaluator(verdicts))
    )
    [per] = result.eval_metric_result_per_invocation
    details = per.eval_metric_results[0].details
    assert details is not None and details.model_dump(mode="json")["value"] == {"kind": "boolean", "boolean": True}
    overall = result.overall_eval_metric_results[0].details
    assert overall is not None and overall.value is None  # as trpc: the overall details carry no value


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"kind": "boolean"}, "a boolean value needs its 'boolean' field"),
        ({"kind": "numeric", "numeric": 1e999}, "finite"),
        ({"kind": "stars", "numeric": 1}, "kind"),
    ],
)
def test_a_typed_value_without_its_field_is_refused(raw: dict[str, Any], problem: str) -> None:
    from pydantic import ValidationError

    from agentgauge.model import ScoreValue

    with pytest.raises(ValidationError, match=problem):
        ScoreValue.model_validate(raw)
