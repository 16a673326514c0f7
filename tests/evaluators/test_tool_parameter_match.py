"""``tool_parameter_match``, table-driven from adk-python's own tests
(``tests/unittests/evaluation/test_tool_parameter_match_evaluator.py``, main branch after 2.13) plus the rules of
its evaluator (``_tool_parameter_match_evaluator.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentgauge.evaluators import Registry
from agentgauge.formats import parse_metrics
from agentgauge.model import EvalMetric, EvalStatus, Invocation, Message, Tool

Call = tuple[str, Any]


def _inv(*calls: Call) -> Invocation:
    return Invocation(user_content=Message(content="test"), tools=[Tool(name=n, arguments=a) for n, a in calls])


def _evaluate(actual: list[Invocation], expected: list[Invocation]) -> Any:
    metric = EvalMetric(metric_name="tool_parameter_match", threshold=0.5)
    evaluator = Registry().resolve(metric)
    return asyncio.run(evaluator.evaluate(actual, expected, metric))


@pytest.mark.parametrize(
    ("actual", "expected", "score", "status"),
    [
        # ADK: test_scores_expected_arguments_independently
        ([("search", {"city": "Rome", "rooms": 2})], [("search", {"city": "Rome", "rooms": 1})], 0.5, "passed"),
        # ADK: test_call_without_expected_arguments_receives_full_credit
        ([("search", {"city": "Rome"})], [("search", {})], 1.0, "passed"),
        # ADK: test_aligns_repeated_calls_by_name_in_order
        (
            [("log", {}), ("search", {"city": "Rome"}), ("search", {"city": "Paris"})],
            [("search", {"city": "Rome"}), ("search", {"city": "Paris"})],
            1.0,
            "passed",
        ),
        # ADK: test_unmatched_expected_call_receives_no_credit
        ([], [("search", {"city": "Rome"})], 0.0, "failed"),
        # ADK: test_unmatched_call_does_not_consume_later_match
        ([("search", {"city": "Rome"})], [("log", {}), ("search", {"city": "Rome"})], 0.5, "passed"),
        # the evaluator's rules: Python ==, extra actual arguments ignored, None arguments are {}
        ([("f", {"n": 1.0, "b": True})], [("f", {"n": 1, "b": 1})], 1.0, "passed"),
        ([("f", {"a": 1, "extra": 2})], [("f", {"a": 1})], 1.0, "passed"),
        ([("f", None)], [("f", {"a": 1, "b": 2})], 0.0, "failed"),
        ([("f", {"a": 1})], [("f", None)], 1.0, "passed"),
        # aligned calls are consumed: the second expected "f" takes the next "f"
        ([("f", {"a": 1}), ("g", {}), ("f", {"a": 2})], [("f", {"a": 2}), ("f", {"a": 2})], 0.5, "passed"),
        ([("f", {"a": 1, "b": 2, "c": 3})], [("f", {"a": 1, "b": 0, "c": 0})], 1 / 3, "failed"),
    ],
)
def test_scores(actual: list[Call], expected: list[Call], score: float, status: str) -> None:
    result = _evaluate([_inv(*actual)], [_inv(*expected)])
    assert result.overall_score == score
    assert result.overall_status is EvalStatus(status)


def test_no_expected_calls_is_not_evaluated() -> None:
    # ADK: test_empty_expected_trajectory_is_not_evaluated
    result = _evaluate([_inv()], [_inv()])
    assert result.overall_score is None
    assert result.overall_status is EvalStatus.NOT_EVALUATED
    assert result.per_invocation_results[0].status is EvalStatus.NOT_EVALUATED


def test_mean_over_evaluated_invocations_and_reasons() -> None:
    actual = [_inv(("search", {"city": "Lyon", "rooms": 1})), _inv(), _inv()]
    expected = [_inv(("search", {"city": "Paris", "rooms": 1})), _inv(), _inv(("book", {"id": 3}))]
    result = _evaluate(actual, expected)
    assert [p.score for p in result.per_invocation_results] == [0.5, None, 0.0]
    assert result.overall_score == 0.25
    assert result.per_invocation_results[0].reason == (
        "expected call 0 (search) ~ actual call 0: 0.5 (city: actual 'Lyon' != expected 'Paris')"
    )
    assert result.per_invocation_results[2].reason == (
        "expected call 0 (book): no actual call named 'book' from call 0 on: 0"
    )


def test_listed_as_from_adk_main_and_usable_from_test_config() -> None:
    registry = Registry()
    info = registry.info("tool_parameter_match")
    assert "(ADK main branch)" in info.description and info.needs_expected and not info.needs_judge
    metrics = parse_metrics('{"criteria": {"tool_parameter_match": 0.75}}', source="test_config.json")
    registry.validate_metrics(metrics, file="test_config.json")
    assert metrics[0].metric_name == "tool_parameter_match" and metrics[0].threshold == 0.75
