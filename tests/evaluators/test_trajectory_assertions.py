"""Trajectory assertions (``trajectory_*`` metrics): scores, reasons and configuration errors."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agentgauge.errors import InputError
from agentgauge.evaluators import EvaluatorError, Registry
from agentgauge.formats import parse_metrics
from agentgauge.model import Criterion, EvalMetric, EvalStatus, Invocation, Message, TokenUsage, Tool

Turn = list[tuple[str, Any]]


def _inv(calls: Turn, usage: TokenUsage | None = None) -> Invocation:
    return Invocation(
        user_content=Message(content="q"), tools=[Tool(name=n, arguments=a) for n, a in calls], usage=usage
    )


def _metric(name: str, threshold: float = 1.0, **settings: Any) -> EvalMetric:
    return EvalMetric(
        metric_name=name, threshold=threshold, criterion=Criterion.model_validate({"assertion": settings})
    )


def _run(metric: EvalMetric, turns: list[Invocation]) -> Any:
    evaluator = Registry().resolve(metric)
    blank = [Invocation(user_content=Message(content="q")) for _ in turns]
    return asyncio.run(evaluator.evaluate(turns, blank, metric))


SEARCH_BOOK = [[("search", {"q": "x"})], [("log", {}), ("book", {"id": 1})]]


@pytest.mark.parametrize(
    ("name", "settings", "turns", "score", "reason"),
    [
        ("trajectory_tool_used", {"tools": ["search", "book"]}, SEARCH_BOOK, 1.0, "every expected tool was used"),
        (
            "trajectory_tool_used",
            {"tools": ["search", "pay"]},
            SEARCH_BOOK,
            0.5,
            "tool 'pay': actual 0 calls < expected at least 1; actual calls [search, log, book]",
        ),
        (
            "trajectory_tool_used",
            {"tools": ["s*", "b??k"], "minCalls": 0, "maxCalls": 0},
            SEARCH_BOOK,
            0.0,
            "tool 's*': actual 1 calls > expected at most 0; tool 'b??k': actual 1 calls > expected at most 0",
        ),
        ("trajectory_tool_not_used", {"tools": ["delete_*"]}, SEARCH_BOOK, 1.0, "no forbidden tool was used"),
        (
            "trajectory_tool_not_used",
            {"tools": ["book", "pay"]},
            SEARCH_BOOK,
            0.5,
            "tool 'book': actual 1 calls (book (turn 2, call 2)) != expected none",
        ),
        ("trajectory_tool_sequence", {"tools": ["search", "book"]}, SEARCH_BOOK, 1.0, "expected sequence found"),
        (
            "trajectory_tool_sequence",
            {"tools": ["search", "pay", "book"]},
            SEARCH_BOOK,
            1 / 3,
            "expected sequence [search, pay, book]: found search in order, then no actual call 'pay' after call 1",
        ),
        (
            "trajectory_tool_sequence",
            {"tools": ["search", "book"], "mode": "exact"},
            SEARCH_BOOK,
            0.0,
            "actual calls [search, log, book] != expected sequence [search, book]",
        ),
        ("trajectory_step_count", {"max": 3}, SEARCH_BOOK, 1.0, "tool calls: actual 3 within expected 0..3"),
        ("trajectory_step_count", {"max": 2}, SEARCH_BOOK, 0.0, "tool calls: actual 3 > expected at most 2"),
        (
            "trajectory_step_count",
            {"count": "turns", "min": 3},
            SEARCH_BOOK,
            0.0,
            "turns: actual 2 < expected at least 3",
        ),
        (
            "trajectory_no_loops",
            {"maxRepeats": 2},
            [[("search", {"q": 1, "p": 2})] * 2, [("search", {"p": 2, "q": 1})]],
            0.0,
            'call search {"q": 1, "p": 2}: actual 3 identical calls > expected at most 2',
        ),
        (
            "trajectory_no_loops",
            {"maxRepeats": 2},
            [[("search", {"q": 1})] * 2, [("search", {"q": 2})]],
            1.0,
            "most repeated call: actual 2 times <= expected at most 2",
        ),
    ],
)
def test_assertions(name: str, settings: dict[str, Any], turns: list[Turn], score: float, reason: str) -> None:
    result = _run(_metric(name, **settings), [_inv(t) for t in turns])
    assert result.overall_score == score
    assert result.overall_status is (EvalStatus.PASSED if score >= 1.0 else EvalStatus.FAILED)
    assert reason in result.reason
    # earlier turns are not scored; the last one carries the case's decision
    assert [p.score for p in result.per_invocation_results] == [None] * (len(turns) - 1) + [score]
    assert result.per_invocation_results[-1].reason == result.reason


def test_threshold_takes_partial_credit() -> None:
    result = _run(_metric("trajectory_tool_used", 0.5, tools=["search", "pay"]), [_inv(t) for t in SEARCH_BOOK])
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.PASSED


@pytest.mark.parametrize(
    ("settings", "usages", "score", "reason"),
    [
        ({"maxTokens": 100}, [TokenUsage(total_tokens=40), TokenUsage(input_tokens=30, output_tokens=20)], 1.0,
         "tokens: actual 90 <= expected at most 100"),
        ({"maxTokens": 80}, [TokenUsage(total_tokens=40), TokenUsage(input_tokens=30, output_tokens=20)], 0.0,
         "tokens: actual 90 > expected at most 80"),
        ({"maxCost": 0.01}, [TokenUsage(cost=0.004), TokenUsage(cost=0.007)], 0.0,
         "cost: actual 0.011 > expected at most 0.01"),
        ({"maxCost": 0.01}, [TokenUsage(cost=0.004), None], None, "cost not known for every turn"),
        ({"maxTokens": 10}, [TokenUsage(model_calls=1), TokenUsage(total_tokens=1)], None, "token usage not recorded"),
    ],
)  # fmt: skip
def test_budget(settings: dict[str, Any], usages: list[TokenUsage | None], score: float | None, reason: str) -> None:
    result = _run(_metric("trajectory_budget", **settings), [_inv([], u) for u in usages])
    assert result.overall_score == score
    assert reason in result.reason
    if score is None:
        assert result.overall_status is EvalStatus.NOT_EVALUATED


def test_model_call_count_needs_recorded_usage() -> None:
    metric = _metric("trajectory_step_count", count="model_calls", max=3)
    recorded = [_inv([], TokenUsage(model_calls=2)), _inv([], TokenUsage(model_calls=2))]
    assert _run(metric, recorded).reason == "model calls: actual 4 > expected at most 3"
    missing = _run(metric, [_inv([], TokenUsage(model_calls=2)), _inv([])])
    assert missing.overall_score is None and missing.reason == "model calls not recorded (turns 2)"


@pytest.mark.parametrize(
    ("name", "settings", "message"),
    [
        ("trajectory_tool_used", {}, "tools: Field required"),
        ("trajectory_tool_used", {"tools": []}, "tools: List should have at least 1 item"),
        ("trajectory_tool_used", {"tools": ["a"], "tool": "b"}, "tool: Extra inputs are not permitted"),
        ("trajectory_tool_sequence", {"tools": ["a"], "mode": "any"}, "mode: Input should be 'in_order' or 'exact'"),
        ("trajectory_step_count", {}, "give max"),
        ("trajectory_step_count", {"min": 3, "max": 2}, "max 2 < min 3"),
        ("trajectory_budget", {}, "give maxTokens and/or maxCost"),
        ("trajectory_no_loops", {"maxRepeats": 0}, "maxRepeats: Input should be greater than or equal to 1"),
    ],
)
def test_configuration_errors(name: str, settings: dict[str, Any], message: str) -> None:
    metric = _metric(name, **settings)
    with pytest.raises(InputError, match=message):
        Registry().validate_metrics([metric], file="m.json")
    with pytest.raises(EvaluatorError, match=message):
        _run(metric, [_inv([])])


def test_settings_are_required() -> None:
    with pytest.raises(InputError, match=r'm.json: metrics\[0\].criterion: trajectory_budget: .*"assertion"'):
        Registry().validate_metrics([EvalMetric(metric_name="trajectory_budget", threshold=1)], file="m.json")


def test_from_a_metrics_file_and_a_test_config() -> None:
    native = parse_metrics(
        '[{"metricName": "trajectory_tool_not_used", "threshold": 1, "criterion": {"assertion": {"tools": ["rm"]}}}]'
    )
    adk = parse_metrics('{"criteria": {"trajectory_tool_not_used": {"threshold": 1, "tools": ["rm"]}}}')
    for metrics in (native, adk):
        Registry().validate_metrics(metrics)
        result = _run(metrics[0], [_inv([("rm", {"path": "/"})])])
        assert result.overall_status is EvalStatus.FAILED
        assert result.reason == "tool 'rm': actual 1 calls (rm (turn 1, call 1)) != expected none"


def test_listed_without_expected_data() -> None:
    registry = Registry()
    for name in ("trajectory_tool_used", "trajectory_tool_not_used", "trajectory_tool_sequence"):
        info = registry.info(name)
        assert not info.needs_expected and not info.needs_judge and info.description.startswith("Assertion:")
    assert {"trajectory_step_count", "trajectory_no_loops", "trajectory_budget"} <= set(registry.names())
