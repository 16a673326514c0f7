"""Every example file loads, with the values the seed documents show."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.formats import ADK_EFFICIENCY_METRICS, load_eval_set, load_metrics, load_result
from agentgauge.model import EvalStatus

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_math_basic_native_set() -> None:
    es = load_eval_set(EXAMPLES / "math_basic" / "math-basic.evalset.json")
    assert es.eval_set_id == "math-basic"
    assert es.creation_timestamp == pytest.approx(1761134484.9804401)
    case = es.eval_cases[0]
    assert case.eval_id == "calc_add"
    assert case.session_input is not None and case.session_input.app_name == "math-eval-app"
    inv = case.conversation[0] if case.conversation else None
    assert inv is not None
    assert (inv.user_content.role, inv.user_content.content) == ("user", "calc add 2 3")
    assert inv.final_response is not None and inv.final_response.content == "calc result: 5"
    assert [(t.id, t.name, t.arguments) for t in inv.tools] == [
        ("tool_use_1", "calculator", {"operation": "add", "a": 2, "b": 3})
    ]
    assert inv.tools[0].result == {"a": 2, "b": 3, "operation": "add", "result": 5}


def test_math_basic_metrics_and_result() -> None:
    metrics = load_metrics(EXAMPLES / "math_basic" / "math-basic.metrics.json")
    assert [(m.metric_name, m.threshold) for m in metrics] == [("tool_trajectory_avg_score", 1.0)]
    assert metrics[0].criterion is not None and metrics[0].criterion.tool_trajectory is not None
    assert metrics[0].criterion.tool_trajectory["orderSensitive"] is False
    result = load_result(
        EXAMPLES / "math_basic" / "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
    )
    assert result.eval_set_id == "math-basic"
    case = result.eval_case_results[0]
    assert case.final_eval_status is EvalStatus.PASSED
    assert case.session_id == "19877398-9586-4a97-b1d3-f8ce636ea54f"
    per = case.eval_metric_result_per_invocation[0]
    assert per.actual_invocation.final_response is not None
    assert per.actual_invocation.final_response.content == "The result of 2 + 3 is **5**."
    assert per.eval_metric_results[0].score == 1.0


def test_home_automation_adk_set_and_config() -> None:
    es = load_eval_set(EXAMPLES / "home_automation" / "home_automation_agent_light_on_off_set.evalset.json")
    assert es.eval_set_id == "home_automation_agent_light_on_off_set"
    inv = es.eval_cases[0].conversation[0]  # type: ignore[index]
    assert inv.user_content.content == "Turn off device_2 in the Bedroom."
    assert inv.final_response is not None
    assert (inv.final_response.role, inv.final_response.content) == (
        "assistant",
        "I have set the device_2 status to off.",
    )
    assert [(t.name, t.arguments, t.result) for t in inv.tools] == [
        ("set_device_info", {"location": "Bedroom", "device_id": "device_2", "status": "OFF"}, None)
    ]
    session = es.eval_cases[0].session_input
    assert session is not None and (session.app_name, session.user_id) == ("home_automation_agent", "test_user")
    metrics = load_metrics(EXAMPLES / "home_automation" / "test_config.json")
    assert [(m.metric_name, m.threshold) for m in metrics] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
        *((name, 0.0) for name in ADK_EFFICIENCY_METRICS),  # appended, as ADK 2.x does
    ]
    assert all(m.criterion is not None and m.criterion.is_adk for m in metrics[:2])


def test_dice_prime_multi_session_set() -> None:
    es = load_eval_set(EXAMPLES / "dice_prime" / "eval_set_example_with_multiple_sessions.evalset.json")
    assert [c.eval_id for c in es.eval_cases] == ["session_01", "session_02"]
    second = es.eval_cases[1].conversation
    assert second is not None and len(second) == 2
    final = second[1].final_response
    assert final is not None and final.role == "assistant"  # ADK's null role is a model answer
    assert final.content == "I got 4 and 7 form the dice roll, and 9 is not a prime number.\n"
    assert [t.name for t in second[1].tools] == ["roll_die", "roll_die", "check_prime"]
    assert second[1].tools[2].arguments == {"nums": [9]}
    [note] = second[1].intermediate_responses
    assert note.content.startswith("I have rolled a 10 sided die twice.")
    assert (note.model_extra or {})["author"] == "data_processing_agent"


def test_dice_prime_multi_turn_and_helm() -> None:
    es = load_eval_set(EXAMPLES / "dice_prime" / "multi_turn_eval.evalset.json")
    conv = es.eval_cases[0].conversation
    assert conv is not None
    assert [(t.id, t.name, t.arguments, t.result) for inv in conv for t in inv.tools] == [
        ("c1", "roll_die", {"sides": 20}, {"result": 17}),
        ("c2", "check_prime", {"nums": [17]}, {"17": True}),
    ]
    helm = load_eval_set(EXAMPLES / "helm" / "helm_eval_set.evalset.json")
    assert helm.name == "Helm Agent Eval Set"
    tool = helm.eval_cases[0].conversation[0].tools[0]  # type: ignore[index]
    assert (tool.id, tool.name, tool.arguments) == ("call_1", "helm_list_releases", {})
    assert tool.result == {"content": [{"type": "text", "text": "NAME  NAMESPACE  STATUS ..."}], "isError": False}


def test_legacy_test_file() -> None:
    es = load_eval_set(EXAMPLES / "legacy" / "home_automation.test.json")
    assert es.eval_set_id == "home_automation"
    [case] = es.eval_cases
    assert case.eval_id == "home_automation"
    conv = case.conversation
    assert conv is not None and [inv.invocation_id for inv in conv] == ["home_automation-1", "home_automation-2"]
    assert conv[0].tools[0].arguments == {"location": "Bedroom", "device_id": "device_2", "status": "OFF"}
    assert conv[0].tools[0].result is None
    assert (conv[0].tools[0].model_extra or {})["mock_tool_output"] == {"status": "ok"}
    assert conv[1].final_response is not None and conv[1].final_response.content == "Device device_2 is off."


@pytest.mark.parametrize(
    "path", sorted(p for p in EXAMPLES.rglob("*.json") if not {"calculator", "openai_agent"} & set(p.parts))
)
def test_every_example_json_is_loadable(path: Path) -> None:
    from agentgauge.formats import detect_kind, session_input_from_initial
    from agentgauge.formats._jsonio import parse_json

    doc = parse_json(path.read_bytes(), str(path))
    kind = detect_kind(doc)
    if kind == "eval_set":
        assert load_eval_set(path).eval_cases
    elif kind == "metrics":
        assert load_metrics(path)
    elif kind == "result":
        assert load_result(path).eval_case_results
    else:
        assert path.name == "initial.session.json"
        assert session_input_from_initial(doc, str(path)).app_name == "home_automation_agent"
