"""ToolTrajectoryCriterion rules (trpc reference §3.3 and the guide's subset/order table)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentgauge.criteria import (
    CompareRegistry,
    CriterionError,
    MatchResult,
    ToolTrajectoryCriterion,
    ToolTrajectoryStrategy,
)
from agentgauge.model import Invocation, Message, Tool


def call(name: str, args: Any = None, result: Any = None, id: str | None = None) -> Tool:
    return Tool(id=id or f"id_{name}", name=name, arguments={} if args is None else args, result=result)


def inv(*tools: Tool) -> Invocation:
    return Invocation(user_content=Message(content="q"), tools=list(tools))


A, B, C, D = (call(n) for n in "ABCD")

# The guide's table: SubsetMatching, OrderSensitive, expected, actual, result.
GUIDE_TABLE = [
    (False, False, [A], [A, B], False),
    (True, False, [A], [A, B], True),
    (True, False, [C, A], [A, B, C], True),
    (True, True, [A, C], [A, B, C], True),
    (True, True, [C, A], [A, B, C], False),
    (True, False, [C, D], [A, B, C], False),
    (False, False, [A, A], [A], False),
    (False, True, [A, A], [A], False),
    (True, False, [A, A], [A], False),
    (True, True, [A, A], [A], False),
]


@pytest.mark.parametrize(("subset", "ordered", "expected", "actual", "ok"), GUIDE_TABLE)
def test_guide_subset_order_table(
    subset: bool, ordered: bool, expected: list[Tool], actual: list[Tool], ok: bool
) -> None:
    crit = ToolTrajectoryCriterion(subset_matching=subset, order_sensitive=ordered)
    assert crit.match(inv(*actual), inv(*expected)).ok is ok


@pytest.mark.parametrize(
    ("config", "actual", "expected", "reason"),
    [
        ({}, [A, B], [A], "tool count mismatch: actual 2 != expected 1"),
        ({"subsetMatching": True}, [A], [A, A], "tool count mismatch: actual 1 < expected 2"),
        ({}, [], [], ""),
        ({"orderSensitive": True}, [B, A], [A, B], "expected tool id id_B with name B mismatch in order"),
    ],
)
def test_counts_and_order_reasons(
    config: dict[str, Any], actual: list[Tool], expected: list[Tool], reason: str
) -> None:
    result = ToolTrajectoryCriterion.model_validate(config).match(inv(*actual), inv(*expected))
    assert result.ok is (reason == "")
    assert result.reason.startswith(reason)


def test_default_compares_name_arguments_and_result_and_ignores_ids() -> None:
    crit = ToolTrajectoryCriterion()
    e = call("get_weather", {"city": "Paris"}, {"t": 20}, id="e1")
    assert crit.match(inv(call("get_weather", {"city": "Paris"}, {"t": 20}, id="zz")), inv(e)).ok
    assert crit.match(inv(call("get_weather", {"city": "Lyon"}, {"t": 20})), inv(e)) == MatchResult(
        False,
        "expected tool id e1 with name get_weather mismatch: closest actual call id id_get_weather with name "
        "get_weather: arguments mismatch: actual 'Lyon' != expected 'Paris' at $.city",
    )
    result = crit.match(inv(call("get_weather", {"city": "Paris"}, {"t": 21})), inv(e))
    assert "result mismatch: actual 21 != expected 20 at $.t" in result.reason


def test_order_insensitive_by_default() -> None:
    assert ToolTrajectoryCriterion().match(inv(B, A), inv(A, B)).ok


def test_unordered_uses_maximum_matching_not_greedy() -> None:
    # Expected e1 accepts both actual calls, e2 only the first: assigning e1 to the first call (greedy) would
    # leave e2 unmatched; the augmenting path moves e1 to the second call.
    crit = ToolTrajectoryCriterion.model_validate({"defaultStrategy": {"name": {"matchStrategy": "regex"}}})
    expected = [call("^(p|q)$", id="e1"), call("^p$", id="e2")]
    assert crit.match(inv(call("p"), call("q")), inv(*expected)).ok
    assert crit.match(inv(call("q"), call("p")), inv(*expected)).ok
    assert not crit.match(inv(call("q"), call("q")), inv(*expected)).ok


def test_kuhn_matching_on_adversarial_graph() -> None:
    # Expected i matches actual i and i+1 (names encode the allowed set through a regex); the only perfect
    # matching is the identity, which greedy-from-the-end orders miss.
    n = 60
    crit = ToolTrajectoryCriterion.model_validate({"defaultStrategy": {"name": {"matchStrategy": "regex"}}})
    expected = [call(f"^t({i}|{i + 1})$", id=f"e{i}") for i in range(n)]
    actual = [call(f"t{i}", id=f"a{i}") for i in range(n)]
    rng = random.Random(7)
    rng.shuffle(actual)
    assert crit.match(inv(*actual), inv(*expected)).ok
    assert not crit.match(inv(*actual[:-1], call("zzz")), inv(*expected)).ok


def test_every_unmatched_expected_call_is_listed() -> None:
    crit = ToolTrajectoryCriterion()
    actual = [call("a", {"v": 1}, id="a1"), call("b", {"v": 1}, id="b1"), call("c", id="c1")]
    expected = [call("a", {"v": 2}, id="ea"), call("b", {"v": 2}, id="eb"), call("c", id="ec")]
    result = crit.match(inv(*actual), inv(*expected))
    assert result.reason == (
        "expected tool id ea with name a mismatch: closest actual call id a1 with name a: arguments mismatch: "
        "actual 1 != expected 2 at $.v (tolerance 1e-06); "
        "expected tool id eb with name b mismatch: closest actual call id b1 with name b: arguments mismatch: "
        "actual 1 != expected 2 at $.v (tolerance 1e-06)"
    )


def test_reused_call_is_explained() -> None:
    crit = ToolTrajectoryCriterion(subset_matching=True)
    result = crit.match(inv(call("a", id="a1"), call("b", id="b1")), inv(call("a", id="e1"), call("a", id="e2")))
    assert result.reason == (
        "expected tool id e2 with name a mismatch: the matching call id a1 is already matched to another expected call"
    )


def test_tool_strategy_replaces_default_without_merging() -> None:
    config = {
        "defaultStrategy": {"name": {}, "arguments": {}, "result": {}},
        "toolStrategy": {"current_time": {"result": {"ignore": True}}},
    }
    crit = ToolTrajectoryCriterion.model_validate(config)
    # The chosen strategy compares nothing (name/arguments unset; result ignored): any actual call satisfies it.
    assert crit.match(inv(call("other_tool", {"x": 1}, 5)), inv(call("current_time", {}, 1))).ok
    # The default strategy still applies to other tools.
    assert not crit.match(inv(call("a", {}, 1)), inv(call("a", {}, 2))).ok


def test_tool_strategy_looked_up_by_actual_name_first() -> None:
    crit = ToolTrajectoryCriterion.model_validate(
        {"toolStrategy": {"lenient": {"name": {"matchStrategy": "skip"}}, "strict": {"name": {}}}}
    )
    assert crit.strategy_for(call("lenient"), call("strict")).name.match_strategy == "skip"  # type: ignore[union-attr]
    assert crit.strategy_for(call("x"), call("strict")).name.match_strategy == "exact"  # type: ignore[union-attr]


def test_empty_default_strategy_compares_nothing_but_empty_block_is_builtin() -> None:
    assert ToolTrajectoryCriterion.model_validate({"defaultStrategy": {}}).match(inv(A), inv(B)).ok
    assert not ToolTrajectoryCriterion.model_validate({}).match(inv(A), inv(B)).ok


def test_names_only_strategy_ignores_arguments_and_results() -> None:
    crit = ToolTrajectoryCriterion.model_validate({"defaultStrategy": {"name": {"matchStrategy": "exact"}}})
    assert crit.match(inv(call("a", {"x": 1}, 1)), inv(call("a", {"x": 2}, 2))).ok


def test_custom_compare_and_compare_name() -> None:
    compares = CompareRegistry()
    compares.register_tool_trajectory("same_count", lambda a, e: len(a.tools) == len(e.tools))
    crit = ToolTrajectoryCriterion.model_validate({"compareName": "same_count"}).resolve(compares)
    assert crit.match(inv(A), inv(B)).ok
    assert not crit.match(inv(A, B), inv(B)).ok
    nested = ToolTrajectoryCriterion.model_validate(
        {
            "defaultStrategy": {"name": {"compareName": "ci"}},
            "toolStrategy": {"x": {"arguments": {"compareName": "any"}}},
        }
    )
    compares.register_text("ci", lambda a, e: a.lower() == e.lower())
    compares.register_json("any", lambda a, e: True)
    bound = nested.resolve(compares)
    assert bound.match(inv(call("FOO")), inv(call("foo"))).ok
    assert bound.match(inv(call("x", {"a": 1})), inv(call("x", {"b": 2}))).ok
    with pytest.raises(CriterionError, match="not resolved"):
        nested.match(inv(call("FOO")), inv(call("foo")))


def test_configuration_errors_name_the_path() -> None:
    with pytest.raises(CriterionError) as info:
        ToolTrajectoryCriterion.model_validate({"toolStrategy": {"t": {"name": {"matchStrategy": "nope"}}}})
    assert "toolStrategy" in str(info.value) and "invalid match strategy 'nope'" in str(info.value)


def test_round_trip_serialisation() -> None:
    config = {
        "orderSensitive": True,
        "subsetMatching": True,
        "defaultStrategy": {"name": {"matchStrategy": "exact"}, "arguments": {"ignoreTree": {"ts": True}}},
        "toolStrategy": {"x": {"result": {"ignore": True}}},
    }
    crit = ToolTrajectoryStrategy.model_validate(config["defaultStrategy"])
    assert crit.arguments is not None and crit.arguments.ignore_tree == {"ts": True}
    full = ToolTrajectoryCriterion.model_validate(config)
    assert ToolTrajectoryCriterion.model_validate(full.model_dump()) == full
    assert full.model_dump()["toolStrategy"]["x"]["result"]["ignore"] is True


def _brute_force(crit: ToolTrajectoryCriterion, actual: list[Tool], expected: list[Tool]) -> bool:
    from itertools import permutations

    if not actual and not expected:
        return True
    if len(actual) != len(expected):
        return False
    return any(all(crit.match_tool(a, e).ok for a, e in zip(p, expected, strict=True)) for p in permutations(actual))


def test_unordered_agrees_with_brute_force_on_random_lists() -> None:
    rng = random.Random(11)
    crit = ToolTrajectoryCriterion.model_validate(
        {"defaultStrategy": {"name": {}, "arguments": {"onlyTree": {"k": True}}}}
    )
    for _ in range(400):
        n = rng.randint(0, 5)
        expected = [call(rng.choice("ab"), {"k": rng.randint(0, 2)}) for _ in range(n)]
        actual = [call(rng.choice("ab"), {"k": rng.randint(0, 2), "z": 1}) for _ in range(n)]
        assert crit.match(inv(*actual), inv(*expected)).ok is _brute_force(crit, actual, expected)
