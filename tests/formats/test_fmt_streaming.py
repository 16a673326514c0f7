"""Reading eval sets case by case and building common shapes directly gives exactly what validation gives."""

from __future__ import annotations

import copy
import io
import itertools
import json
import pickle
import tracemalloc
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import pytest
from fmt_strategies import adk_eval_sets, eval_sets, ident, json_value, text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, parse_eval_set, to_adk_eval_set
from agentgauge.formats._evalset_read import case_to_native, eval_set_top
from agentgauge.formats._fast_build import build_case
from agentgauge.formats._jsonio import parse_json, validation_error
from agentgauge.formats._stream import stream_eval_set
from agentgauge.model import EvalCase, EvalSet, Message, Tool

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def validated_case(raw: Any) -> EvalCase:
    """The reference: the general conversion and full pydantic validation, never the direct builder."""
    from pydantic import ValidationError

    native = case_to_native(copy.deepcopy(raw), "<input>", "evalCases[0]")
    try:
        return EvalCase.model_validate(native)
    except ValidationError as exc:
        raise validation_error(exc, "<input>", "evalCases[0]") from None


def validated_set(data: bytes) -> EvalSet:
    doc = parse_json(data, "<input>")
    cases = doc.pop("eval_cases", None) or doc.pop("evalCases", [])
    eval_set = eval_set_top(doc, "<input>")
    eval_set.eval_cases = [validated_case(c) for c in cases]
    return eval_set


def reader(data: bytes, sizes: list[int]) -> Any:
    """A ``read`` that returns pieces of the given sizes (cycling), whatever size is asked for."""
    stream = io.BytesIO(data)
    calls = iter(range(10**9))

    def read(_wanted: int) -> bytes:
        return stream.read(sizes[next(calls) % len(sizes)])

    return read


# ---- direct building --------------------------------------------------------------------------------------------

key_style = st.sampled_from(["snake", "camel"])
scalar_or_odd = st.none() | st.booleans() | st.integers(-5, 2**40) | st.floats(0, 2e9) | text | st.just([])


def _key(name: str, style: str) -> str:
    head, *rest = name.split("_")
    return name if style == "snake" else head + "".join(p.title() for p in rest)


@st.composite
def loose_objects(draw: st.DrawFn, fields: dict[str, Any]) -> dict[str, Any]:
    """Objects with some of ``fields`` (either spelling), sometimes an odd value or an unknown key."""
    style = draw(key_style)
    out: dict[str, Any] = {}
    for name, values in fields.items():
        if draw(st.integers(0, 3)):
            out[_key(name, style)] = draw(values | scalar_or_odd) if draw(st.integers(0, 9)) == 0 else draw(values)
    if draw(st.integers(0, 9)) == 0:
        out[draw(ident)] = draw(json_value)
    return out


messages = loose_objects({"role": st.sampled_from(["user", "assistant", "system", "tool", "robot"]), "content": text})
tools = loose_objects({"id": ident, "name": ident, "arguments": json_value, "result": json_value})
native_invocations = loose_objects(
    {
        "invocation_id": ident,
        "user_content": messages,
        "final_response": st.none() | messages,
        "tools": st.lists(tools, max_size=3),
        "intermediate_responses": st.lists(messages, max_size=2),
        "context_messages": st.lists(messages, max_size=1),
        "creation_timestamp": st.none() | st.floats(0, 2e9) | st.integers(0, 2**40),
    }
)
adk_invocations = st.builds(
    lambda user, final, calls, inv_id: {
        "invocation_id": inv_id,
        "user_content": {"role": "user", "parts": [{"text": user}]},
        "final_response": None if final is None else {"role": "model", "parts": [{"text": final}]},
        "intermediate_data": {
            "tool_uses": [{"id": f"c{i}", "name": n, "args": a} for i, (n, a, _) in enumerate(calls)],
            "tool_responses": [{"id": f"c{i}", "name": n, "response": r} for i, (n, _, r) in enumerate(calls)],
            "intermediate_responses": [],
        },
        "creation_timestamp": 1.5,
    },
    text,
    st.none() | text,
    st.lists(st.tuples(ident, st.dictionaries(ident, json_value), st.dictionaries(ident, json_value)), max_size=3),
    ident | st.integers(0, 3),
)
cases = loose_objects(
    {
        "eval_id": ident,
        "eval_mode": st.sampled_from(["", "trace", "live"]),
        "conversation": st.none() | st.lists(native_invocations | adk_invocations, max_size=3),
        "actual_conversation": st.none() | st.lists(native_invocations, max_size=2),
        "context_messages": st.lists(messages, max_size=1),
        "session_input": st.none()
        | loose_objects({"app_name": ident, "user_id": ident, "state": st.dictionaries(ident, json_value)}),
        "rubrics": st.just([]),
        "creation_timestamp": st.none() | st.floats(0, 2e9),
    }
)


