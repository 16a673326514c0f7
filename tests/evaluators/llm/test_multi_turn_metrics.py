"""ADK's multi-turn judge metrics against a scripted judge on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import pytest
from chat_server import ChatServer, error, ok
from llm_helpers import adk_metric, inv, registry

from agentgauge.evaluators import EvaluateResult
from agentgauge.evaluators._base import CURRENT_CASE
from agentgauge.model import ConversationScenario, EvalCase, EvalMetric, EvalStatus, Invocation, Tool

VERTEX_METRICS = ["multi_turn_task_success_v1", "multi_turn_trajectory_quality_v1", "multi_turn_tool_use_quality_v1"]


def blocks(*verdicts: tuple[str, str]) -> str:
    """A judge answer in the ID / Property / Rationale / Verdict form."""
    return "\n\n".join(f"ID: {rid}\nProperty: p\nRationale: because {rid}\nVerdict: {v}" for rid, v in verdicts)


async def run(metric: EvalMetric, actuals: list[Invocation], case: EvalCase | None = None) -> EvaluateResult:
    token = CURRENT_CASE.set(case)
    try:
        return await registry().resolve(metric).evaluate(actuals, actuals, metric)
    finally:
        CURRENT_CASE.reset(token)


def conversation() -> list[Invocation]:
    weather = Tool(id="t1", name="get_weather", arguments={"city": "Oslo"}, result={"temp": 3})
    return [inv("Weather in Oslo?", "3 degrees", tools=[weather]), inv("And tomorrow?", "Sunny"), inv("Thanks", "Bye")]


@pytest.mark.parametrize(
    ("metric_name", "verdicts", "score"),
    [
        ("multi_turn_task_success_v1", ["yes", "yes", "yes"], 1.0),
        ("multi_turn_task_success_v1", ["yes", "no", "yes"], 2 / 3),
        ("multi_turn_trajectory_quality_v1", ["yes", "no", "no", "no"], 0.25),
        ("multi_turn_tool_use_quality_v1", ["yes", "yes", "no", "yes"], 0.75),
    ],
)
async def test_vertex_metrics_judge_the_whole_conversation_once(
    chat_server: ChatServer, metric_name: str, verdicts: list[str], score: float
) -> None:
    from agentgauge.evaluators.llm._multi_turn_prompts import BUILT_IN_RUBRICS

    ids = [r.id for r in BUILT_IN_RUBRICS[metric_name]]
    chat_server.queue(ok(blocks(*zip(ids, verdicts, strict=True))))
    result = await run(adk_metric(metric_name, chat_server.base_url, threshold=0.7), conversation())
    assert len(chat_server.requests) == 1  # one judge call for the whole conversation
    prompt = chat_server.requests[0].body["messages"][0]["content"]
    assert "USER TURN 1: Weather in Oslo?" in prompt and "USER TURN 3: Thanks" in prompt
    assert 'AGENT TURN 1 (tool call): get_weather({"city": "Oslo"}) -> {"temp": 3}' in prompt
    assert [r.status for r in result.per_invocation_results[:2]] == [EvalStatus.NOT_EVALUATED] * 2
    assert [r.score for r in result.per_invocation_results] == [None, None, pytest.approx(score)]
    assert result.overall_score == pytest.approx(score)
    assert result.overall_status is (EvalStatus.PASSED if score >= 0.7 else EvalStatus.FAILED)
    assert [(s.id, s.score) for s in result.rubric_scores] == [
        (rid, 1.0 if v == "yes" else 0.0) for rid, v in zip(ids, verdicts, strict=True)
    ]


async def test_judge_failure_leaves_the_last_turn_not_evaluated(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: error(500)
    result = await run(adk_metric("multi_turn_task_success_v1", chat_server.base_url), conversation())
    assert (result.overall_score, result.overall_status) == (None, EvalStatus.NOT_EVALUATED)
    assert "judge failed" in result.per_invocation_results[-1].reason


async def test_rubric_based_multi_turn_uses_trajectory_rubrics_only(chat_server: ChatServer) -> None:
    rubrics = [
        {"rubric_id": "r1", "rubric_content": {"text_property": "The agent asked for the city."}},
        {"rubric_id": "r2", "rubric_content": {"text_property": "The agent called get_weather."}},
    ]
    chat_server.queue(ok(blocks(("r1", "no"), ("r2", "yes"))), ok(blocks(("r1", "yes"), ("r2", "yes"))))
    metric = adk_metric(
        "rubric_based_multi_turn_trajectory_quality_v1", chat_server.base_url, samples=2, rubrics=rubrics
    )
    result = await run(metric, conversation())
    assert len(chat_server.requests) == 2  # two samples of one whole-conversation judgement
    # per-rubric majority: r1 1 yes / 1 no → no (a tie goes to no), r2 yes
    assert [(s.id, s.score) for s in result.rubric_scores] == [("r1", 0.0), ("r2", 1.0)]
    assert result.overall_score == 0.5
    assert "The agent asked for the city." in chat_server.requests[0].body["messages"][0]["content"]


async def test_rubric_based_multi_turn_without_rubrics_is_not_evaluated(chat_server: ChatServer) -> None:
    result = await run(
        adk_metric("rubric_based_multi_turn_trajectory_quality_v1", chat_server.base_url), conversation()
    )
    assert (result.overall_score, result.overall_status) == (None, EvalStatus.NOT_EVALUATED)
    assert result.per_invocation_results[-1].reason == "Rubrics are required."
    assert chat_server.requests == []


def valid(label: str) -> str:
    return json.dumps({"reasoning": "r", "is_valid": label})


def scenario_case(**scenario: Any) -> EvalCase:
    scenario.setdefault("starting_prompt", "Weather in Oslo?")
    scenario.setdefault("conversation_plan", "Ask the weather in Oslo, then tomorrow's, then thank and stop.")
    return EvalCase(eval_id="sim", conversation_scenario=ConversationScenario(**scenario))


USER_SIM_CASES = [
    # (judge labels for turns 2, 3 and the stop signal, per-turn scores, overall)
    (["valid", "valid", "valid"], [1.0, 1.0, 1.0], 1.0),
    (["valid", "invalid", "valid"], [1.0, 1.0, 0.0], 2 / 3),
    (["valid", "valid", "invalid"], [1.0, 1.0, 0.0], 2 / 3),  # stopping now is wrong: the last turn fails
    (["almost", "no label", "valid"], [1.0, 0.0, None], 1 / 3),  # unparseable: not evaluated, still counted
]


@pytest.mark.parametrize(("labels", "scores", "overall"), USER_SIM_CASES)
async def test_per_turn_user_simulator_quality(
    chat_server: ChatServer, labels: list[str], scores: list[float | None], overall: float
) -> None:
    chat_server.queue(*(ok(valid(label) if label != "no label" else "no verdict") for label in labels))
    metric = adk_metric("per_turn_user_simulator_quality_v1", chat_server.base_url, stop_signal="<done/>")
    result = await run(metric, conversation(), scenario_case(user_persona={"style": "terse"}))
    assert [r.score for r in result.per_invocation_results] == scores
    assert result.overall_score == pytest.approx(overall)
    prompts = [r.body["messages"][0]["content"] for r in chat_server.requests]
    assert len(prompts) == 3
    assert "Message to check:\nAnd tomorrow?" in prompts[0] and "user: Weather in Oslo?" in prompts[0]
    assert "Message to check:\n<done/>" in prompts[2] and "agent: Bye" in prompts[2]
    assert '{"style": "terse"}' in prompts[0] and "then thank and stop" in prompts[0]


async def test_user_simulator_first_turn_must_be_the_starting_prompt(chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: ok(valid("valid"))
    metric = adk_metric("per_turn_user_simulator_quality_v1", chat_server.base_url)
    result = await run(metric, conversation(), scenario_case(starting_prompt="Hello"))
    first = result.per_invocation_results[0]
    assert (first.score, first.status) == (0.0, EvalStatus.FAILED)
    assert result.overall_score == pytest.approx(2 / 3)
    assert "</finished>" in chat_server.requests[-1].body["messages"][0]["content"]  # ADK's default stop signal


async def test_user_simulator_metric_needs_a_scenario(chat_server: ChatServer) -> None:
    result = await run(adk_metric("per_turn_user_simulator_quality_v1", chat_server.base_url), conversation())
    assert (result.overall_score, result.overall_status) == (None, EvalStatus.NOT_EVALUATED)
    assert "conversationScenario" in result.reason and chat_server.requests == []


async def test_through_the_service_with_a_simulated_conversation(chat_server: ChatServer) -> None:
    """A case whose conversation came from user simulation: actual invocations + its scenario."""
    from agentgauge.service import evaluate_case
    from agentgauge.service._types import InferenceResult

    chat_server.responder = lambda body: ok(valid("valid"))
    # The simulated user's turns as the expectations (user content only), the scenario kept on the case.
    case = scenario_case().model_copy(
        update={"conversation": [Invocation(user_content=i.user_content) for i in conversation()]}
    )
    inference = InferenceResult("app", "set", "sim", inferences=conversation(), session_id="s")
    metric = adk_metric("per_turn_user_simulator_quality_v1", chat_server.base_url, threshold=0.9)
    result = await evaluate_case(case, inference, [metric], registry())
    assert result.final_eval_status is EvalStatus.PASSED, result.error_message
    assert result.overall_eval_metric_results[0].score == 1.0
