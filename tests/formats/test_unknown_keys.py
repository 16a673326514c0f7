"""Unknown keys of eval set documents: named with their JSON path and the closest known key, judged by the file's own
tool (an error where it refuses the key, a warning where it accepts it), the same from every reader, and never a
false alarm on what a reader or writer of either dialect produces -- nor a refusal of what google-adk accepts."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fmt_strategies import adk_eval_sets, eval_sets, ident
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentgauge.formats import (
    InputReport,
    case_key_rules,
    check_case_keys,
    check_eval_set_keys,
    eval_set_of_document,
    load_eval_set,
    parse_eval_set,
    to_adk_eval_set,
)
from agentgauge.formats._dialect import camelize
from agentgauge.model import EvalSet
from agentgauge.service import open_eval_set

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "examples/home_automation/home_automation_agent_light_on_off_set.evalset.json"
CALCULATOR = ROOT / "examples/calculator/calculator.evalset.json"
TRIP = ROOT / "examples/simulation/trip.evalset.json"
LEGACY = ROOT / "examples/legacy/home_automation.test.json"


def _found(doc: Any) -> list[tuple[str, str, str | None]]:
    return [(p.path, p.severity, p.suggestion) for p in check_eval_set_keys(doc)]


def _native(edit: Callable[[dict[str, Any]], None]) -> Any:
    doc = json.loads(CALCULATOR.read_text())
    edit(doc["evalCases"][0])
    return doc


def _adk(edit: Callable[[dict[str, Any]], None]) -> Any:
    doc = json.loads(HOME.read_text())
    edit(doc["eval_cases"][0])
    return doc


def _adk_camel(edit: Callable[[dict[str, Any]], None]) -> Any:
    doc = camelize(json.loads(HOME.read_text()))
    edit(doc["evalCases"][0])
    return doc


def _rename(obj: dict[str, Any], old: str, new: str) -> None:
    obj[new] = obj.pop(old)


# (id, document, (JSON path, severity, did-you-mean), end of the message)
KEY_CASES: list[tuple[str, Any, tuple[str, str, str | None], str]] = [
    (
        "native case",
        _native(lambda c: _rename(c, "conversation", "conversaton")),
        ("evalCases[0].conversaton", "warning", "conversation"),
        "it has no effect (agentgauge and trpc-agent-go ignore it)",
    ),
    (
        "native invocation",
        _native(lambda c: _rename(c["conversation"][0], "finalResponse", "finalRespone")),
        ("evalCases[0].conversation[0].finalRespone", "warning", "finalResponse"),
        "it has no effect (agentgauge and trpc-agent-go ignore it)",
    ),
    (
        "native tool",
        _native(lambda c: c["conversation"][0]["tools"][0].update(argumnets={})),
        ("evalCases[0].conversation[0].tools[0].argumnets", "warning", "arguments"),
        "trpc-agent-go ignore it)",
    ),
    (
        "adk case keeps it",
        _adk(lambda c: c.update(case_id="7")),
        ("eval_cases[0].case_id", "warning", None),
        "it has no effect (ADK's EvalCase keeps it)",
    ),
    (
        "adk case typo",
        _adk(lambda c: _rename(c, "session_input", "sesion_input")),
        ("eval_cases[0].sesion_input", "warning", "session_input"),
        "(ADK's EvalCase keeps it)",
    ),
    (
        "adk invocation",
        _adk(lambda c: _rename(c["conversation"][0], "final_response", "final_respnse")),
        ("eval_cases[0].conversation[0].final_respnse", "error", "final_response"),
        "ADK's Invocation refuses it",
    ),
    (
        "adk part",
        _adk(lambda c: c["conversation"][0]["user_content"]["parts"][0].update(txt="x")),
        ("eval_cases[0].conversation[0].user_content.parts[0].txt", "error", "text"),
        "ADK's Part refuses it",
    ),
    (
        "adk content",
        _adk(lambda c: c["conversation"][0]["user_content"].update(rol="user")),
        ("eval_cases[0].conversation[0].user_content.rol", "error", "role"),
        "ADK's Content refuses it",
    ),
    (
        "adk function call",
        _adk(lambda c: c["conversation"][0]["intermediate_data"]["tool_uses"][0].update(arg={})),
        ("eval_cases[0].conversation[0].intermediate_data.tool_uses[0].arg", "error", "args"),
        "ADK's FunctionCall refuses it",
    ),
    (
        "adk intermediate data",
        _adk(lambda c: c["conversation"][0]["intermediate_data"].update(tool_use=[])),
        ("eval_cases[0].conversation[0].intermediate_data.tool_use", "error", "tool_uses"),
        "ADK's IntermediateData refuses it",
    ),
    (
        "adk session input keeps it",
        _adk(lambda c: c["session_input"].update(usr_id="x")),
        ("eval_cases[0].session_input.usr_id", "warning", "user_id"),
        "(ADK's SessionInput keeps it)",
    ),
    (
        "adk set ignores it",
        _adk(lambda c: None) | {"zzzzzz": 1},
        ("zzzzzz", "warning", None),
        "(ADK's EvalSet ignores it)",
    ),
    (
        "adk case extra is agentgauge's",
        _adk(lambda c: c.update(context_messages=[{"role": "system", "content": "x", "rol": 1}])),
        ("eval_cases[0].context_messages[0].rol", "warning", "role"),
        "(ADK ignores it)",
    ),
    (
        "adk camelCase file is ADK-TS's",
        _adk_camel(lambda c: _rename(c["conversation"][0], "finalResponse", "finalRespnse")),
        ("evalCases[0].conversation[0].finalRespnse", "warning", "finalResponse"),
        "it has no effect (ADK-TS ignores it)",
    ),
    (
        "scenario",
        json.loads(TRIP.read_text()) | {"bogus_top": 1},
        ("bogus_top", "warning", None),
        "trpc-agent-go ignore it)",
    ),
    (
        "legacy row",
        [{"query": "hi", "refrence": "x", "expected_tool_use": [{"tool_name": "t", "tool_inptu": {}}]}],
        ("[0].refrence", "warning", "reference"),
        "it has no effect (ADK's legacy reader ignores it)",
    ),
    (
        "legacy tool use",
        [{"query": "hi", "expected_tool_use": [{"tool_name": "t", "tool_inptu": {}}]}],
        ("[0].expected_tool_use[0].tool_inptu", "warning", "tool_input"),
        "(ADK's legacy reader ignores it)",
    ),
    (
        "adk scenarios document",
        {"scenarios": [{"starting_prompt": "hi", "conversation_plan": "p", "user_persna": "x"}]},
        ("scenarios[0].user_persna", "error", "user_persona"),
        "ADK's ConversationScenario refuses it",
    ),
]


@pytest.mark.parametrize(("doc", "expected", "tail"), [c[1:] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_each_unknown_key_is_judged_by_the_files_own_tool(
    doc: Any, expected: tuple[str, str, str | None], tail: str
) -> None:
    [problem] = [p for p in check_eval_set_keys(doc, "f.json") if p.path == expected[0]]
    assert (problem.path, problem.severity, problem.suggestion) == expected
    assert problem.file == "f.json" and problem.key == expected[0].rsplit(".", 1)[-1].split("]")[-1]
    hint = f" (did you mean {expected[2]!r}?)" if expected[2] else ""
    assert problem.message.startswith(f"unknown key {problem.key!r}{hint}; ")
    assert problem.message.endswith(tail)


@pytest.mark.parametrize(("doc", "expected", "tail"), [c[1:] for c in KEY_CASES], ids=[c[0] for c in KEY_CASES])
def test_every_reader_reports_the_same_keys(
    tmp_path: Path, doc: Any, expected: tuple[str, str, str | None], tail: str
) -> None:
    path = tmp_path / "set.evalset.json"
    path.write_text(json.dumps(doc))
    wanted = check_eval_set_keys(doc, str(path))
    reports = [InputReport() for _ in range(4)]
    load_eval_set(path, report=reports[0])  # streamed when it can be
    parse_eval_set(path.read_bytes(), source=str(path), report=reports[1])
    eval_set_of_document(copy.deepcopy(doc), str(path), report=reports[2])
    open_eval_set(path, min_bytes=0, report=reports[3])  # a scan, as eval does for a large file
    for report in reports:
        assert report.problems == wanted


def test_strict_turns_every_warning_into_an_error() -> None:
    doc = _native(lambda c: c.update(notes="x"))
    report = InputReport(strict=True, strict_reason="--strict")
    eval_set_of_document(doc, "f.json", report=report)
    [problem] = report.problems
    assert problem.severity == "error" and problem.message.endswith("ignore it) (--strict)")
    assert report.warnings == []
    with pytest.raises(ValueError, match=r"^f\.json: evalCases\[0\]\.notes: unknown key 'notes'"):
        report.raise_errors()


def test_a_refused_file_still_names_the_keys_met_before() -> None:
    doc = _native(lambda c: c.update(notes="x"))
    doc["evalCases"][1]["conversation"] = "not a list"
    report = InputReport()
    with pytest.raises(ValueError, match=r"evalCases\[1\]\.conversation"):
        eval_set_of_document(doc, "f.json", report=report)
    assert [p.path for p in report.problems] == ["evalCases[0].notes"]


def test_a_case_sent_alone_is_judged_by_its_own_shape() -> None:
    native = json.loads(CALCULATOR.read_text())["evalCases"][0]
    adk = json.loads(HOME.read_text())["eval_cases"][0]
    camel = camelize(adk)
    assert (case_key_rules(native), case_key_rules(adk), case_key_rules(camel)) == ("native", "adk", "adk")
    camel["conversation"][0]["finalRespnse"] = {}
    [problem] = check_case_keys(camel, case_key_rules(camel), "case")
    assert (problem.path, problem.severity) == ("case.conversation[0].finalRespnse", "error")
    assert check_case_keys({"evalId": "c", "eval_mode": "trace", "agentgauge": {}}, "native") == []


def test_user_data_is_never_looked_into() -> None:
    doc = json.loads(CALCULATOR.read_text())
    case = doc["evalCases"][0]
    case["sessionInput"] = {"appName": "a", "userId": "u", "state": {"any_key": {"nested Key": 1}}}
    case["conversation"][0]["tools"][0]["arguments"] = {"whatever": {"deep": [{"x": 1}]}}
    case["conversation"][0]["tools"][0]["result"] = {"free": "form"}
    assert _found(doc) == []


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in {*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/**/data/**/*.json")}
        if b"eval_cases" in p.read_bytes() or b"evalCases" in p.read_bytes() or p.name.endswith(".test.json")
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


_extra_keys = st.dictionaries(ident.map(lambda k: f"x_{k}"), st.integers(0, 9) | ident, min_size=1, max_size=2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(eval_sets.filter(lambda s: bool(s.eval_cases)), _extra_keys, _extra_keys, st.data())
def test_unknown_keys_kept_on_a_round_trip_are_still_reported(
    eval_set: EvalSet, on_case: dict[str, Any], on_turn: dict[str, Any], data: st.DataObject
) -> None:
    """Unknown keys survive reading and writing (native, and an ADK file's case keys), and are reported again, at
    the same paths, in what was written."""
    doc = eval_set.model_dump(mode="json")
    index = data.draw(st.integers(0, len(doc["evalCases"]) - 1))
    case = doc["evalCases"][index]
    case.update(on_case)
    if case.get("conversation"):
        case["conversation"][0].update(on_turn)
    before = _found(doc)
    assert {path.rsplit(".", 1)[-1] for path, _, _ in before} >= set(on_case)
    again = parse_eval_set(json.dumps(doc)).model_dump(mode="json")
    assert _found(again) == before
    adk = to_adk_eval_set(parse_eval_set(json.dumps(doc)))
    case_keys = [(p, s) for p, s, _ in _found(adk) if p.count(".") == 1]
    assert case_keys == [(f"eval_cases[{index}].{key}", "warning") for key in on_case]


def _objects(value: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every JSON object of a document with its path."""
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _objects(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, f"{path}[{index}]")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(adk_eval_sets(), st.data())
def test_adk_files_are_judged_as_google_adk_judges_them(doc: dict[str, Any], data: st.DataObject) -> None:
    """An unknown key put anywhere in an ADK file: an error exactly where google-adk 2.13's ``EvalSet`` refuses it
    (nothing ADK accepts is refused), a warning where ADK accepts it."""
    eval_set_model = pytest.importorskip("google.adk.evaluation.eval_set").EvalSet
    from pydantic import ValidationError

    eval_set_model.model_validate(doc)  # the generated file is valid for ADK
    where = data.draw(st.sampled_from(list(_objects(doc))))
    where[1]["zz_unknown"] = 1
    path = f"{where[0]}.zz_unknown" if where[0] else "zz_unknown"
    found = [p for p in check_eval_set_keys(doc) if p.path == path]
    try:
        eval_set_model.model_validate(doc)
        refused = False
    except ValidationError:
        refused = True
    if found:
        assert found[0].is_error == refused, (path, found[0].message)
    else:  # inside a value agentgauge does not look into (tool arguments, session state, ...)
        assert not any(p.is_error for p in check_eval_set_keys(doc))
