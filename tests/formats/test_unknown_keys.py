"""Unknown keys of eval set documents: named with their JSON path and the closest known key, never a false alarm on
what a reader or writer of either dialect produces."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fmt_strategies import adk_eval_sets, eval_sets
from hypothesis import HealthCheck, given, settings

from agentgauge.formats import check_keys, parse_eval_set, to_adk_eval_set
from agentgauge.formats._dialect import camelize
from agentgauge.formats._unknown import unknown_case_keys, unknown_keys
from agentgauge.model import EvalSet

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json"
CALCULATOR = ROOT / "examples/calculator/calculator.evalset.json"


def _found(doc: Any) -> list[tuple[str, str | None]]:
    return [(k.path, k.suggestion) for k in unknown_keys(doc)]


def test_a_misspelled_case_key_in_a_native_file() -> None:
    doc = json.loads(CALCULATOR.read_text())
    doc["evalCases"][2]["conversaton"] = doc["evalCases"][2].pop("conversation")
    assert _found(doc) == [("evalCases[2].conversaton", "conversation")]
    report = check_keys(doc)
    assert report.dialect == "native" and not report.blocking
    assert report.unknown[0].message() == "unknown key 'conversaton' (did you mean 'conversation'?)"


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda c: c["conversation"][0].update(final_respnse={}), ("conversation[0].final_respnse", "final_response")),
        (lambda c: c["session_input"].update(usr_id="x"), ("session_input.usr_id", "user_id")),
        (
            lambda c: c["conversation"][0]["intermediate_data"]["tool_uses"][0].update(arg={}),
            ("conversation[0].intermediate_data.tool_uses[0].arg", "args"),
        ),
        (lambda c: c["conversation"][0]["user_content"]["parts"][0].update(txt="x"), (".parts[0].txt", "text")),
        (lambda c: c.update(zzzzzz=1), ("zzzzzz", None)),
    ],
)
def test_adk_file_keys_at_every_level(edit: Any, expected: tuple[str, str | None]) -> None:
    doc = json.loads(HOME.read_text())
    edit(doc["eval_cases"][0])
    [(path, suggestion)] = _found(doc)
    assert path.endswith(expected[0]) and path.startswith("eval_cases[0].")
    assert suggestion == expected[1]
    assert check_keys(doc).blocking  # an ADK file: unknown keys are errors


def test_camel_case_keys_get_camel_case_suggestions() -> None:
    doc = json.loads(CALCULATOR.read_text())
    doc["evalCases"][0]["conversation"][0]["finalRespons"] = {}
    assert _found(doc) == [("evalCases[0].conversation[0].finalRespons", "finalResponse")]


def test_user_data_is_never_looked_into() -> None:
    doc = json.loads(CALCULATOR.read_text())
    case = doc["evalCases"][0]
    case["sessionInput"] = {"appName": "a", "userId": "u", "state": {"any_key": {"nested Key": 1}}}
    case["conversation"][0]["tools"][0]["arguments"] = {"whatever": {"deep": [{"x": 1}]}}
    case["conversation"][0]["tools"][0]["result"] = {"free": "form"}
    assert _found(doc) == []


def test_both_spellings_and_the_stash_are_known() -> None:
    case = {"evalId": "c", "eval_mode": "trace", "agentgauge": {"x": 1}, "expectedRunnerEnabled": True}
    assert unknown_case_keys(case) == []
    assert [k.path for k in unknown_case_keys({"evalId": "c", "bogus": 1}, "case")] == ["case.bogus"]


def test_other_documents_have_no_unknown_keys() -> None:
    assert unknown_keys({"scenarios": [{"starting_prompt": "hi", "conversation_plan": "p"}]}) == []
    assert unknown_keys([{"query": "q", "expected_tool_use": [], "reference": "r"}]) == []


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in {*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/**/data/**/*.json")}
        if b"eval_cases" in p.read_bytes() or b"evalCases" in p.read_bytes()
    ),
    ids=lambda p: p.name,
)
def test_no_unknown_keys_in_the_shipped_eval_sets(path: Path) -> None:
    assert _found(json.loads(path.read_bytes())) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_sets)
def test_what_the_writers_write_has_no_unknown_keys(eval_set: EvalSet) -> None:
    assert _found(eval_set.model_dump(mode="json")) == []
    adk = to_adk_eval_set(eval_set)
    assert _found(adk) == []
    assert _found(camelize(adk)) == []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(adk_eval_sets())
def test_adk_documents_and_their_native_form_have_no_unknown_keys(doc: dict[str, Any]) -> None:
    assert _found(doc) == []
    native = parse_eval_set(json.dumps(doc)).model_dump(mode="json")
    assert _found(native) == []
