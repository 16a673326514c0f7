"""JSONCriterion rules (trpc reference §3.2), table-driven."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.criteria import CompareRegistry, CriterionError, JSONCriterion, MatchResult

EXACT: list[tuple[Any, Any, bool, str]] = [
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True, ""),  # key order never matters
    (None, None, True, ""),
    (None, {}, False, "actual None (null) != expected {} (an object) at $"),
    ({}, None, False, "actual {} (an object) != expected None (null) at $"),
    ({"city": "Paris"}, {"city": "Lyon"}, False, "actual 'Paris' != expected 'Lyon' at $.city"),
    ({"a": {"x": 1}}, {"a": {}}, False, "key 'x' in actual but not in expected at $.a"),
    ({"a": {}}, {"a": {"y": 1}}, False, "key 'y' in expected but not in actual at $.a"),
    ({"items": [1, 2]}, {"items": [1, 2, 3]}, False, "actual array length 2 != expected 3 at $.items"),
    ([1, 2], [2, 1], False, "actual 1 != expected 2 at $[0] (tolerance 1e-06)"),  # arrays keep order
    ({"l": [{"k": "v"}]}, {"l": [{"k": "w"}]}, False, "actual 'v' != expected 'w' at $.l[0].k"),
    ({"n": 1}, {"n": 1.0}, True, ""),
    ({"n": 1.0000005}, {"n": 1.0}, True, ""),  # within the default 1e-6
    ({"n": 1.00001}, {"n": 1.0}, False, "actual 1.00001 != expected 1.0 at $.n (tolerance 1e-06)"),
    ({"b": True}, {"b": 1}, False, "actual True (a boolean) != expected 1 (a number) at $.b"),  # bool is no number
    ({"b": 1}, {"b": True}, False, "actual 1 (a number) != expected True (a boolean) at $.b"),
    ({"b": False}, {"b": 0.0}, False, "actual False (a boolean) != expected 0.0 (a number) at $.b"),
    ({"b": True}, {"b": True}, True, ""),
    ({"s": "1"}, {"s": 1}, False, "actual '1' (a string) != expected 1 (a number) at $.s"),
    ({"o": {"x": 1}}, {"o": [1]}, False, "actual {'x': 1} (an object) != expected [1] (an array) at $.o"),
    ({"o": "x"}, {"o": {"x": 1}}, False, "actual 'x' (a string) != expected {'x': 1} (an object) at $.o"),
    ({"weird key": 1}, {"weird key": 2}, False, "actual 1 != expected 2 at $['weird key'] (tolerance 1e-06)"),
    ("text", "text", True, ""),
    ([], [], True, ""),
    ({"n": float("nan")}, {"n": float("nan")}, False, "actual nan != expected nan at $.n (NaN never matches)"),
    ({"big": 10**400}, {"big": 1.0}, False, "actual 10000000000"),
]


@pytest.mark.parametrize(("actual", "expected", "ok", "reason"), EXACT)
def test_exact(actual: Any, expected: Any, ok: bool, reason: str) -> None:
    result = JSONCriterion().match(actual, expected)
    assert result.ok is ok
    assert result.reason.startswith(reason) if reason else result.reason == ""


@pytest.mark.parametrize(
    ("tolerance", "actual", "expected", "ok"),
    [
        (0, 1.0, 1.0, True),
        (0, 1.0, 1.0000001, False),
        (0.5, 1.0, 1.5, True),
        (0.5, 1.0, 1.5000001, False),
        (-1, 1.0, 1.0, False),  # a negative tolerance fails every numeric comparison
        (0.1, True, 1, False),
    ],
)
def test_number_tolerance(tolerance: float, actual: Any, expected: Any, ok: bool) -> None:
    crit = JSONCriterion.model_validate({"numberTolerance": tolerance})
    assert crit.match({"v": actual}, {"v": expected}).ok is ok


IGNORE: list[tuple[dict[str, Any], Any, Any, bool, str]] = [
    ({"updatedAt": True}, {"id": 1, "updatedAt": 5}, {"id": 1, "updatedAt": 6}, True, ""),
    ({"updatedAt": True}, {"id": 1, "updatedAt": 5}, {"id": 1}, True, ""),  # ignored key may be missing
    ({"updatedAt": True}, {"id": 1}, {"id": 1, "updatedAt": 6}, True, ""),
    ({"updatedAt": True}, {"id": 1, "x": 1}, {"id": 1}, False, "key 'x' in actual but not in expected at $"),
    ({"meta": {"ts": True}}, {"meta": {"ts": 1, "v": 2}}, {"meta": {"ts": 9, "v": 2}}, True, ""),
    (
        {"meta": {"ts": True}},
        {"meta": {"ts": 1, "v": 2}},
        {"meta": {"ts": 9, "v": 3}},
        False,
        "actual 2 != expected 3 at $.meta.v",
    ),
    ({"updatedAt": False}, {"updatedAt": 1}, {"updatedAt": 2}, False, "actual 1 != expected 2 at $.updatedAt"),
    (
        {"updatedAt": "true"},
        {"updatedAt": 1},
        {"updatedAt": 2},
        False,
        "actual 1 != expected 2 at $.updatedAt",
    ),  # not a bool
    # Arrays drop the tree: their elements are compared exactly.
    ({"l": {"ts": True}}, {"l": [{"ts": 1}]}, {"l": [{"ts": 2}]}, False, "actual 1 != expected 2 at $.l[0].ts"),
    # Equal infinities match (inf - inf is NaN, never within a tolerance); opposite ones do not.
    ({"ts": True}, {"v": float("inf")}, {"v": float("inf")}, True, ""),
    ({"ts": True}, {"v": float("inf")}, {"v": float("-inf")}, False, "actual inf != expected -inf at $.v"),
]


@pytest.mark.parametrize(("tree", "actual", "expected", "ok", "reason"), IGNORE)
def test_ignore_tree(tree: dict[str, Any], actual: Any, expected: Any, ok: bool, reason: str) -> None:
    result = JSONCriterion.model_validate({"ignoreTree": tree}).match(actual, expected)
    assert result.ok is ok
    assert result.reason.startswith(reason)


ONLY: list[tuple[dict[str, Any], Any, Any, bool, str]] = [
    ({"city": True}, {"city": "Paris", "ts": 1}, {"city": "Paris", "ts": 2}, True, ""),
    ({"city": True}, {"city": "Paris"}, {"city": "Lyon"}, False, "actual 'Paris' != expected 'Lyon' at $.city"),
    ({"city": True}, {"x": 1}, {"city": "Paris"}, False, "key 'city' in onlyTree but not in actual at $"),
    ({"city": True}, {"city": "Paris"}, {"x": 1}, False, "key 'city' in onlyTree but not in expected at $"),
    ({"city": False}, {"x": 1}, {"y": 2}, True, ""),
    ({"a": {"b": True}}, {"a": {"b": 1, "c": 1}}, {"a": {"b": 1, "c": 2}}, True, ""),
    ({"a": {"b": True}}, {"a": {"b": 1}}, {"a": {"b": 2}}, False, "actual 1 != expected 2 at $.a.b"),
    (
        {"a": {"b": True}},
        {"a": 1},
        {"a": {"b": 1}},
        False,
        "actual 1 (a number) != expected {'b': 1} (an object) at $.a",
    ),
    ({"a": True}, "scalar", "scalar", True, ""),
    ({"a": True}, None, None, True, ""),
    ({"a": True}, None, {"a": 1}, False, "actual None (null) != expected {'a': 1} (an object) at $"),
]


@pytest.mark.parametrize(("tree", "actual", "expected", "ok", "reason"), ONLY)
def test_only_tree(tree: dict[str, Any], actual: Any, expected: Any, ok: bool, reason: str) -> None:
    result = JSONCriterion.model_validate({"onlyTree": tree}).match(actual, expected)
    assert result.ok is ok
    assert result.reason.startswith(reason)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"ignoreTree": {"a": True}, "onlyTree": {"b": True}}, "ignoreTree and onlyTree cannot both be set"),
        ({"onlyTree": {"a": "yes"}}, "onlyTree['a'] must be a bool or an object, got 'yes'"),
        ({"onlyTree": {"a": {"b": 1}}}, "onlyTree['a']['b'] must be a bool or an object, got 1"),
        ({"matchStrategy": "fuzzy"}, "invalid match strategy 'fuzzy'"),
        ({"schema": {"type": "no-such-type"}}, "invalid JSON schema"),
        ({"numberTolerance": "small"}, "numberTolerance"),
    ],
)
def test_bad_configuration(config: dict[str, Any], message: str) -> None:
    with pytest.raises(CriterionError) as info:
        JSONCriterion.model_validate(config)
    assert message in str(info.value)


def test_both_trees_rejected_even_with_compare() -> None:
    with pytest.raises(CriterionError, match="cannot both be set"):
        JSONCriterion(ignore_tree={"a": True}, only_tree={"a": True}, compare=lambda a, e: True)


def test_ignore_and_skip() -> None:
    assert JSONCriterion(ignore=True).match({"a": 1}, {"a": 2}).ok
    assert JSONCriterion(match_strategy="skip").match({"a": 1}, {"a": 2}).ok


def test_schema_validation_reports_path() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    crit = JSONCriterion.model_validate({"schema": schema, "matchStrategy": "skip"})
    assert crit.match({"n": 3}, None).ok
    bad = crit.match({"n": "3"}, None)
    assert bad == MatchResult(False, "json schema validation failed at $.n: '3' is not of type 'integer'")
    assert not crit.match({}, None).ok
    assert crit.model_dump()["schema"] == schema


def test_schema_then_exact_comparison() -> None:
    crit = JSONCriterion.model_validate({"schema": {"type": "object"}})
    assert crit.match({"a": 1}, {"a": 1}).ok
    assert crit.match([1], [1]).reason == "json schema validation failed at $: [1] is not of type 'object'"
    assert crit.match({"a": 1}, {"a": 2}).reason.startswith("actual 1 != expected 2 at $.a")


def test_valid_requires_json_serialisable_actual() -> None:
    crit = JSONCriterion(valid=True, match_strategy="skip")
    assert crit.match({"a": [1, "x", None]}, None).ok
    assert crit.match({"a": {1, 2}}, None).reason.startswith("actual is not valid JSON")
    assert crit.match(float("nan"), None).reason.startswith("actual is not valid JSON")


@pytest.mark.parametrize(
    ("config", "actual", "expected", "ok", "reason"),
    [
        ({}, '{"a": 1, "b": [1, 2]}', '{"b": [1, 2], "a": 1.0}', True, ""),
        ({}, '{"a": 1}', '{"a": 2}', False, "actual 1 != expected 2 at $.a (tolerance 1e-06)"),
        ({}, "not json", '{"a": 1}', False, "parse actual raw json: Expecting value"),
        ({}, '{"a": 1}', "nope", False, "parse expected raw json: Expecting value"),
        ({}, '{"a": 1} {"b": 2}', '{"a": 1}', False, "parse actual raw json: multiple json values"),
        ({"matchStrategy": "skip"}, "not json", "x", True, ""),
        ({"matchStrategy": "skip", "valid": True}, "not json", "x", False, "parse actual raw json"),
        ({"ignore": True}, "not json", "x", True, ""),
        ({"ignoreTree": {"ts": True}}, '{"ts": 1, "v": 2}', '{"ts": 3, "v": 2}', True, ""),
    ],
)
def test_match_raw(config: dict[str, Any], actual: str, expected: str, ok: bool, reason: str) -> None:
    result = JSONCriterion.model_validate(config).match_raw(actual, expected)
    assert result.ok is ok
    assert result.reason.startswith(reason)


def test_compare_name_and_callable() -> None:
    compares = CompareRegistry()
    compares.register_json("same_keys", lambda a, e: set(a) == set(e))
    crit = JSONCriterion.model_validate({"compareName": "same_keys"}).resolve(compares)
    assert crit.match({"a": 1}, {"a": 2}).ok
    assert crit.match({"a": 1}, {"b": 1}) == MatchResult(False, "custom compare (json) returned false")
    assert crit.match_raw('{"a": 1}', '{"a": 5}').ok  # raw text is parsed before the custom compare sees it


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=12,
)


@given(json_values)
def test_every_value_matches_itself(value: Any) -> None:
    assert JSONCriterion(number_tolerance=0).match(value, value).ok


@given(json_values, json_values)
def test_without_floats_exact_means_python_equality_with_bool_typed(a: Any, e: Any) -> None:
    # With ints only and no tolerance, JSON equality is == except that booleans never equal numbers.
    def typed(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: typed(x) for k, x in v.items()}
        if isinstance(v, list):
            return [typed(x) for x in v]
        return (type(v) is bool, v)

    assert JSONCriterion(number_tolerance=0).match(a, e).ok is (typed(a) == typed(e))


@pytest.mark.parametrize(
    ("actual", "expected", "ok"),
    [
        ({"a": 1, "b": [1, {"c": "x"}]}, {"b": [1, {"c": "x"}], "a": 1}, True),  # key order does not matter
        ({"a": True}, {"a": 1}, False),  # equal in Python, but a bool is not a number
        ({"a": float("nan")}, {"a": None}, False),  # both written as null, but not the same value
        ({"a": 1}, {"a": 1.0}, True),  # same number, different types: the full comparison decides
        ({1: "x"}, {1: "x"}, True),  # not plain JSON (non-string key): the full comparison decides
    ],
)
def test_identical_values_take_the_fast_path_only_when_truly_identical(actual: Any, expected: Any, ok: bool) -> None:
    assert JSONCriterion().match(actual, expected).ok is ok
