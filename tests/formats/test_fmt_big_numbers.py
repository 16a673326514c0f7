"""Integers beyond 64 bits and numbers beyond the double range are read as Python's json (and Google ADK) reads them.

orjson alone turns ``12345678901234567890123`` into a float (so two different ids compare equal), refuses to write
it, and refuses ``1e400``; every reader and writer of agentgauge keeps such integers exact and reads ``1e400`` as
infinity, in the native and the ADK format, whole or streamed, and in result files and progress logs.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_result, parse_eval_set, parse_result, save_eval_set, save_result
from agentgauge.formats._jsonexact import dumps, loads, may_hold_wide_ints
from agentgauge.formats._jsonio import dump_json, parse_json
from agentgauge.model import (
    EvalCaseResult,
    EvalSetResult,
    Invocation,
    Message,
    Tool,
)

BIG = 12345678901234567890123
EDGES = [2**64 - 1, 2**64, -(2**63), -(2**63) - 1, BIG, -BIG, 10**200]


def _adk_set(value: str) -> str:
    call = '{"name": "t", "args": {"v": ' + value + "}}"
    inv = (
        '{"invocation_id": "i", "user_content": {"role": "user", "parts": [{"text": "q"}]}, '
        '"intermediate_data": {"tool_uses": [' + call + "]}}"
    )
    return '{"eval_set_id": "s", "eval_cases": [{"eval_id": "c", "conversation": [' + inv + "]}]}"


def _native_set(value: str) -> str:
    tool = '{"id": "1", "name": "t", "arguments": {"v": ' + value + "}}"
    inv = '{"invocationId": "i", "userContent": {"role": "user", "content": "q"}, "tools": [' + tool + "]}"
    return '{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [' + inv + "]}]}"


def _argument(text: str) -> Any:
    conversation = parse_eval_set(text).eval_cases[0].conversation
    assert conversation is not None
    return conversation[0].tools[0].arguments["v"]


@pytest.mark.parametrize("form", [_adk_set, _native_set], ids=["adk", "native"])
@pytest.mark.parametrize("number", EDGES)
def test_integers_beyond_64_bits_stay_exact(form: Any, number: int) -> None:
    value = _argument(form(str(number)))
    assert type(value) is int and value == number


@pytest.mark.parametrize("form", [_adk_set, _native_set], ids=["adk", "native"])
def test_two_big_integers_one_apart_differ(form: Any) -> None:
    assert _argument(form("12345678901234567890123")) != _argument(form("12345678901234567890124"))


@pytest.mark.parametrize("form", [_adk_set, _native_set], ids=["adk", "native"])
@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("1e400", math.inf),
        ("-1e400", -math.inf),
        ("Infinity", math.inf),
        ("-Infinity", -math.inf),
        ("1.5e308", 1.5e308),
    ],
)
def test_numbers_beyond_the_double_range_read_as_python_reads_them(form: Any, literal: str, expected: float) -> None:
    assert _argument(form(literal)) == expected == json.loads(literal)


def test_nan_literal_reads_as_nan_as_in_adk() -> None:
    first, second = _argument(_adk_set("NaN")), _argument(_adk_set("NaN"))
    assert math.isnan(first) and math.isnan(second)
    # One NaN object shared by both (the json module's default) would make {"v": NaN} == {"v": NaN}: ADK's
    # pydantic makes a new float each time, so two NaN arguments never match.
    assert first is not second and {"v": first} != {"v": second}


def test_files_are_read_exactly_whole_and_streamed(tmp_path: Path) -> None:
    # A large set goes through the streaming reader; a value orjson refuses sends it to the whole-document reader.
    case = (
        '{{"eval_id": "c{}", "conversation": [{{"invocation_id": "i", "user_content": {{"parts": [{{"text": "q"}}]}}, '
        '"intermediate_data": {{"tool_uses": [{{"name": "t", "args": {{"v": {}}}}}]}}}}]}}'
    )
    cases = ",".join(
        case.format(n, v) for n, v in enumerate(["18446744073709551616", "-9223372036854775809", "7", "1e400"])
    )
    for name, body in (("streamed", cases.rsplit(",{", 1)[0]), ("whole", cases)):
        path = tmp_path / f"{name}.evalset.json"
        path.write_text('{"eval_set_id": "s", "eval_cases": [' + body + "]}")
        values = [c.conversation[0].tools[0].arguments["v"] for c in load_eval_set(path).eval_cases if c.conversation]
        assert values[:3] == [2**64, -(2**63) - 1, 7]
        assert all(type(v) is int for v in values[:3])


def test_a_digit_run_inside_a_string_is_only_a_string() -> None:
    text = '{"a": "id 123456789012345678901234567890", "b": "x123456789012345678901234", "c": 1}'
    assert loads(text) == json.loads(text)
    assert may_hold_wide_ints(b'{"a": "x123456789012345678901234"}') is False  # preceded by a letter: no number
    assert may_hold_wide_ints(b"[1.2345678901234567890123]") is False  # a float, which orjson reads right
    assert may_hold_wide_ints(b"[18446744073709551615, -9223372036854775808]") is False  # the range's edges
    assert may_hold_wide_ints(b"[18446744073709551616]") and may_hold_wide_ints(b"[-9223372036854775809]")


_integers = st.integers(-(2**70), 2**70) | st.sampled_from([2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**19])
_id_strings = st.text("0123456789abcdef", max_size=40)  # trace ids: digit runs inside strings
_documents = st.recursive(
    _integers | _id_strings | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_id_strings, inner, max_size=4),
    max_leaves=20,
)


def _holds_wide_ints(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_wide_ints(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_wide_ints(v) for v in value)
    return type(value) is int and not -(2**63) <= value < 2**64


@settings(max_examples=400, deadline=None)
@given(_documents, st.booleans())
def test_wide_integers_are_found_and_digit_runs_in_strings_are_not(doc: Any, indent: bool) -> None:
    text = json.dumps(doc, indent=2 if indent else None).encode()
    assert may_hold_wide_ints(text) is _holds_wide_ints(doc)
    assert loads(text) == json.loads(text)


def test_invalid_json_keeps_orjsons_message() -> None:
    for bad, message in (("[1,]", "invalid JSON"), ('["\\ud800"]', "invalid JSON"), ("[1e400", "invalid JSON")):
        with pytest.raises(InputError, match=message):
            parse_json(bad, "f.json")


def test_an_integer_of_more_than_4300_digits_is_refused_like_adk() -> None:
    with pytest.raises(InputError, match=r"f\.json: line 1 column 7: invalid JSON: number out of range"):
        parse_json('{"a": ' + "9" * 4301 + "}", "f.json")


def test_writers_keep_big_integers_and_write_infinity_as_null() -> None:
    doc = {"ints": EDGES, "inf": [math.inf, -math.inf, math.nan], "key": {str(BIG): BIG}}
    back = parse_json(dump_json(doc), "x")
    assert back["ints"] == EDGES and back["key"] == {str(BIG): BIG}
    assert back["inf"] == [None, None, None]  # JSON has no infinity: written as null, as ADK writes it
    assert dumps({BIG: 1}, option=orjson.OPT_NON_STR_KEYS) == b'{"%d":1}' % BIG
    huge = -(10**5000) + 7
    assert dumps([huge]) == b"[" + b"-" + b"9" * 4999 + b"3]"  # beyond str()'s own limit too


def _result_with(value: Any) -> EvalSetResult:
    inv = Invocation(user_content=Message(content="q"), tools=[Tool(id="1", name="t", arguments={"v": value})])
    from agentgauge.model import EvalMetricResultPerInvocation

    case = EvalCaseResult(
        eval_set_id="s",
        eval_id="c",
        eval_metric_result_per_invocation=[EvalMetricResultPerInvocation(actual_invocation=inv)],
    )
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=[case])


@pytest.mark.parametrize("fmt", ["native", "adk"])
def test_result_files_with_big_integers_are_written_and_read_back(tmp_path: Path, fmt: Any) -> None:
    path = tmp_path / "r.evalset_result.json"
    save_result(_result_with([BIG, -BIG, 1]), path, fmt=fmt)
    read = load_result(path).eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert read.tools[0].arguments == {"v": [BIG, -BIG, 1]}
    assert parse_result(path.read_bytes()).eval_case_results[0].eval_id == "c"


def test_result_files_with_infinity_are_written_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "r.evalset_result.json"
    save_result(_result_with(math.inf), path)
    read = load_result(path).eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert read.tools[0].arguments == {"v": None}


def test_the_streaming_result_writer_and_the_progress_log_keep_big_integers(tmp_path: Path) -> None:
    from agentgauge.formats._result_stream import ResultStream
    from agentgauge.formats._result_writer import ResultWriter
    from agentgauge.run._resume import ProgressLog, read_progress

    case = _result_with(BIG).eval_case_results[0]
    writer = ResultWriter(tmp_path / "r.evalset_result.json", eval_set_result_id="r", eval_set_id="s")
    writer.add(case)
    path = writer.commit()
    tools = load_result(path).eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation.tools
    assert tools[0].arguments == {"v": BIG}
    (streamed,) = ResultStream(path).cases()  # the case-by-case reader of result files
    assert streamed.eval_metric_result_per_invocation[0].actual_invocation.tools[0].arguments == {"v": BIG}

    log = ProgressLog(
        tmp_path / "p.progress.jsonl", eval_set_result_id="r", eval_set_id="s", app_name="a", num_runs=1, metrics="m"
    )
    log.add(case)
    log.close(remove=False)
    _, results = read_progress(tmp_path / "p.progress.jsonl")
    assert results[0].eval_metric_result_per_invocation[0].actual_invocation.tools[0].arguments == {"v": BIG}


def test_saved_eval_sets_keep_big_integers(tmp_path: Path) -> None:
    eval_set = parse_eval_set(_adk_set(str(BIG)))
    for fmt in ("native", "adk"):
        path = tmp_path / f"{fmt}.evalset.json"
        save_eval_set(eval_set, path, fmt=fmt)  # type: ignore[arg-type]
        conversation = load_eval_set(path).eval_cases[0].conversation
        assert conversation is not None and conversation[0].tools[0].arguments == {"v": BIG}


# Any JSON value with integers of any size: what the reader gives equals what Python's json gives, and what the
# writer writes reads back equal.
_keys = st.text(alphabet="ab0123456789 ", max_size=25)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**63 - 5, max_value=2**64 + 5)
    | st.integers(min_value=-(2**63) - 5, max_value=-(2**63) + 5)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet='0123456789-. :,[e"', max_size=40)
)
_values = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_keys, inner, max_size=4), max_leaves=20
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_values, st.sampled_from([None, 0, 2]))
def test_reader_round_trip_and_agreement_with_python_json(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert loads(text) == json.loads(text)
    assert parse_json(text, "x") == value
    assert loads(dump_json(value)) == value
    assert loads(dumps(value)) == value


def test_the_sql_store_keeps_big_integers(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from agentgauge.sqlstore import open_store

    results = open_store(f"sqlite:///{tmp_path / 'r.db'}").results()
    results.save("app", _result_with([BIG, -BIG]))
    read = results.get("app", "r").eval_case_results[0].eval_metric_result_per_invocation[0].actual_invocation
    assert read.tools[0].arguments == {"v": [BIG, -BIG]}
