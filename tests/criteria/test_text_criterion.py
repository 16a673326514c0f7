"""TextCriterion rules (trpc reference §3.1), table-driven."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.criteria import CompareRegistry, CriterionError, MatchResult, TextCriterion


@pytest.mark.parametrize(
    ("config", "actual", "expected", "ok"),
    [
        ({}, "abc", "abc", True),
        ({}, "abc", "abd", False),
        ({"matchStrategy": ""}, "abc", "abc", True),
        ({"matchStrategy": "exact"}, "ABC", "abc", False),
        ({"matchStrategy": "exact", "caseInsensitive": True}, "ABC", "abc", True),
        ({"matchStrategy": "contains"}, "the weather in Paris", "Paris", True),
        ({"matchStrategy": "contains"}, "Paris", "the weather in Paris", False),  # expected is the needle
        ({"matchStrategy": "contains", "caseInsensitive": True}, "THE WEATHER", "weather", True),
        ({"matchStrategy": "regex"}, "order 12345 shipped", r"\d{5}", True),  # unanchored search
        ({"matchStrategy": "regex"}, "order 1234 shipped", r"^\d{4}$", False),
        ({"matchStrategy": "regex"}, "Hello", "^hello", False),
        ({"matchStrategy": "regex", "caseInsensitive": True}, "Hello", "^hello", True),
        # IGNORECASE keeps escapes meaningful: lowercasing the pattern would turn \S into \s.
        ({"matchStrategy": "regex", "caseInsensitive": True}, "ABC", r"^\S+$", True),
        ({"matchStrategy": "skip"}, "anything", "else", True),
        ({"ignore": True}, "x", "y", True),
        ({"ignore": True, "length": {"max": 0}}, "x", "y", True),
        ({"length": {"min": 2, "max": 3}}, "ab", "ab", True),
        ({"length": {"min": 2, "max": 3}}, "abcd", "abcd", False),
        ({"length": {"min": 3}, "matchStrategy": "skip"}, "ab", "zz", False),
        ({"length": {"max": 2}}, "日本", "日本", True),  # runes, not bytes
        ({"length": {"max": 2}}, "日本語", "日本語", False),
    ],
)
def test_text_rules(config: dict[str, object], actual: str, expected: str, ok: bool) -> None:
    result = TextCriterion.model_validate(config).match(actual, expected)
    assert result.ok is ok
    assert bool(result) is ok
    assert (result.reason == "") is ok


@pytest.mark.parametrize(
    ("config", "actual", "expected", "reason"),
    [
        ({}, "abc", "abd", "actual 'abc' != expected 'abd'"),
        ({"matchStrategy": "contains"}, "abc", "z", "actual 'abc' does not contain expected 'z'"),
        ({"matchStrategy": "regex"}, "abc", "^z", "actual 'abc' does not match expected regex '^z'"),
        ({"length": {"min": 5, "max": 9}}, "abc", "abc", "length mismatch: actual has 3 characters, not in [5, 9]"),
        ({"length": {"max": 1}}, "abc", "abc", "length mismatch: actual has 3 characters, not in [, 1]"),
    ],
)
def test_text_reasons(config: dict[str, object], actual: str, expected: str, reason: str) -> None:
    assert TextCriterion.model_validate(config).match(actual, expected) == MatchResult(False, reason)


def test_long_text_reason_points_at_first_difference() -> None:
    a = "x" * 100 + "A" + "y" * 50
    e = "x" * 100 + "B" + "y" * 50
    reason = TextCriterion().match(a, e).reason
    assert reason.startswith("differs at character 100 (actual 151 characters, expected 151)")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"matchStrategy": "fuzzy"}, "invalid match strategy 'fuzzy'"),
        ({"matchStrategy": "Exact"}, "invalid match strategy 'Exact'"),
        ({"length": {}}, "length needs min, max or both"),
        ({"length": {"min": -1}}, "must not be negative"),
        ({"length": {"min": 4, "max": 2}}, "length min (4) is greater than max (2)"),
        ({"caseInsensitive": "maybe"}, "caseInsensitive"),
    ],
)
def test_bad_configuration_raises(config: dict[str, object], message: str) -> None:
    with pytest.raises(CriterionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        TextCriterion.model_validate(config)


def test_direct_construction_also_raises_criterion_error() -> None:
    with pytest.raises(CriterionError, match="invalid match strategy"):
        TextCriterion(match_strategy="nope")  # type: ignore[arg-type]


def test_invalid_regex_raises_at_match_time() -> None:
    with pytest.raises(CriterionError, match=r"invalid regex '\('"):
        TextCriterion(match_strategy="regex").match("abc", "(")


def test_snake_and_camel_keys() -> None:
    a = TextCriterion.model_validate({"case_insensitive": True, "match_strategy": "contains"})
    b = TextCriterion.model_validate({"caseInsensitive": True, "matchStrategy": "contains"})
    assert a == b
    assert b.model_dump() == {"ignore": False, "caseInsensitive": True, "matchStrategy": "contains"}


def test_custom_compare_overrides_length_and_strategy() -> None:
    calls: list[tuple[str, str]] = []

    def same_length(actual: str, expected: str) -> bool:
        calls.append((actual, expected))
        return len(actual) == len(expected)

    crit = TextCriterion(compare=same_length, length={"max": 1}, match_strategy="exact")  # type: ignore[arg-type]
    assert crit.match("abc", "xyz").ok
    assert crit.match("abc", "xy") == MatchResult(False, "custom compare (text) returned false")
    assert calls == [("abc", "xyz"), ("abc", "xy")]
    assert "compare" not in crit.model_dump()


def test_compare_returning_match_result_keeps_its_reason() -> None:
    crit = TextCriterion(compare=lambda a, e: MatchResult(False, f"{a} vs {e}"))
    assert crit.match("a", "b") == MatchResult(False, "a vs b")


def test_compare_with_wrong_return_type_is_a_config_error() -> None:
    crit = TextCriterion(compare=lambda a, e: "yes")  # type: ignore[arg-type,return-value]
    with pytest.raises(CriterionError, match="must return bool or MatchResult"):
        crit.match("a", "b")


def test_compare_name_resolved_from_registry() -> None:
    compares = CompareRegistry()
    compares.register_text("prefix", lambda a, e: a.startswith(e))
    crit = TextCriterion.model_validate({"compareName": "prefix"})
    with pytest.raises(CriterionError, match="not resolved"):
        crit.match("abc", "ab")
    bound = crit.resolve(compares)
    assert bound.match("abc", "ab").ok
    assert not bound.match("abc", "b").ok
    assert bound.model_dump()["compareName"] == "prefix"
    assert "compare" not in bound.model_dump()


def test_unknown_compare_name_lists_known_ones() -> None:
    compares = CompareRegistry()
    compares.register_text("one", lambda a, e: True)
    with pytest.raises(CriterionError, match=r"unknown text compareName 'two' \(known: one\)"):
        TextCriterion(compare_name="two").resolve(compares)


@given(st.text(), st.text())
def test_exact_is_string_equality(a: str, e: str) -> None:
    assert TextCriterion().match(a, e).ok is (a == e)


@given(st.text(), st.text())
def test_contains_case_insensitive_matches_lowercased_containment(a: str, e: str) -> None:
    crit = TextCriterion(match_strategy="contains", case_insensitive=True)
    assert crit.match(a, e).ok is (e.lower() in a.lower())


@given(st.text(max_size=20))
def test_serialisation_round_trip(needle: str) -> None:
    crit = TextCriterion(match_strategy="contains", case_insensitive=True, length={"min": 1})  # type: ignore[arg-type]
    again = TextCriterion.model_validate(crit.model_dump())
    assert again == crit
    assert again.match(needle + "x", needle).ok


def test_criteria_import_defers_heavy_libraries() -> None:
    import subprocess
    import sys

    code = (
        "import sys; import agentgauge.criteria, agentgauge.evaluators; "
        "print([m for m in ('rouge_score', 'nltk', 'jsonschema', 'google.adk') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
