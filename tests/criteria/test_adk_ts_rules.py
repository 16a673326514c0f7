"""The adk-ts scoring dialect's rules, table-driven from ADK-TS 0.5.9's source (``ResponseEvaluator``,
``TrajectoryEvaluator``) and the examples of issue 28; the differential test checks them against ADK-TS itself."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.criteria._adk_ts import adk_ts_args_equal, adk_ts_rouge1, js_json_stringify, match_adk_ts_tools
from agentgauge.errors import InputError
from agentgauge.evaluators import EvaluatorError, Registry, ResponseMatchEvaluator, ToolTrajectoryEvaluator
from agentgauge.formats import parse_metrics, to_test_config, with_scoring_dialect
from agentgauge.model import Criterion, EvalMetric, EvalStatus, Invocation, Message, Tool


@pytest.mark.parametrize(
    ("actual", "expected", "f1"),
    [
        ("Привет мир", "Привет мир", 0.0),  # no ASCII words at all
        ("running", "runs", 0.0),  # no stemming
        ("the the cat", "the cat", 1.0),  # sets of words
        ("ＡＢＣ", "ABC", 0.0),  # no NFKC
        ("The CAT sat.", "the cat sat", 1.0),
        ("snake_case x", "snake case x", 2 * 0.5 * (1 / 3) / (0.5 + 1 / 3)),  # _ is a word character
        ("don't", "don t", 1.0),  # punctuation separates words
        ("\u212aelvin", "kelvin", 1.0),  # the Kelvin sign lowercases to ASCII k
        ("café", "caf", 1.0),  # é separates "caf" from nothing
        ("", "a", 0.0),
        ("a b c d", "a b", 2 * 0.5 * 1.0 / 1.5),
    ],
)
def test_adk_ts_rouge1(actual: str, expected: str, f1: float) -> None:
    assert adk_ts_rouge1(actual, expected).fmeasure == f1


@pytest.mark.parametrize(
    ("actual", "expected", "equal"),
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),  # top-level key order: keys are sorted first
        ({"x": {"a": 1, "b": 2}}, {"x": {"b": 2, "a": 1}}, False),  # nested key order matters
        ({"x": {"10": 1, "2": 2}}, {"x": {"2": 2, "10": 1}}, True),  # array-index keys are ordered numerically
        ({"x": {"b": 1, "01": 2}}, {"x": {"01": 2, "b": 1}}, False),  # "01" is not an index
        ({"x": True}, {"x": 1}, False),
        ({"x": 1}, {"x": 1.0}, True),
        ({"x": -0.0}, {"x": 0}, True),
        ({"x": 9007199254740993}, {"x": 9007199254740992}, True),  # one double in JavaScript
        ({"x": [1, {"a": None}]}, {"x": [1.0, {"a": None}]}, True),
        (None, {}, True),  # missing arguments are {}
        (None, {"x": 1}, False),
        ({"x": None}, {}, False),
        ({"x": "1"}, {"x": 1}, False),
    ],
)
def test_adk_ts_args_equal(actual: Any, expected: Any, equal: bool) -> None:
    assert adk_ts_args_equal(actual, expected)[0] is equal


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (-2.5, "-2.5"),
        (12345678901234567890, "12345678901234567000"),
        (float("inf"), "null"),
        (10**400, "null"),
        ({"b": 1, "a": [True, None, "é\n"]}, '{"b":1,"a":[true,null,"é\\n"]}'),
    ],
)
def test_js_json_stringify(value: Any, text: str) -> None:
    assert js_json_stringify(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_round_trips(value: float) -> None:
    """The JavaScript rendering of a double reads back as the same double (shortest round-trip digits)."""
    assert float(js_json_stringify(value)) == value


@given(st.dictionaries(st.text(max_size=4), st.integers(-5, 5), max_size=6))
def test_js_object_order_is_a_permutation(obj: dict[str, int]) -> None:
    """Objects keep every key once; array-index keys come first, ascending."""
    out = json.loads(js_json_stringify(obj))
    assert out == obj
    keys = list(out)
    indices = [k for k in keys if k.isascii() and k.isdigit() and (k == "0" or not k.startswith("0"))]
    assert keys[: len(indices)] == sorted(indices, key=int)


def _inv(text: str | None = None, tools: list[Tool] | None = None) -> Invocation:
    final = None if text is None else Message(role="assistant", content=text)
    return Invocation(user_content=Message(content="q"), final_response=final, tools=tools or [])


def _metric(name: str, **adk: Any) -> EvalMetric:
    return EvalMetric(metric_name=name, threshold=0.5, criterion=Criterion(adk={"threshold": 0.5, **adk}))


def test_response_match_without_a_final_response_is_not_scored() -> None:
    metric = _metric("response_match_score", dialect="adk-ts")
    actuals = [_inv("the cat"), _inv(None), _inv("a")]
    expecteds = [_inv("the the cat"), _inv("x"), _inv("b")]
    out = asyncio.run(ResponseMatchEvaluator().evaluate(actuals, expecteds, metric))
    assert [p.score for p in out.per_invocation_results] == [1.0, None, 0.0]
    assert out.per_invocation_results[1].status is EvalStatus.NOT_EVALUATED
    assert "no actual final response" in out.per_invocation_results[1].reason
    assert out.overall_score == 0.5  # the mean of the scored invocations
    none = asyncio.run(ResponseMatchEvaluator().evaluate([_inv(None)], [_inv("x")], metric))
    # None scored: no score, and the metric fails, as ADK-TS fails it (and with it the case).
    assert none.overall_score is None and none.overall_status is EvalStatus.FAILED


def test_same_pairs_differ_between_adk_and_adk_ts() -> None:
    actuals, expecteds = [_inv("running cats")], [_inv("runs cat")]
    adk = asyncio.run(ResponseMatchEvaluator().evaluate(actuals, expecteds, _metric("response_match_score")))
    ts = asyncio.run(
        ResponseMatchEvaluator().evaluate(actuals, expecteds, _metric("response_match_score", dialect="adk-ts"))
    )
    assert adk.overall_score == 1.0 and ts.overall_score == 0.0


def test_trajectory_reason_labels_both_sides() -> None:
    actual = [Tool(name="search", arguments={"f": {"b": 1, "a": 2}})]
    expected = [Tool(name="search", arguments={"f": {"a": 2, "b": 1}})]
    result = match_adk_ts_tools(actual, expected)
    assert not result.ok
    assert (
        result.reason
        == 'call 0 (search): argument \'f\': JSON.stringify actual {"b":1,"a":2} != expected {"a":2,"b":1}'
    )
    metric = _metric("tool_trajectory_avg_score", dialect="adk-ts")
    out = asyncio.run(ToolTrajectoryEvaluator().evaluate([_inv("", actual)], [_inv("", expected)], metric))
    assert out.overall_score == 0.0
    adk = asyncio.run(
        ToolTrajectoryEvaluator().evaluate(
            [_inv("", actual)], [_inv("", expected)], _metric("tool_trajectory_avg_score")
        )
    )
    assert adk.overall_score == 1.0  # Python == ignores key order


@pytest.mark.parametrize(
    ("adk", "message"),
    [
        ({"match_type": "IN_ORDER"}, "IN_ORDER is not available in the adk-ts dialect"),
        ({"matchType": 2}, "ANY_ORDER is not available in the adk-ts dialect"),
        ({"ignore_args": True}, "ignore_args: not available in the adk-ts dialect"),
        ({"dialect": "adk-go"}, "unknown scoring dialect 'adk-go'"),
    ],
)
def test_adk_ts_refuses_what_adk_ts_cannot_score(adk: dict[str, Any], message: str) -> None:
    metric = _metric("tool_trajectory_avg_score", **{"dialect": "adk-ts", **adk})
    with pytest.raises(InputError, match=message):
        Registry().validate_metrics([metric], file="test_config.json")
    with pytest.raises(EvaluatorError, match=message):
        asyncio.run(ToolTrajectoryEvaluator().evaluate([_inv()], [_inv()], metric))


def test_test_config_dialect_key_round_trips() -> None:
    doc = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.7}, "dialect": "adk-ts"}
    metrics = parse_metrics(json.dumps(doc), source="test_config.json")
    # ADK-TS has no efficiency metrics: none appended
    assert [m.metric_name for m in metrics] == ["tool_trajectory_avg_score", "response_match_score"]
    assert all(
        m.criterion is not None and m.criterion.adk == {"threshold": m.threshold, "dialect": "adk-ts"} for m in metrics
    )
    assert to_test_config(metrics) == doc
    adk = parse_metrics(json.dumps({**doc, "dialect": "adk"}), source="test_config.json")
    assert len(adk) == 6 and to_test_config(adk) == {"criteria": doc["criteria"]}
    with pytest.raises(InputError, match=r"test_config.json: dialect: unknown scoring dialect 'ts'"):
        parse_metrics(json.dumps({**doc, "dialect": "ts"}), source="test_config.json")


def test_with_scoring_dialect() -> None:
    native = [
        EvalMetric(metric_name="response_match_score", threshold=0.6),
        EvalMetric(metric_name="final_response_avg_score", threshold=1.0),
    ]
    out = with_scoring_dialect(native, "adk-ts", "m.json")
    assert out[0].criterion == Criterion(adk={"threshold": 0.6, "dialect": "adk-ts"})
    assert out[1] is native[1]
    back = with_scoring_dialect(out, "adk", "m.json")
    assert back[0].criterion == Criterion(adk={"threshold": 0.6})
    trpc = [EvalMetric(metric_name="tool_trajectory_avg_score", criterion=Criterion(tool_trajectory={}))]
    with pytest.raises(InputError, match=r"m.json: \[0\].criterion: --dialect adk-ts: tool_trajectory_avg_score has"):
        with_scoring_dialect(trpc, "adk-ts", "m.json")
    assert math.isclose(out[0].threshold, 0.6)
