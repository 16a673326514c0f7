from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentgauge.judges import JudgeParseError, extract_json, extract_json_object, strip_code_fence

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
# Prose around the JSON never contains braces or brackets, as a judge's commentary normally would not.
prose = st.text(alphabet=st.characters(blacklist_characters="{}[]`", blacklist_categories=("Cs",)), max_size=40)


@given(obj=json_objects, before=prose, after=prose)
def test_object_found_inside_prose(obj: dict[str, Any], before: str, after: str) -> None:
    assert extract_json_object(f"{before}{json.dumps(obj)}{after}") == obj


@given(obj=json_objects, lang=st.sampled_from(["", "json", "JSON"]), before=prose)
def test_object_found_in_code_fence(obj: dict[str, Any], lang: str, before: str) -> None:
    fenced = f"```{lang}\n{json.dumps(obj, indent=2)}\n```"
    assert extract_json_object(fenced) == obj
    assert extract_json_object(f"{before}\n{fenced}\nthanks") == obj


@given(first=json_objects, second=json_objects, between=prose)
def test_first_of_several_objects_wins(first: dict[str, Any], second: dict[str, Any], between: str) -> None:
    text = f"{json.dumps(first)} {between} {json.dumps(second)}"
    assert extract_json_object(text) == first


@given(text=prose)
def test_no_json_raises_parse_error_with_raw(text: str) -> None:
    with pytest.raises(JudgeParseError) as info:
        extract_json_object(text)
    assert info.value.raw == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Here you go: {"a": {"b": [1, 2]}} hope it helps', {"a": {"b": [1, 2]}}),
        ('broken {"a": } then {"b": 2}', {"b": 2}),
        ('[1, 2] and {"c": 3}', {"c": 3}),
        ('  ```\n{"a": "x```y"}\n```  ', {"a": "x```y"}),
    ],
)
def test_extract_object_examples(text: str, expected: dict[str, Any]) -> None:
    assert extract_json_object(text) == expected


def test_extract_json_returns_arrays_too() -> None:
    assert extract_json("result: [1, 2, 3].") == [1, 2, 3]
    assert extract_json('```\n["a"]\n```') == ["a"]


def test_error_message_contains_truncated_snippet() -> None:
    raw = "no json here " * 100
    with pytest.raises(JudgeParseError) as info:
        extract_json_object(raw)
    message = str(info.value)
    assert "no JSON object found" in message
    assert "no json here" in message
    assert len(message) < 400


@pytest.mark.parametrize(
    ("text", "expected"),
    [("```json\nX\n```", "X"), ("```\nX```", "X"), ("  X  ", "X"), ("```JSON\n{}\n```", "{}")],
)
def test_strip_code_fence(text: str, expected: str) -> None:
    assert strip_code_fence(text) == expected