def _counting_uuids() -> Iterator[uuid.UUID]:
    return (uuid.UUID(int=n) for n in itertools.count(1))


@SETTINGS
@given(cases)
def test_direct_building_matches_validation_or_declines(raw: dict[str, Any]) -> None:
    # A tool call recorded without an id gets a random one on either path: the same sequence for both here.
    with mock.patch("agentgauge.model._evalset.uuid4", side_effect=_counting_uuids()):
        built = build_case(copy.deepcopy(raw))
    try:
        with mock.patch("agentgauge.model._evalset.uuid4", side_effect=_counting_uuids()):
            expected = validated_case(raw)
    except InputError:
        assert built is None  # never accepts what validation rejects
        return
    if built is not None:
        assert built == expected
        assert built.model_dump_json() == expected.model_dump_json()
        assert repr(built) == repr(expected)


def test_common_shapes_are_built_directly() -> None:
    native = {
        "evalId": "c",
        "conversation": [
            {
                "invocationId": "i",
                "userContent": {"role": "user", "content": "hi"},
                "finalResponse": {"role": "assistant", "content": "yo"},
                "tools": [{"id": "t", "name": "n", "arguments": {"a": 1}, "result": {"ok": True}}],
                "creationTimestamp": 1,
            }
        ],
        "sessionInput": {"appName": "app", "userId": "u", "state": {"k": [1]}},
    }
    adk = to_adk_eval_set(EvalSet(eval_set_id="s", eval_cases=[validated_case(native)]))["eval_cases"][0]
    assert "intermediate_data" in adk["conversation"][0]
    for raw in (native, adk):
        built = build_case(raw)
        assert built is not None
        assert built.model_dump(mode="json") == validated_case(raw).model_dump(mode="json")
    assert build_case({**native, "extra": 1}) is None  # extras are kept by the general path


def test_built_models_behave_like_validated_ones() -> None:
    raw = {"evalId": "c", "conversation": [{"userContent": {"content": "a"}, "tools": [{"name": "t"}, {"name": "u"}]}]}
    case = build_case(raw)
    assert case is not None
    first, second = case.conversation[0].tools  # type: ignore[index]
    assert first.id.startswith("call_") and first.id != second.id and first.arguments == {}
    first.name = "renamed"
    first.arguments["x"] = 1
    first.note = "extra"  # an extra attribute goes to this instance only
    assert (second.name, second.arguments, second.model_extra) == ("u", {}, {})
    assert first.model_dump() == {"id": first.id, "name": "renamed", "arguments": {"x": 1}, "note": "extra"}
    assert Tool.model_validate(first.model_dump()) == first
    copied = first.model_copy(update={"name": "copy"})
    assert (copied.name, first.name) == ("copy", "renamed")
    assert pickle.loads(pickle.dumps(case)) == case
    assert copy.deepcopy(case) == case
    message = case.conversation[0].user_content  # type: ignore[index]
    assert message == Message(role="user", content="a") and message.role == "user"


# ---- streaming ----------------------------------------------------------------------------------------------------


def _dumps(doc: Any, indent: bool, ascii_only: bool) -> bytes:
    return json.dumps(doc, indent=2 if indent else None, ensure_ascii=ascii_only).encode()


@SETTINGS
@given(
    st.one_of(eval_sets.map(lambda e: e.model_dump(mode="json")), adk_eval_sets(), eval_sets.map(to_adk_eval_set)),
    st.booleans(),
    st.booleans(),
    st.lists(st.integers(1, 64), min_size=1, max_size=4),
)
def test_streaming_matches_whole_document_reading(doc: Any, indent: bool, ascii_only: bool, sizes: list[int]) -> None:
    data = _dumps(doc, indent, ascii_only)
    streamed = stream_eval_set(reader(data, sizes), "<input>")
    assert streamed is not None
    expected = validated_set(data)
    assert streamed == expected
    assert streamed.model_dump_json() == expected.model_dump_json()


def test_values_split_anywhere_including_inside_characters() -> None:
    doc = {
        "evalSetId": "s",
        "evalCases": [
            {"evalId": f"c{i}", "conversation": [{"userContent": {"content": "é€😀" * i}, "tools": []}]}
            for i in range(30)
        ],
        "name": "naïve",
        "creationTimestamp": 12345,
    }
    data = _dumps(doc, indent=True, ascii_only=False)
    for size in (1, 2, 3, 5, 4096):
        streamed = stream_eval_set(reader(data, [size]), "<input>")
        assert streamed == validated_set(data)


