"""Scenario rules per dialect: stop signals, turn limits, drivers, personas and invalid scenarios."""

from __future__ import annotations

import pytest

from agentgauge.model import ConversationScenario
from agentgauge.simulation import ADK_DEFAULT_MAX_INVOCATIONS, BUILTIN_PERSONAS, resolve_persona, scenario_rules


def _adk(**extra: object) -> ConversationScenario:
    return ConversationScenario.model_validate({"starting_prompt": "hi", "conversation_plan": "plan", **extra})


def _trpc(**extra: object) -> ConversationScenario:
    return ConversationScenario.model_validate({"conversationPlan": "plan", **extra})


def test_dialect_follows_the_fields() -> None:
    assert _adk().dialect == "adk"
    assert _trpc(stopSignal="DONE").dialect == "trpc"
    assert _trpc(maxAllowedInvocations=3).dialect == "trpc"
    assert _adk(driver="actual").dialect == "trpc"


def test_adk_stop_signal_is_a_case_insensitive_substring() -> None:
    rules = scenario_rules(_adk())
    assert rules.stop_signal == "</finished>"
    assert rules.is_stop("Great, thanks! </FINISHED>")
    assert rules.is_stop("</finished>")
    assert not rules.is_stop("finished")


def test_trpc_stop_signal_must_be_the_whole_message() -> None:
    rules = scenario_rules(_trpc(stopSignal=" </Done> "))
    assert rules.is_stop("</done>")
    assert rules.is_stop("  </DONE>\n")
    assert not rules.is_stop("thanks </done>")


def test_turn_limits_per_dialect() -> None:
    assert scenario_rules(_adk()).max_turns == ADK_DEFAULT_MAX_INVOCATIONS == 20
    assert scenario_rules(_adk(), adk_max_invocations=5).max_turns == 5
    assert scenario_rules(_adk(), adk_max_invocations=-1).max_turns is None
    assert scenario_rules(_trpc(stopSignal="x")).max_turns is None  # 0 / absent: unlimited
    assert scenario_rules(_trpc(stopSignal="x", maxAllowedInvocations=4)).max_turns == 4
    assert scenario_rules(_trpc(stopSignal="x", maxAllowedInvocations=4), max_turns=2).max_turns == 2
    assert scenario_rules(_adk(), max_turns=3).max_turns == 3
    assert scenario_rules(_adk(), max_turns=0).max_turns is None


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (_trpc(conversationPlan="  ", stopSignal="x"), "conversationPlan must not be empty"),
        (_trpc(maxAllowedInvocations=0), "stopSignal and maxAllowedInvocations cannot both be disabled"),
        (_trpc(stopSignal="x", maxAllowedInvocations=-1), "maxAllowedInvocations must be greater than or equal to 0"),
        (_trpc(stopSignal="x", driver="both"), "invalid conversationScenario driver 'both'"),
        (ConversationScenario(conversation_plan="p"), "startingPrompt is required (ADK scenario)"),
        (_adk(user_persona="PIRATE"), "unknown user persona 'PIRATE'"),
    ],
)
def test_invalid_scenarios(scenario: ConversationScenario, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        scenario_rules(scenario)


def test_drivers_and_personas() -> None:
    assert scenario_rules(_trpc(stopSignal="x", driver="expected")).driver == "expected"
    assert scenario_rules(_trpc(stopSignal="x")).driver == "actual"
    assert resolve_persona("novice") is BUILTIN_PERSONAS["NOVICE"]
    custom = resolve_persona({"id": "RUSHED", "description": "In a hurry.", "behaviors": [{"name": "Short"}]})
    assert custom is not None and custom.id == "RUSHED" and custom.behaviors[0].name == "Short"
    text = BUILTIN_PERSONAS["EXPERT"].render("</finished>")
    assert "</finished>" in text and "{{" not in text


def test_adk_prompt_history_and_custom_instructions() -> None:
    from agentgauge.model import Invocation
    from agentgauge.simulation import adk_prompt, render_history, trpc_system_prompt

    inv = Invocation.model_validate(
        {
            "userContent": {"content": "roll"},
            "finalResponse": {"role": "assistant", "content": "7", "author": "dice"},
            "tools": [{"id": "t", "name": "roll_die", "arguments": {"sides": 20}, "result": 7}],
        }
    )
    assert render_history([inv]) == "user: roll\n\ndice: 7"
    with_tools = render_history([inv], include_function_calls=True)
    assert (
        "agent called tool 'roll_die' with args: {\"sides\": 20}" in with_tools
        and "Tool 'roll_die' returned: 7" in with_tools
    )
    rules = scenario_rules(_adk(user_persona="EXPERT"))
    custom = adk_prompt(
        rules, "H", "Plan={{conversation_plan}} History={{ conversation_history }} Stop={{ stop_signal }}"
    )
    assert custom == "Plan=plan History=H Stop=</finished>"
    default = adk_prompt(rules, "H")
    assert "# Persona" in default and "experienced user" in default and default.rstrip().endswith("H")
    trpc = trpc_system_prompt(scenario_rules(_trpc(stopSignal="DONE", startingPrompt="hello")))
    assert "fixed first user message:\nhello" in trpc and trpc.endswith("Conversation plan:\nplan")
