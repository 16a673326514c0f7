"""Rewriting an eval set file after a change keeps its dialect, its layout and the bytes of every untouched case."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentgauge.formats import parse_eval_set
from agentgauge.formats._dialect import camelize, document_dialect
from agentgauge.formats._splice import rewrite_eval_set, scan_layout
from agentgauge.model import EvalCase, EvalSet, Invocation, Message

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json"
DICE = ROOT / "examples/dice_prime/eval_set_example_with_multiple_sessions.evalset.json"


def _new_case(case_id: str = "new") -> EvalCase:
    turn = Invocation(
        invocation_id="i1",
        user_content=Message(role="user", content="hi"),
        final_response=Message(role="assistant", content="hello"),
    )
    return EvalCase(eval_id=case_id, conversation=[turn])


def _add(data: bytes, case: EvalCase) -> bytes:
    eval_set = parse_eval_set(data)
    eval_set.eval_cases.append(case)
    return rewrite_eval_set(data, eval_set, changed={case.eval_id})


def _delete(data: bytes, case_id: str) -> bytes:
    eval_set = parse_eval_set(data)
    eval_set.eval_cases = [c for c in eval_set.eval_cases if c.eval_id != case_id]
    return rewrite_eval_set(data, eval_set, changed=())


def test_layout_of_cases_with_brackets_and_quotes_in_strings() -> None:
    doc = {"evalSetId": "s]{", "evalCases": [{"evalId": 'a]}"[{\\', "x": ["}"]}, {"evalId": "b"}], "z": "[ ]"}
    data = json.dumps(doc, indent=3).encode()
    layout = scan_layout(data)
    assert layout is not None
    assert [json.loads(data[a:b]) for a, b in layout.spans] == doc["evalCases"]
    assert data[layout.cases_open : layout.cases_open + 1] == b"["
    assert data[layout.cases_close : layout.cases_close + 1] == b"]"


@pytest.mark.parametrize(
    "data",
    [
        b'[{"query": "q"}]',  # a legacy array
        b'{"eval\\u005fcases": [{"eval_id": "a"}]}',  # an escaped key: not traced, rewritten whole
        b'{"evalCases": [{"evalId": "a"}], "evalCases": []}',  # the cases key twice
        b'{"evalCases": ["a"]}',
        b'{"evalSetId": "s"}',
    ],
)
def test_layouts_that_are_not_traced(data: bytes) -> None:
    assert scan_layout(data) is None


@pytest.mark.parametrize("indent", [None, 4, "\t"])
def test_a_new_case_follows_the_file_layout(indent: int | str | None) -> None:
    doc = json.loads(HOME.read_bytes())
    data = json.dumps(doc, indent=indent).encode()
    after = _add(data, _new_case())
    last_case_end = data.rindex(b"}", 0, data.rindex(b"]")) + 1
    assert after.startswith(data[:last_case_end])  # everything up to the end of the last case is kept
    parsed = json.loads(after)
    assert document_dialect(parsed) == "adk" and parsed["eval_cases"][1]["eval_id"] == "new"
    if indent is None:
        assert b"\n" not in after
    else:
        expected = json.dumps(parsed, indent=indent).encode()
        assert after == expected  # the rendered case is indented exactly as json.dumps would have


def test_deleting_every_case_leaves_an_empty_array_and_adding_one_back_is_indented() -> None:
    data = HOME.read_bytes()
    empty = _delete(data, "eval_case_id")
    assert json.loads(empty)["eval_cases"] == []
    assert b'"eval_cases": []' in empty
    again = _add(empty, _new_case())
    assert again == json.dumps(json.loads(again), indent=2).encode() + b"\n"


def test_untouched_cases_keep_their_bytes() -> None:
    data = DICE.read_bytes()
    doc = json.loads(data)
    second = textwrap.indent(json.dumps(doc["eval_cases"][1], indent=2), "    ").strip()
    assert second.encode() in data  # the example is laid out as json.dumps lays it out
    after = _delete(data, doc["eval_cases"][0]["eval_id"])
    assert second.encode() in after
    assert after.startswith(data[: data.index(b'"eval_cases"')])


def test_a_camel_case_adk_file_stays_camel_case() -> None:
    doc = camelize(json.loads(DICE.read_bytes()))
    assert document_dialect(doc) == "adk_camel"
    data = json.dumps(doc, indent=2).encode()
    after = json.loads(_add(data, _new_case()))
    new = after["evalCases"][-1]
    assert new["evalId"] == "new" and new["conversation"][0]["userContent"] == {
        "role": "user",
        "parts": [{"text": "hi"}],
    }
    assert after["evalCases"][:-1] == doc["evalCases"]
    assert document_dialect(after) == "adk_camel"


def test_a_snake_case_case_in_a_camel_case_file_keeps_its_spelling() -> None:
    doc = camelize(json.loads(DICE.read_bytes()))
    doc["evalCases"][0] = json.loads(DICE.read_bytes())["eval_cases"][0]  # one case spelled as ADK writes it
    data = json.dumps(doc, indent=2).encode()
    eval_set = parse_eval_set(data)
    eval_set.eval_cases[0].conversation[0].user_content.content = "changed"  # type: ignore[index]
    after = json.loads(rewrite_eval_set(data, eval_set, changed={eval_set.eval_cases[0].eval_id}))
    assert "eval_id" in after["evalCases"][0] and "evalId" in after["evalCases"][1]


def test_a_native_file_gets_native_cases() -> None:
    data = (ROOT / "examples/calculator/calculator.evalset.json").read_bytes()
    after = json.loads(_add(data, _new_case()))
    assert after["evalCases"][-1]["conversation"][0]["userContent"] == {"role": "user", "content": "hi"}
    assert after["evalCases"][:-1] == json.loads(data)["evalCases"]


def test_changed_top_level_fields_are_written_in_the_dialect() -> None:
    data = HOME.read_bytes()
    eval_set = parse_eval_set(data)
    eval_set.description = "new words"
    after = json.loads(rewrite_eval_set(data, eval_set))  # changed=None: every case compared with the file
    assert after["description"] == "new words" and after["eval_set_id"] == eval_set.eval_set_id
    assert after["eval_cases"] == json.loads(data)["eval_cases"]
    same = rewrite_eval_set(data, parse_eval_set(data))
    assert same == data


def test_an_escaped_cases_key_is_rewritten_whole_in_its_dialect() -> None:
    data = HOME.read_bytes().replace(b'"eval_cases"', b'"eval\\u005fcases"')
    after = json.loads(_add(data, _new_case()))
    assert [c["eval_id"] for c in after["eval_cases"]] == ["eval_case_id", "new"]
    assert after["eval_cases"][0] == json.loads(HOME.read_bytes())["eval_cases"][0]


@pytest.mark.parametrize("dialect", ["native", "adk", "adk_camel"])
def test_a_new_file_is_written_in_the_dialect_asked_for(dialect: Any) -> None:
    doc = json.loads(rewrite_eval_set(None, EvalSet(eval_set_id="s", eval_cases=[_new_case()]), dialect=dialect))
    assert document_dialect(doc) == dialect


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        ({"startingPrompt": "hi", "conversationPlan": "ask"}, "adk_camel"),
        ({"driver": "actual", "startingPrompt": "hi", "stopSignal": "bye"}, "native"),
    ],
)
def test_a_set_of_scenarios_is_told_apart_by_its_scenarios(scenario: dict[str, str], expected: str) -> None:
    doc = {"evalSetId": "s", "evalCases": [{"evalId": "c", "conversationScenario": scenario}]}
    assert document_dialect(doc) == expected
    assert document_dialect({"eval_set_id": "s", "eval_cases": []}) == "adk"


def test_a_byte_order_mark_and_windows_line_ends_are_kept() -> None:
    data = b"\xef\xbb\xbf" + HOME.read_bytes().replace(b"\n", b"\r\n")
    after = _add(data, _new_case())
    assert after.startswith(data[: data.rindex(b"}", 0, data.rindex(b"]")) + 1])
    assert b"\n" not in after.replace(b"\r\n", b"")  # every line of the new case ends as the file's do
    assert [c["eval_id"] for c in json.loads(after[3:])["eval_cases"]] == ["eval_case_id", "new"]


def test_a_broken_file_is_replaced_whole() -> None:
    broken = b'{"eval_set_id": "s", "eval_cases": [{"eval_id": '
    after = rewrite_eval_set(broken, EvalSet(eval_set_id="s", eval_cases=[_new_case()]))
    assert json.loads(after)["eval_cases"][0]["eval_id"] == "new"  # ADK, as the broken file's keys suggest
