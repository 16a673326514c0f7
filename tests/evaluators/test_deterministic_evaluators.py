"""The deterministic evaluators (trpc reference §3.5, ADK reference §3.1/§3.2/§3.7)."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.evaluators import (
    EvaluatorError,
    FinalResponseEvaluator,
    ResponseMatchEvaluator,
    ToolTrajectoryEvaluator,
)
from agentgauge.model import Criterion, EvalMetric, EvalStatus, Invocation, Message, Tool


def inv(tools: list[tuple[str, Any, Any]] = (), text: str | None = None) -> Invocation:  # type: ignore[assignment]
    return Invocation(
        user_content=Message(content="q"),
        final_response=None if text is None else Message(role="assistant", content=text),
        tools=[Tool(id=f"{n}-{i}", name=n, arguments=a, result=r) for i, (n, a, r) in enumerate(tools)],
    )


def metric(name: str, threshold: float = 1.0, **criterion: Any) -> EvalMetric:
    return EvalMetric(metric_name=name, threshold=threshold, criterion=Criterion(**criterion) if criterion else None)


AB = [("a", {"x": 1}, 1), ("b", {}, 2)]
BA = [("b", {}, 2), ("a", {"x": 1}, 1)]
AB_OTHER_RESULT = [("a", {"x": 1}, 9), ("b", {}, 2)]


@pytest.mark.parametrize(
    ("criterion", "actual", "expected", "score"),
    [
        # native, no criterion: trpc built-in default (order-insensitive, results compared)
        ({}, AB, BA, 1.0),
        ({}, AB_OTHER_RESULT, AB, 0.0),
        ({"tool_trajectory": {}}, AB_OTHER_RESULT, AB, 0.0),
        ({"tool_trajectory": {"orderSensitive": True}}, BA, AB, 0.0),
        ({"tool_trajectory": {"defaultStrategy": {"name": {}, "arguments": {}}}}, AB_OTHER_RESULT, AB, 1.0),
        # ADK dialect: names + args only, EXACT by default (order matters, results ignored)
        ({"adk": {"threshold": 1.0}}, AB_OTHER_RESULT, AB, 1.0),
        ({"adk": {"threshold": 1.0}}, BA, AB, 0.0),
        ({"adk": {"threshold": 1.0, "match_type": "ANY_ORDER"}}, BA, AB, 1.0),
        ({"adk": {"threshold": 1.0, "matchType": "IN_ORDER"}}, [*AB, ("c", {}, 0)], AB, 1.0),
        # a native block wins over an ADK block
        ({"tool_trajectory": {}, "adk": {"threshold": 1.0}}, AB_OTHER_RESULT, AB, 0.0),
    ],
)
async def test_trajectory_dialects(criterion: dict[str, Any], actual: Any, expected: Any, score: float) -> None:
    result = await ToolTrajectoryEvaluator().evaluate([inv(actual)], [inv(expected)], metric("t", **criterion))
    assert result.overall_score == score
    assert result.per_invocation_results[0].score == score
    assert result.overall_status is (EvalStatus.PASSED if score >= 1.0 else EvalStatus.FAILED)
    assert (result.per_invocation_results[0].reason == "") is (score == 1.0)


async def test_trajectory_mean_status_and_reasons() -> None:
    actuals = [inv(AB), inv(AB_OTHER_RESULT), inv(AB), inv([])]
    expecteds = [inv(BA), inv(AB), inv(AB), inv([])]
    result = await ToolTrajectoryEvaluator().evaluate(actuals, expecteds, metric("t", threshold=0.75))
    assert [r.score for r in result.per_invocation_results] == [1.0, 0.0, 1.0, 1.0]
    assert result.overall_score == 0.75
    assert result.overall_status is EvalStatus.PASSED  # >= threshold passes
    assert [r.status for r in result.per_invocation_results] == [
        EvalStatus.PASSED,
        EvalStatus.FAILED,
        EvalStatus.PASSED,
        EvalStatus.PASSED,
    ]
    assert result.per_invocation_results[1].reason == (
        "tool trajectory mismatch: expected tool id a-0 with name a mismatch: closest actual call id a-0 with name a: "
        "result mismatch: actual 9 != expected 1 at $ (tolerance 1e-06)"
    )
    assert result.reason == "3/4 invocations matched the expected tool trajectory"


@pytest.mark.parametrize(
    "evaluator", [ToolTrajectoryEvaluator(), ResponseMatchEvaluator()], ids=["trajectory", "rouge"]
)
async def test_no_invocations_is_not_evaluated(evaluator: Any) -> None:
    result = await evaluator.evaluate([], [], metric(evaluator.name, threshold=0.5))
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert result.overall_score is None
    assert result.per_invocation_results == []


@pytest.mark.parametrize(
    "evaluator",
    [ToolTrajectoryEvaluator(), ResponseMatchEvaluator(), FinalResponseEvaluator()],
    ids=["trajectory", "rouge", "final"],
)
async def test_count_mismatch_raises(evaluator: Any) -> None:
    m = metric(evaluator.name, final_response={"text": {}})
    with pytest.raises(
        EvaluatorError,
        match=rf"^{evaluator.name}: actual invocations \(1\) and expected invocations \(2\) count mismatch$",
    ):
        await evaluator.evaluate([inv(text="a")], [inv(text="a"), inv(text="b")], m)


async def test_trajectory_bad_criterion_is_an_evaluator_error() -> None:
    m = metric("tool_trajectory_avg_score", adk={"threshold": 1.0, "match_type": "SOMETIMES"})
    with pytest.raises(EvaluatorError, match=r"tool_trajectory_avg_score: invalid criterion: .*invalid match_type"):
        await ToolTrajectoryEvaluator().evaluate([inv(AB)], [inv(AB)], m)


async def test_invalid_regex_in_expected_data_is_an_evaluator_error() -> None:
    m = metric("t", tool_trajectory={"defaultStrategy": {"name": {"matchStrategy": "regex"}}})
    with pytest.raises(EvaluatorError, match="invalid regex"):
        await ToolTrajectoryEvaluator().evaluate([inv([("a", {}, None)])], [inv([("(", {}, None)])], m)


async def test_final_response_scores_and_reasons() -> None:
    m = metric("final_response_avg_score", threshold=0.5, final_response={"text": {"caseInsensitive": True}})
    result = await FinalResponseEvaluator().evaluate(
        [inv(text="Paris"), inv(text="Lyon")], [inv(text="paris"), inv(text="Nice")], m
    )
    assert [r.score for r in result.per_invocation_results] == [1.0, 0.0]
    assert (
        result.per_invocation_results[1].reason
        == "final response mismatch: text mismatch: actual 'Lyon' != expected 'Nice'"
    )
    assert result.overall_score == 0.5
    assert result.overall_status is EvalStatus.PASSED


async def test_final_response_requires_its_criterion() -> None:
    with pytest.raises(EvaluatorError, match="finalResponse criterion not configured"):
        await FinalResponseEvaluator().evaluate([inv(text="a")], [inv(text="a")], metric("final_response_avg_score"))
    with pytest.raises(EvaluatorError, match="finalResponse criterion not configured"):
        await FinalResponseEvaluator().evaluate(
            [inv(text="a")], [inv(text="a")], metric("final_response_avg_score", tool_trajectory={})
        )


async def test_final_response_bad_criterion() -> None:
    m = metric("final_response_avg_score", final_response={"text": {"matchStrategy": "fuzzy"}})
    with pytest.raises(EvaluatorError, match="invalid match strategy 'fuzzy'"):
        await FinalResponseEvaluator().evaluate([inv(text="a")], [inv(text="a")], m)


async def test_response_match_score_per_invocation_and_mean() -> None:
    m = metric("response_match_score", threshold=0.6)
    result = await ResponseMatchEvaluator().evaluate(
        [inv(text="the cats are running"), inv(text="東京タワー"), inv(text=None)],
        [inv(text="a cat runs"), inv(text="東京"), inv(text="something")],
        m,
    )
    scores = [r.score for r in result.per_invocation_results]
    # "the cat are run" vs "a cat run": overlap 2 → P=2/4, R=2/3, F=4/7; CJK per character: P=2/5, R=1, F=4/7
    assert scores == pytest.approx([4 / 7, 4 / 7, 0.0], abs=1e-15)
    assert [r.status for r in result.per_invocation_results] == [EvalStatus.FAILED] * 3
    assert result.per_invocation_results[0].reason == "rouge1 f1=0.571429 precision=0.500000 recall=0.666667"
    assert result.overall_score == pytest.approx(8 / 21)


async def test_parsed_criterion_follows_metric_edits() -> None:
    evaluator = ToolTrajectoryEvaluator()
    m = metric("t", tool_trajectory={"orderSensitive": False})
    assert (await evaluator.evaluate([inv(BA)], [inv(AB)], m)).overall_score == 1.0
    assert m.criterion is not None and m.criterion.tool_trajectory is not None
    m.criterion.tool_trajectory["orderSensitive"] = True  # same dict object, new content
    assert (await evaluator.evaluate([inv(BA)], [inv(AB)], m)).overall_score == 0.0
