"""Scoring one case: metric mapping, statuses, errors as data, case-level rubrics."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from svc_fakes import ExactAnswer, FakeRegistry, FuncEvaluator, case, inv, rubric_result

from agentgauge.evaluators import EvaluateResult, EvaluatorError, PerInvocationResult
from agentgauge.model import (
    CaseRubric,
    Criterion,
    EvalCase,
    EvalMetric,
    EvalStatus,
    Invocation,
    Message,
    RubricContent,
    RubricScore,
)
from agentgauge.service import InferenceResult, RubricError, evaluate_case, merge_case_rubrics


def _inference(eval_case: EvalCase, answers: list[str]) -> InferenceResult:
    return InferenceResult(
        "app",
        "set",
        eval_case.eval_id,
        inferences=[
            inv(t.user_content.content, a) for t, a in zip(eval_case.conversation or [], answers, strict=False)
        ],
        session_id="s",
        user_id="u",
    )


EXACT = EvalMetric(metric_name="exact_answer", threshold=1.0)


async def test_passing_and_failing_metrics_map_to_results() -> None:
    eval_case = case("c", inv("q1", "a1"), inv("q2", "a2"))
    result = await evaluate_case(
        eval_case, _inference(eval_case, ["a1", "wrong"]), [EXACT], FakeRegistry(exact_answer=ExactAnswer()), run_id=3
    )
    assert result.run_id == 3
    assert (result.eval_set_id, result.eval_id, result.session_id, result.user_id) == ("set", "c", "s", "u")
    assert result.final_eval_status is EvalStatus.FAILED
    assert result.error_message is None
    [overall] = result.overall_eval_metric_results
    assert (overall.metric_name, overall.score, overall.eval_status, overall.threshold) == (
        "exact_answer",
        0.5,
        EvalStatus.FAILED,
        1.0,
    )
    assert overall.details is not None and overall.details.reason == "'wrong' != 'a2'"
    per = result.eval_metric_result_per_invocation
    assert [p.actual_invocation.final_response.content for p in per] == ["a1", "wrong"]  # type: ignore[union-attr]
    assert [p.expected_invocation.final_response.content for p in per] == ["a1", "a2"]  # type: ignore[union-attr]
    assert [p.eval_metric_results[0].score for p in per] == [1.0, 0.0]
    assert [p.eval_metric_results[0].eval_status for p in per] == [EvalStatus.PASSED, EvalStatus.FAILED]


async def test_reasons_joined_with_semicolons_and_rubric_scores_concatenated() -> None:
    def fn(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric) -> EvaluateResult:
        return EvaluateResult(0.5, EvalStatus.PASSED, [rubric_result(1.0, "r1"), rubric_result(0.0, "r2")])

    metric = EvalMetric(metric_name="judge", evaluator_name="func", threshold=0.5, criterion=Criterion(llm_judge={}))
    eval_case = case("c", inv("q1"), inv("q2"))
    result = await evaluate_case(
        eval_case, _inference(eval_case, ["x", "y"]), [metric], FakeRegistry(func=FuncEvaluator(fn))
    )
    overall = result.overall_eval_metric_results[0]
    assert overall.metric_name == "judge"
    assert overall.details is not None
    assert overall.details.reason == "reason r1;reason r2"
    assert [r.id for r in overall.details.rubric_scores] == ["r1", "r2"]
    assert overall.criterion == Criterion(llm_judge={})
    assert result.final_eval_status is EvalStatus.PASSED
    per_details = result.eval_metric_result_per_invocation[1].eval_metric_results[0].details
    assert per_details is not None and per_details.rubric_scores == [RubricScore(id="r2", reason="r", score=0.0)]


async def test_no_metrics_is_not_evaluated() -> None:
    eval_case = case("c", inv("q", "a"))
    result = await evaluate_case(eval_case, _inference(eval_case, ["a"]), [], FakeRegistry())
    assert result.final_eval_status is EvalStatus.NOT_EVALUATED
    assert len(result.eval_metric_result_per_invocation) == 1


def _raise(exc: Exception):  # type: ignore[no-untyped-def]
    def fn(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric) -> EvaluateResult:
        raise exc

    return fn


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (
            _raise(EvaluatorError("judge failed after 3 attempts")),
            "run evaluation for metric m: judge failed after 3 attempts",
        ),
        (_raise(KeyError("oops")), "run evaluation for metric m: 'oops'"),
        (lambda a, e, m: "garbage", "run evaluation for metric m: evaluator returned str, expected EvaluateResult"),
        (
            lambda a, e, m: EvaluateResult(1.0, EvalStatus.PASSED, []),
            "run evaluation for metric m: 0 per-invocation results for 1 invocations",
        ),
        (
            lambda a, e, m: EvaluateResult(
                1.0, EvalStatus.PASSED, [PerInvocationResult(a[0], e[0], "high", EvalStatus.PASSED)]
            ),
            "run evaluation for metric m: evaluator returned an invalid result: score: "
            "Input should be a valid number, unable to parse string as a number",
        ),
    ],
)
async def test_an_evaluator_error_fails_its_metric_and_keeps_the_others(fn, message: str) -> None:  # type: ignore[no-untyped-def]
    eval_case = case("c", inv("q", "a"))
    metrics = [EXACT, EvalMetric(metric_name="m", evaluator_name="func", threshold=1)]
    registry = FakeRegistry(exact_answer=ExactAnswer(), func=FuncEvaluator(fn))
    result = await evaluate_case(eval_case, _inference(eval_case, ["a"]), metrics, registry)
    assert result.final_eval_status is EvalStatus.ERROR  # the passing metric cannot decide the case alone
    assert result.error_message == message
    kept, errored = result.overall_eval_metric_results
    assert (kept.metric_name, kept.score, kept.eval_status) == ("exact_answer", 1.0, EvalStatus.PASSED)
    assert (errored.metric_name, errored.score, errored.eval_status) == ("m", None, EvalStatus.ERROR)
    assert errored.threshold == 1
    assert errored.details is not None and errored.details.reason == message
    [per] = result.eval_metric_result_per_invocation
    assert [(m.metric_name, m.eval_status) for m in per.eval_metric_results] == [
        ("exact_answer", EvalStatus.PASSED),
        ("m", EvalStatus.ERROR),
    ]


async def test_a_failed_metric_beside_an_errored_one_fails_the_case() -> None:
    eval_case = case("c", inv("q", "a"))
    metrics = [
        EXACT,
        EvalMetric(metric_name="m", evaluator_name="func"),
        EvalMetric(metric_name="n", evaluator_name="func"),
    ]
    registry = FakeRegistry(exact_answer=ExactAnswer(), func=FuncEvaluator(_raise(EvaluatorError("no JSON"))))
    result = await evaluate_case(eval_case, _inference(eval_case, ["wrong"]), metrics, registry)
    assert result.final_eval_status is EvalStatus.FAILED  # a failure is known whatever errored beside it
    assert result.error_message == "run evaluation for metric m: no JSON; run evaluation for metric n: no JSON"
    assert [m.eval_status for m in result.overall_eval_metric_results] == [
        EvalStatus.FAILED,
        EvalStatus.ERROR,
        EvalStatus.ERROR,
    ]


async def test_unknown_evaluator_fails_the_case() -> None:
    eval_case = case("c", inv("q", "a"))
    result = await evaluate_case(
        eval_case, _inference(eval_case, ["a"]), [EvalMetric(metric_name="nope")], FakeRegistry()
    )
    assert result.error_message == "run evaluation for metric nope: unknown metric 'nope'"


async def test_failed_inference_and_count_mismatch() -> None:
    eval_case = case("c", inv("q1", "a"), inv("q2", "b"))
    failed = InferenceResult("app", "set", "c", session_id="s", user_id="u").fail("agent failed on invocation 1")
    result = await evaluate_case(eval_case, failed, [EXACT], FakeRegistry(exact_answer=ExactAnswer()))
    assert (result.final_eval_status, result.error_message) == (EvalStatus.ERROR, "agent failed on invocation 1")

    short = _inference(eval_case, ["a"])
    result = await evaluate_case(eval_case, short, [EXACT], FakeRegistry(exact_answer=ExactAnswer()))
    assert result.final_eval_status is EvalStatus.ERROR
    assert result.error_message == "inference count 1 does not match expected conversation length 2"


async def test_case_context_messages_are_attached_to_actuals_without_their_own() -> None:
    seen: list[list[str]] = []

    def fn(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric) -> EvaluateResult:
        seen.extend([m.content for m in a.context_messages] for a in actuals)
        return EvaluateResult(1.0, EvalStatus.PASSED, [rubric_result(1.0, "x") for _ in actuals])

    own = inv("q2", "b", context_messages=[Message(role="system", content="own")])
    trace = EvalCase(
        eval_id="t",
        eval_mode="trace",
        conversation=[inv("q1", "a"), own],
        context_messages=[Message(role="system", content="case")],
    )
    inference = InferenceResult("app", "set", "t", inferences=list(trace.conversation or []))
    await evaluate_case(
        trace, inference, [EvalMetric(metric_name="f", evaluator_name="func")], FakeRegistry(func=FuncEvaluator(fn))
    )
    assert seen == [["case"], ["own"]]
    assert trace.conversation is not None and trace.conversation[0].context_messages == []


def _rubric(text: str, metric: str | None = None, rubric_id: str = "", rtype: str | None = None) -> CaseRubric:
    return CaseRubric(metric_name=metric, id=rubric_id, content=RubricContent(text=text), type=rtype)


def test_rubrics_merge_into_copies_of_native_and_adk_metrics() -> None:
    native = EvalMetric(
        metric_name="llm_rubric_response",
        threshold=0.5,
        criterion=Criterion(llm_judge={"rubrics": [{"id": "r0", "content": {"text": "base"}}]}),
    )
    adk = EvalMetric(metric_name="rubric_based_final_response_quality_v1", criterion=Criterion(adk={"threshold": 0.5}))
    other = EvalMetric(metric_name="tool_trajectory_avg_score", criterion=Criterion(tool_trajectory={}))
    eval_case = case(
        "c",
        inv("q"),
        rubrics=[
            _rubric("named", "llm_rubric_response"),
            _rubric("adk style", rtype="FINAL_RESPONSE_QUALITY"),
            _rubric("with id", "llm_rubric_response", rubric_id="mine"),
        ],
    )
    merged = merge_case_rubrics([native, adk, other], eval_case)
    assert merged[0].criterion is not None and merged[0].criterion.llm_judge == {
        "rubrics": [
            {"id": "r0", "content": {"text": "base"}},
            {"id": "case_rubric_0", "content": {"text": "named"}},
            {"id": "mine", "content": {"text": "with id"}},
        ]
    }
    assert merged[1].criterion is not None and merged[1].criterion.adk == {
        "threshold": 0.5,
        "rubrics": [
            {
                "rubric_id": "case_rubric_1",
                "rubric_content": {"text_property": "adk style"},
                "source": "case",
                "type": "FINAL_RESPONSE_QUALITY",
            }
        ],
    }
    assert merged[2] is other
    assert native.criterion is not None and native.criterion.llm_judge == {
        "rubrics": [{"id": "r0", "content": {"text": "base"}}]
    }


@pytest.mark.parametrize(
    ("rubrics", "message"),
    [
        ([_rubric("x", "missing_metric")], "names metric 'missing_metric', which is not configured"),
        ([_rubric("x", "exact_answer")], "metric 'exact_answer' has no llmJudge criterion"),
        ([_rubric("x", "judge", "r0")], "duplicate rubric id 'r0' for metric 'judge'"),
    ],
)
def test_rubric_errors(rubrics: list[CaseRubric], message: str) -> None:
    judge = EvalMetric(metric_name="judge", criterion=Criterion(llm_judge={"rubrics": [{"id": "r0"}]}))
    with pytest.raises(RubricError, match=message):
        merge_case_rubrics([EXACT, judge], case("c", inv("q"), rubrics=rubrics))


async def test_rubric_error_fails_the_case_and_evaluator_sees_merged_metric() -> None:
    evaluator = FuncEvaluator(lambda a, e, m: EvaluateResult(1.0, EvalStatus.PASSED, [rubric_result(1.0, "x")]))
    judge = EvalMetric(metric_name="judge", evaluator_name="func", criterion=Criterion(llm_judge={}))
    eval_case = case("c", inv("q"), rubrics=[_rubric("be nice", "judge")])
    result = await evaluate_case(eval_case, _inference(eval_case, ["a"]), [judge], FakeRegistry(func=evaluator))
    assert result.final_eval_status is EvalStatus.PASSED
    assert evaluator.metrics_seen[0].criterion is not None
    assert evaluator.metrics_seen[0].criterion.llm_judge == {
        "rubrics": [{"id": "case_rubric_0", "content": {"text": "be nice"}}]
    }

    bad = case("c", inv("q"), rubrics=[_rubric("x", "nope")])
    result = await evaluate_case(bad, _inference(bad, ["a"]), [judge], FakeRegistry(func=evaluator))
    assert result.final_eval_status is EvalStatus.ERROR
    assert result.error_message is not None and "names metric 'nope'" in result.error_message
    # A rubric naming a metric left out of the run on purpose (--skip-metrics, --no-judges) is ignored.
    result = await evaluate_case(bad, _inference(bad, ["a"]), [judge], FakeRegistry(func=evaluator), skipped=["nope"])
    assert (result.final_eval_status, result.error_message) == (EvalStatus.PASSED, None)


async def test_failed_inference_keeps_traceback_and_partial_trajectory_unscored() -> None:
    eval_case = case("c", inv("q1", "a1"), inv("q2", "a2"))
    inference = _inference(eval_case, ["a1"]).fail(
        "agent failed on invocation 2 of 2: ValueError: x",
        partial=[inv("q1", "a1")],
        traceback="Traceback (most recent call last):\nValueError: x",
    )
    result = await evaluate_case(eval_case, inference, [EXACT], FakeRegistry(exact_answer=ExactAnswer()))
    assert result.final_eval_status is EvalStatus.ERROR
    assert result.error_message == "agent failed on invocation 2 of 2: ValueError: x"
    assert result.error_traceback == "Traceback (most recent call last):\nValueError: x"
    assert result.overall_eval_metric_results == []
    (only,) = result.eval_metric_result_per_invocation
    assert only.actual_invocation.final_response.content == "a1"  # type: ignore[union-attr]
    assert only.expected_invocation is not None and only.expected_invocation.user_content.content == "q1"
    assert only.eval_metric_results == []
    # Saved and read back, the traceback stays.
    dumped = result.model_dump(mode="json", by_alias=True)
    assert dumped["errorTraceback"].endswith("ValueError: x")
