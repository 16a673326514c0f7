"""Broken inputs give exactly one InputError naming the file, the JSON path and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest
from fmt_strategies import json_value
from hypothesis import given, settings

from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics, load_result, parse_eval_set, parse_metrics, parse_result

_INV = '{"invocationId": "i", "userContent": {"role": "user", "content": "hi"}}'

CASES = [
    ("{", "<input>: line 1 column 2: invalid JSON"),
    ("", "<input>: empty file, expected a JSON document"),
    (
        '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{"invocationId": "i"}]}]}',
        "<input>: evalCases[0].conversation[0].userContent: missing required field",
    ),
    ('{"evalSetId": "s", "evalCases": {}}', "<input>: evalCases: expected an array of eval cases (got object)"),
    (
        '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": "x"}]}',
        "<input>: evalCases[0].conversation: expected an array of invocations (got string)",
    ),
    (
        '{"evalSetId": "s", "evalCases": [{"evalId": "a"}, {"evalId": "c", "conversation": ['
        + _INV
        + ', {"invocationId": 5, '
        '"userContent": {"role": "user", "content": "x"}}]}]}',
        "<input>: evalCases[1].conversation[1].invocationId: input should be a valid string (got number)",
    ),
    (
        '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": '
        '[{"userContent": {"role": "robot", "content": "x"}}]}]}',
        "<input>: evalCases[0].conversation[0].userContent.role: "
        "input should be 'system', 'user', 'assistant' or 'tool' (got string)",
    ),
    ('{"evalCases": []}', "<input>: evalSetId: missing required field"),
    (
        '{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [{"user_content": {"parts": "x"}}]}]}',
        "<input>: evalCases[0].conversation[0].userContent.parts: expected an array of parts (got string)",
    ),
    (
        '{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": '
        '[{"user_content": {"role": "user", "parts": []}, "intermediate_data": {"tool_uses": [{"args": {}}]}}]}]}',
        "<input>: evalCases[0].conversation[0].intermediateData.tool_uses[0].name: "
        "expected the tool name as a string (got null)",
    ),
    (
        '{"eval_set_id": "s", "eval_cases": [{"conversation": []}]}',
        "<input>: evalCases[0].evalId: missing required field",
    ),
    ('[{"query": 3}]', "<input>: [0].query: expected a string (got number)"),
    ('{"hello": 1}', "<input>: not an eval set: found an object with keys hello; expected an object with 'evalSetId'"),
    ('[{"metricName": "m"}]', "<input>: not an eval set: found a metrics array"),
    ("42", "<input>: not an eval set: found a JSON number"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_broken_eval_sets(text: str, expected: str) -> None:
    with pytest.raises(InputError) as info:
        parse_eval_set(text)
    assert str(info.value).startswith(expected), str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"threshold": 1}]', "<input>: [0].metricName: missing required field"),
        ('[{"metricName": "m", "threshold": "high"}]', "<input>: [0].threshold: input should be a valid number"),
        ('[{"metricName": "m"}, {"metricName": "m"}]', "<input>: [1].metricName: duplicate metric 'm'"),
        ('{"criteria": {"x": true}}', "<input>: criteria.x: expected a number (got boolean)"),
        ('{"criteria": {"x": {"match_type": "EXACT"}}}', "<input>: criteria.x.threshold: missing required field"),
        ('{"criteria": []}', "<input>: criteria: expected an object of metric criteria (got array)"),
        ('{"eval_set_id": "x"}', "<input>: not a metrics file: found an object with keys eval_set_id"),
        ('"text"', "<input>: not a metrics file: found a JSON string"),
    ],
)
def test_broken_metrics(text: str, expected: str) -> None:
    with pytest.raises(InputError) as info:
        parse_metrics(text)
    assert str(info.value).startswith(expected), str(info.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": [{"finalEvalStatus": "great"}]}',
            "<input>: evalCaseResults[0].finalEvalStatus: unknown status 'great'",
        ),
        (
            '{"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": [{"finalEvalStatus": 9}]}',
            "<input>: evalCaseResults[0].finalEvalStatus: unknown status 9",
        ),
        ('{"evalSetResultId": "r", "evalCaseResults": []}', "<input>: evalSetId: missing required field"),
        ('{"a": 1}', "<input>: not an eval set result: found an object with keys a"),
    ],
)
def test_broken_results(text: str, expected: str) -> None:
    with pytest.raises(InputError) as info:
        parse_result(text)
    assert str(info.value).startswith(expected), str(info.value)


def test_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.evalset.json"
    bad.write_text('{"evalSetId": "s", "evalCases": [{"evalId": 1}]}')
    with pytest.raises(InputError) as info:
        load_eval_set(bad)
    assert str(info.value) == f"{bad}: evalCases[0].evalId: input should be a valid string (got number)"
    assert info.value.file == str(bad) and info.value.location == "evalCases[0].evalId"
    with pytest.raises(InputError, match="file not found"):
        load_metrics(tmp_path / "missing.json")
    with pytest.raises(InputError, match="is a directory"):
        load_result(tmp_path)


@settings(max_examples=150, deadline=None)
@given(json_value)
def test_fuzzed_documents_fail_cleanly_or_load(value: object) -> None:
    import json

    text = json.dumps(value)
    for parse in (parse_eval_set, parse_metrics, parse_result):
        try:
            parse(text)
        except InputError as exc:
            assert str(exc).startswith("<input>: ")
