"""ADK reading details and the differential checks against Google ADK's own models."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from fmt_adk_samples import ADK_TS_SET, COMPLEX_ADK_SET

from agentgauge.formats import parse_eval_set, to_adk_eval_set
from agentgauge.model import EvalCase, EvalSet, Invocation, Message, Tool

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ADK_FILES = [
    EXAMPLES / "home_automation" / "home_automation_agent_light_on_off_set.evalset.json",
    EXAMPLES / "dice_prime" / "eval_set_example_with_multiple_sessions.evalset.json",
    EXAMPLES / "dice_prime" / "multi_turn_eval.evalset.json",
    EXAMPLES / "helm" / "helm_eval_set.evalset.json",
]


def _adk_models() -> Any:
    return pytest.importorskip("google.adk.evaluation.eval_set")


def _round_trip(doc: dict[str, Any]) -> dict[str, Any]:
    """ADK JSON → native → native JSON → native → ADK JSON."""
    native = parse_eval_set(json.dumps(doc))
    again = parse_eval_set(native.model_dump_json())
    return to_adk_eval_set(again)


def test_complex_adk_reading() -> None:
    es = parse_eval_set(json.dumps(COMPLEX_ADK_SET))
    case = es.eval_cases[0]
    conv = case.conversation
    assert conv is not None
    first = conv[0]
    assert first.user_content.content == "a\nb"
    assert first.final_response is not None and first.final_response.content == "ok"
    assert [(t.id, t.name, t.arguments, t.result) for t in first.tools] == [
        ("adk_call_0", "t1", {"q": 1}, None),
        ("z", "t2", None, {"ok": True}),  # no args: None, as in ADK (not {})
    ]
    extra = first.model_extra or {}
    assert extra["unpaired_tool_responses"] == [{"id": "zz", "name": "orphan", "response": {"r": 1}}]
    assert first.duration == 1.5 and "app_details" in extra
    assert [(m.content, (m.model_extra or {})["author"]) for m in first.intermediate_responses] == [
        ("hi\nthere", "sub")
    ]
    events = conv[1]
    assert [(t.id, t.name, t.result) for t in events.tools] == [
        ("e1", "g", {"v": 3}),
        ("e2", "transfer_to_agent", None),
    ]
    assert [(m.content, (m.model_extra or {})["author"]) for m in events.intermediate_responses] == [
        ("thinking", "root")
    ]
    assert conv[2].final_response is not None and conv[2].final_response.content == ""
    assert case.session_input is not None and (case.session_input.model_extra or {})["session_id"] == "s1"
    assert case.rubrics[0].id == "r1" and case.rubrics[0].content is not None
    assert case.rubrics[0].content.text == "concise" and case.rubrics[0].type == "FINAL_RESPONSE_QUALITY"
    assert (case.model_extra or {})["final_session_state"] == {"k": 1}
    scenario = es.eval_cases[1].conversation_scenario
    assert scenario is not None and (scenario.starting_prompt, scenario.conversation_plan) == ("hi", "plan")


def test_adk_ts_camel_case() -> None:
    es = parse_eval_set(json.dumps(ADK_TS_SET))
    inv = es.eval_cases[0].conversation[0]  # type: ignore[index]
    assert [(t.name, t.arguments) for t in inv.tools] == [
        ("search_web", {"query": "TypeScript generics"}),
        ("summarize", {"maxLength": 200}),
    ]
    assert inv.final_response is not None and inv.final_response.content == "Here is a summary."


def test_older_trpc_genai_shape() -> None:
    doc = {
        "evalSetId": "old",
        "evalCases": [
            {
                "evalId": "c",
                "conversation": [
                    {
                        "invocationId": "c-1",
                        "userContent": {"role": "user", "parts": [{"text": "calc add 2 3"}]},
                        "finalResponse": {"role": "model", "parts": [{"text": "calc result: 5"}]},
                        "intermediateData": {
                            "toolUses": [{"id": "t1", "name": "calculator", "args": {"a": 2, "b": 3}}],
                            "toolResponses": [{"id": "t1", "name": "calculator", "response": {"result": 5}}],
                        },
                    }
                ],
            }
        ],
    }
    inv = parse_eval_set(json.dumps(doc)).eval_cases[0].conversation[0]  # type: ignore[index]
    assert inv.tools[0].model_dump() == {
        "id": "t1",
        "name": "calculator",
        "arguments": {"a": 2, "b": 3},
        "result": {"result": 5},
    }
    assert inv.final_response == Message(role="assistant", content="calc result: 5")


@pytest.mark.parametrize("path", ADK_FILES, ids=lambda p: p.name)
def test_adk_accepts_round_tripped_examples(path: Path) -> None:
    adk = _adk_models()
    doc = json.loads(path.read_text())
    original = adk.EvalSet.model_validate(doc)
    back = adk.EvalSet.model_validate_json(json.dumps(_round_trip(doc)))
    assert back.model_dump() == original.model_dump()


def test_adk_round_trip_keeps_every_field_adk_reads() -> None:
    adk = _adk_models()
    original = adk.EvalSet.model_validate(copy.deepcopy(COMPLEX_ADK_SET))
    back = adk.EvalSet.model_validate_json(json.dumps(_round_trip(copy.deepcopy(COMPLEX_ADK_SET))))
    assert back.model_dump() == original.model_dump()
    assert back.eval_cases[0].model_extra == original.eval_cases[0].model_extra | {}


def test_native_set_written_as_adk_is_accepted_and_restores() -> None:
    adk = _adk_models()
    native = EvalSet(
        eval_set_id="n",
        eval_cases=[
            EvalCase(
                eval_id="c",
                eval_mode="",
                context_messages=[Message(role="system", content="be brief")],
                conversation=[
                    Invocation(
                        invocation_id="i",
                        context_messages=[Message(role="user", content="earlier")],
                        user_content=Message(content="hi"),
                        final_response=Message(role="assistant", content="hello", tool_calls=[{"id": 1}]),
                        tools=[Tool(id="t", name="n", arguments=[1, 2], result="text result")],
                    )
                ],
            )
        ],
    )
    doc = to_adk_eval_set(native)
    parsed = adk.EvalSet.model_validate_json(json.dumps(doc))
    assert parsed.eval_cases[0].conversation[0].final_response.role == "model"
    assert parsed.eval_cases[0].conversation[0].intermediate_data.tool_uses[0].name == "n"
    restored = parse_eval_set(json.dumps(doc))
    assert restored.model_dump(mode="json") == native.model_dump(mode="json")


def test_edit_in_adk_form_wins_over_preserved_data() -> None:
    es = parse_eval_set(json.dumps(COMPLEX_ADK_SET))
    inv = es.eval_cases[0].conversation[0]  # type: ignore[index]
    inv.final_response = Message(role="assistant", content="changed")
    inv.tools[0].arguments = {"q": 2}
    out = to_adk_eval_set(es)["eval_cases"][0]["conversation"][0]
    assert out["final_response"] == {"role": "model", "parts": [{"text": "changed"}]}
    assert out["intermediate_data"]["tool_uses"][0] == {"id": "adk_call_0", "name": "t1", "args": {"q": 2}}
    assert {"id": "zz", "name": "orphan", "response": {"r": 1}} in out["intermediate_data"]["tool_responses"]
