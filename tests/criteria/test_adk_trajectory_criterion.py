"""ADK's trajectory semantics (ADK reference §3.1) and match_type spellings (§2.10)."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.criteria import AdkToolTrajectoryCriterion, CriterionError, MatchType, parse_match_type
from agentgauge.model import Invocation, Message, Tool


def call(name: str, args: Any = None, result: Any = None) -> Tool:
    return Tool(name=name, arguments={} if args is None else args, result=result)


def inv(*tools: Tool) -> Invocation:
    return Invocation(user_content=Message(content="q"), tools=list(tools))


A, B, C = call("a", {"x": 1}), call("b"), call("c")

TABLE: list[tuple[str, bool, list[Tool], list[Tool], bool]] = [
    # match type, ignore_args, actual, expected, ok
    ("EXACT", False, [A, B], [A, B], True),
    ("EXACT", False, [B, A], [A, B], False),
    ("EXACT", False, [A, B, C], [A, B], False),
    ("EXACT", False, [], [], True),
    ("EXACT", False, [call("a", {"x": 2})], [A], False),
    ("EXACT", True, [call("a", {"x": 2})], [A], True),
    ("EXACT", False, [call("a", {"x": 1.0})], [A], True),  # 1 == 1.0
    ("EXACT", False, [call("a", {"x": True})], [A], True),  # 1 == True, as in Python
    ("EXACT", False, [call("a", {"x": 1})], [call("a", {"x": "1"})], False),
    ("EXACT", False, [call("a", [1, 2])], [call("a", [2, 1])], False),  # list order matters
    ("EXACT", False, [call("a", {})], [Tool(name="a", arguments=None)], False),  # {} != None
    ("EXACT", False, [call("a", {"x": 1}, result=1)], [call("a", {"x": 1}, result=2)], True),  # results ignored
    ("IN_ORDER", False, [A, C, B], [A, B], True),
    ("IN_ORDER", False, [B, A], [A, B], False),
    ("IN_ORDER", False, [], [A], False),
    ("IN_ORDER", False, [A], [], True),
    ("IN_ORDER", False, [], [], True),
    ("IN_ORDER", False, [A, A], [A, A], True),
    ("IN_ORDER", False, [A], [A, A], False),
    ("ANY_ORDER", False, [B, C, A], [A, B], True),
    ("ANY_ORDER", False, [B, C], [A, B], False),
    ("ANY_ORDER", False, [A], [A, A], False),  # each actual call is used once
    ("ANY_ORDER", False, [A, A], [A, A], True),
    ("ANY_ORDER", False, [], [A], False),
    ("ANY_ORDER", False, [B], [], True),
    ("ANY_ORDER", True, [call("a", {"x": 9}), B], [B, A], True),
]


@pytest.mark.parametrize(("match_type", "ignore_args", "actual", "expected", "ok"), TABLE)
def test_adk_match_types(
    match_type: str, ignore_args: bool, actual: list[Tool], expected: list[Tool], ok: bool
) -> None:
    crit = AdkToolTrajectoryCriterion.model_validate(
        {"threshold": 1.0, "match_type": match_type, "ignore_args": ignore_args}
    )
    result = crit.match(inv(*actual), inv(*expected))
    assert result.ok is ok
    assert bool(result.reason) is not ok


def test_default_is_exact() -> None:
    assert AdkToolTrajectoryCriterion.model_validate({"threshold": 1.0}).match_type is MatchType.EXACT


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, MatchType.EXACT),
        (1, MatchType.IN_ORDER),
        (2, MatchType.ANY_ORDER),
        (1.0, MatchType.IN_ORDER),
        (True, MatchType.IN_ORDER),
        (False, MatchType.EXACT),
        ("EXACT", MatchType.EXACT),
        ("exact", MatchType.EXACT),
        ("in-order", MatchType.IN_ORDER),
        ("IN_ORDER", MatchType.IN_ORDER),
        ("  ANY ORDER ", MatchType.ANY_ORDER),
        ("any_order", MatchType.ANY_ORDER),
        ("MatchType.EXACT", MatchType.EXACT),
        ("matchtype.in_order", MatchType.IN_ORDER),
    ],
)
def test_match_type_spellings(value: Any, expected: MatchType) -> None:
    assert parse_match_type(value) is expected
    assert AdkToolTrajectoryCriterion.model_validate({"threshold": 1, "matchType": value}).match_type is expected


@pytest.mark.parametrize("value", ["1", 3, -1, "ANYORDER", "", None, 1.5, "fuzzy"])
def test_bad_match_types(value: Any) -> None:
    with pytest.raises(CriterionError, match="invalid match_type"):
        AdkToolTrajectoryCriterion.model_validate({"threshold": 1.0, "match_type": value})


def test_reasons_describe_the_decision() -> None:
    exact = AdkToolTrajectoryCriterion()
    assert (
        exact.match(inv(A), inv(A, B)).reason
        == "tool count mismatch: actual 1 != expected 2; actual [a], expected [a, b]"
    )
    assert (
        exact.match(inv(call("a", {"x": 2})), inv(A)).reason
        == "call 0 (a): arguments: actual {'x': 2} != expected {'x': 1}"
    )
    assert exact.match(inv(B), inv(A)).reason == "call 0: name: actual 'b' != expected 'a'"
    in_order = AdkToolTrajectoryCriterion(match_type=MatchType.IN_ORDER)
    assert (
        in_order.match(inv(B, A), inv(A, B)).reason
        == "expected call 1 (b {}) not found in order among the actual calls"
    )
    any_order = AdkToolTrajectoryCriterion(match_type=MatchType.ANY_ORDER)
    assert (
        any_order.match(inv(A), inv(A, A)).reason == "expected call 1 (a {'x': 1}) has no matching unused actual call"
    )
