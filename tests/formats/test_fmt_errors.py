"""Broken inputs give exactly one InputError naming the file, the JSON path and what was expected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fmt_strategies import json_value
from hypothesis import given, settings

from agentgauge.errors import InputError, shorten
from agentgauge.formats import load_eval_set, load_metrics, load_result, parse_eval_set, parse_metrics, parse_result
from agentgauge.formats._jsonio import MAX_DEPTH

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


_DEEP_CASE = '{"evalId": "c", "conversation": [{"userContent": {"role": "user", "content": "x"}, "tools": '
_DEEP_CASE += '[{"name": "t", "arguments": {"a": %s}}]}]}'


def _deep_set(levels: int, cases: int = 3) -> str:
    """An eval set whose last case nests ``levels`` containers deep in all (8 levels of envelope)."""
    inner = "[" * (levels - 8) + "1" + "]" * (levels - 8)
    plain = [f'{{"evalId": "p{i}", "conversation": []}}' for i in range(cases - 1)]
    body = ", ".join([*plain, _DEEP_CASE.replace("%s", inner)])
    return f'{{"evalSetId": "s", "evalCases": [{body}]}}'


@pytest.mark.parametrize("streamed", [True, False])
def test_depth_limit_is_exact_and_named_the_same_by_both_readers(tmp_path: Path, streamed: bool) -> None:
    ok, deep = _deep_set(MAX_DEPTH), _deep_set(MAX_DEPTH + 1)
    if not streamed:  # a duplicate key sends the document to the whole-document reader
        ok, deep = (
            ok.replace('{"evalSetId": "s"', '{"evalSetId": "s", "evalSetId": "s"'),
            deep.replace('{"evalSetId": "s"', '{"evalSetId": "s", "evalSetId": "s"'),
        )
    assert len(parse_eval_set(ok).eval_cases) == 3
    path = tmp_path / "deep.evalset.json"
    path.write_text(deep)
    for load in (lambda: parse_eval_set(deep, source=str(path)), lambda: load_eval_set(path)):
        with pytest.raises(InputError) as info:
            load()
        assert info.value.message == f"nested deeper than {MAX_DEPTH} levels of arrays and objects"
        assert info.value.file == str(path)
        location = info.value.location or ""
        assert location.startswith("evalCases[2].conversation[0].tools[0].arguments.a[0][0][0]")
        assert "…" in location and len(location) < 200


@pytest.mark.parametrize(
    ("parse", "text", "location"),
    [
        (parse_metrics, '[{"metricName": "m", "extension": %s}]', "[0].extension[0]"),
        (parse_result, '{"evalSetId": "s", "evalCaseResults": [], "x": %s}', "x[0]"),
        (parse_eval_set, '[{"query": "q", "reference": %s}]', "[0].reference[0]"),
    ],
)
def test_every_reader_enforces_the_depth_limit(parse: Any, text: str, location: str) -> None:
    for levels in (250, 1100):  # 1100 is beyond orjson's own limit too
        with pytest.raises(InputError) as info:
            parse(text.replace("%s", "[" * levels + "]" * levels))
        assert "nested deeper than 200 levels" in str(info.value)
        if levels == 250:
            assert (info.value.location or "").startswith(location), info.value.location


def test_a_utf8_bom_is_skipped_by_every_reader(tmp_path: Path) -> None:
    bom = "\ufeff"
    assert parse_eval_set(bom + '{"evalSetId": "s", "evalCases": []}').eval_set_id == "s"
    assert parse_eval_set((bom + '[{"query": "q", "reference": "r"}]').encode()).eval_cases
    assert parse_metrics(bom + '{"criteria": {"response_match_score": 0.8}}')[0].threshold == 0.8
    assert parse_result(bom + '{"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": []}').eval_set_id == "s"
    path = tmp_path / "s.evalset.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": []}]}')
    assert load_eval_set(path).eval_cases[0].eval_id == "c"
    with pytest.raises(InputError, match="empty file"):
        parse_eval_set(bom)


def test_messages_cut_long_values() -> None:
    err = InputError(f"unknown metric {'m' * 100_000!r}; valid metrics: a, b", file="f.json", location="[0].metricName")
    assert str(err) == f"f.json: [0].metricName: unknown metric '{'m' * 200}…'; valid metrics: a, b"
    spaced = InputError("value " + "ab " * 1_000_000)
    assert len(str(spaced)) <= 2000
    assert shorten("short 'value'") == "short 'value'"