@pytest.mark.parametrize(
    "text",
    [
        '{"evalSetId": "s", "evalCases": [{"evalId": "c"}]} x',  # trailing content
        '{"evalSetId": "s", "evalCases": [{"evalId": "c"},]}',  # trailing comma
        '{"evalSetId": "s", "evalCases": [{"evalId": "c"}], "evalCases": []}',  # duplicate key
        '{"evalSetId": "s", "eval_cases": [], "evalCases": []}',  # both spellings
        '{"evalSetId": "s", "evalSetId": "t", "evalCases": []}',
        '{"evalSetId": "s", "evalCases": [{"evalId": 1}]}',  # an invalid case
        '{"evalCases": [{"evalId": "c"}]}',  # an invalid top level
        '{"evalSetId": "s", "evalCases": {}}',
        '{"evalSetId": "s"}',
        '[{"query": "q"}]',
        '{"criteria": {"x": 1}}',
        '{"evalSetId": "s", "evalCases": [{"evalId": "c"}',  # cut short
        "",
    ],
)
def test_anything_unusual_is_left_to_the_whole_document_reader(text: str) -> None:
    assert stream_eval_set(reader(text.encode(), [7]), "<input>") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"evalSetId": "s", "evalCases": [{"evalId": "c"}\n,\n{"evalId": "d"}, ]}', "line 3 column 16: invalid JSON"),
        ('{"evalCases": [{"evalId": 1}]}', "evalSetId: missing required field"),  # top level reported first
        ('{"evalSetId": "s", "evalCases": [{"evalId": "c"}, {"evalId": 2}]}', "evalCases[1].evalId: input should be"),
    ],
)
def test_errors_are_those_of_whole_document_reading(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.evalset.json"
    path.write_text(text)
    for read in (lambda: load_eval_set(path), lambda: parse_eval_set(text, source=str(path))):
        with pytest.raises(InputError) as info:
            read()
        assert str(info.value).startswith(f"{path}: {expected}"), str(info.value)


def test_loading_never_holds_the_whole_parsed_document(tmp_path: Path) -> None:
    case = {
        "eval_id": "c",
        "conversation": [
            {
                "invocation_id": "i",
                "user_content": {"role": "user", "parts": [{"text": "question " * 20}]},
                "final_response": {"role": "model", "parts": [{"text": "answer " * 20}]},
                "intermediate_data": {
                    "tool_uses": [{"id": "t", "name": "n", "args": {"q": list(range(40))}}],
                    "tool_responses": [{"id": "t", "name": "n", "response": {"rows": [{"v": "x"}] * 40}}],
                },
            }
        ],
    }
    doc = {"eval_set_id": "s", "eval_cases": [{**case, "eval_id": f"c{i}"} for i in range(400)]}
    path = tmp_path / "big.evalset.json"
    path.write_bytes(orjson.dumps(doc))
    whole_tree = tracemalloc_peak(lambda: orjson.loads(path.read_bytes()))
    tracemalloc.start()
    eval_set = load_eval_set(path)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(eval_set.eval_cases) == 400
    # Besides what the models keep, only a chunk and one case were alive: far less than the whole parsed tree.
    assert peak - kept < whole_tree / 4, (peak, kept, whole_tree)


def tracemalloc_peak(action: Any) -> int:
    tracemalloc.start()
    result = action()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak


def test_values_far_larger_or_smaller_than_the_last_ones_stream_as_whole_reads() -> None:
    # The window tried for a value follows the sizes of the values before it: a value many times larger must grow
    # it (a window ending inside a value, or inside a character, is tried again larger), a small one after large
    # ones is found at once.
    sizes = [3, 40_000, 2, 250_000, 10, 10, 90_000, 1, 600_000, 5]
    doc = {
        "evalSetId": "s",
        "evalCases": [
            {"evalId": f"c{i}", "conversation": [{"userContent": {"content": "aé€😀"[: 1 + i % 4] * size}}]}
            for i, size in enumerate(sizes)
        ],
    }
    for ascii_only in (True, False):
        data = _dumps(doc, indent=False, ascii_only=ascii_only)
        for read_size in (1 << 20, 7_777):
            streamed = stream_eval_set(reader(data, [read_size]), "<input>")
            assert streamed is not None
            assert streamed == validated_set(data)
