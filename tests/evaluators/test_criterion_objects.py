"""Criterion objects from Python (trpc's WithCompare): kept in memory with their callables, written as data."""

from __future__ import annotations

import json

from agentgauge.criteria import FinalResponseCriterion, MatchResult, TextCriterion, ToolTrajectoryCriterion
from agentgauge.evaluators import Registry
from agentgauge.model import Criterion, EvalCase, EvalMetric, EvalSet, EvalStatus, Invocation, Message, Tool
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


def inv(answer: str, *tools: str) -> Invocation:
    return Invocation(
        user_content=Message(content="q"),
        final_response=Message(role="assistant", content=answer),
        tools=[Tool(name=t) for t in tools],
    )


def same_tool_count(actual: Invocation, expected: Invocation) -> MatchResult:
    if len(actual.tools) == len(expected.tools):
        return MatchResult(True)
    return MatchResult(False, f"{len(actual.tools)} calls, expected {len(expected.tools)}")


async def test_tool_trajectory_object_with_compare_is_used() -> None:
    metric = EvalMetric(
        metric_name="tool_trajectory_avg_score",
        threshold=1,
        criterion={"toolTrajectory": ToolTrajectoryCriterion(compare=same_tool_count)},  # type: ignore[arg-type]
    )
    evaluator = Registry().resolve(metric)
    # Different tool names, same count: the custom compare (not the default trajectory match) decides.
    passed = await evaluator.evaluate([inv("a", "x")], [inv("a", "y")], metric)
    assert passed.overall_score == 1.0
    failed = await evaluator.evaluate([inv("a", "x", "x")], [inv("a", "y")], metric)
    assert failed.overall_status is EvalStatus.FAILED
    assert failed.per_invocation_results[0].reason == "tool trajectory mismatch: 2 calls, expected 1"


def test_written_form_is_data_and_names_the_unsaved_function() -> None:
    def shouting(actual: str, expected: str) -> bool:
        return actual.upper() == actual

    metric = EvalMetric(
        metric_name="final_response_avg_score",
        criterion=Criterion(final_response=FinalResponseCriterion(text=TextCriterion(compare=shouting))),  # type: ignore[arg-type]
    )
    written = json.loads(metric.model_dump_json())
    block = written["criterion"]["finalResponse"]
    assert block["text"] == {"ignore": False, "caseInsensitive": False, "matchStrategy": "exact"}
    assert block["unsavedCompare"] == (
        "Python compare functions are not saved (register them as named compares to keep them in files): "
        f"text.compare: {__name__}.test_written_form_is_data_and_names_the_unsaved_function.<locals>.shouting"
    )
    # Read back from the file, the criterion is plain data again (the function is gone, as the note says).
    reread = EvalMetric.model_validate(written)
    assert reread.criterion is not None and reread.criterion.criterion_object("final_response") is None
    assert FinalResponseCriterion.model_validate(reread.criterion.final_response).text is not None


async def test_objects_survive_the_metric_manager_and_a_full_run() -> None:
    seen: list[tuple[str, str]] = []

    def loud(actual: str, expected: str) -> bool:
        seen.append((actual, expected))
        return actual.endswith("!")

    crit = FinalResponseCriterion(text=TextCriterion(compare=loud))
    metric = EvalMetric(metric_name="final_response_avg_score", threshold=1, criterion={"finalResponse": crit})  # type: ignore[arg-type]
    case = EvalCase(eval_id="c1", eval_mode="trace", conversation=[inv("hi")], actual_conversation=[inv("hello!")])
    sets, metrics, results = InMemoryEvalSetManager(), InMemoryMetricManager(), InMemoryEvalResultManager()
    sets.put("app", EvalSet(eval_set_id="s", eval_cases=[case]))
    metrics.put_all("app", "s", [metric])
    evaluator = AgentEvaluator("app", eval_set_manager=sets, metric_manager=metrics, result_manager=results)
    outcome = await evaluator.evaluate("s")
    [case_result] = outcome.eval_set_result.eval_case_results
    assert case_result.final_eval_status is EvalStatus.PASSED
    assert seen == [("hello!", "hi")]
