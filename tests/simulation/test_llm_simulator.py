"""The model-played user on a scripted OpenAI-compatible server: ADK's stateless prompt, trpc's session,
retries, secrets, empty answers; generated tool mock results; scenario generation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, error, ok

from agentgauge import AgentEvaluator
from agentgauge.agents import AgentRequest
from agentgauge.judges import JudgeCache, JudgeClient, JudgeEndpoint, OpenAIJudge, RetryPolicy
from agentgauge.model import EvalCaseResult, EvalSet
from agentgauge.simulation import (
    JudgeMockGenerator,
    LlmUserSimulator,
    SimulationSettings,
    generate_scenarios,
    scenario_eval_id,
)
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

KEY = "sk-simulator-SECRET-0123456789"
FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0, request_timeout=5.0)


def client_for(server: ChatServer, cache: Path | None = None) -> JudgeClient:
    endpoint = JudgeEndpoint.resolve(model="sim-model", base_url=server.base_url, api_key=KEY, env={})
    return JudgeClient(
        OpenAIJudge(endpoint, retry=FAST),
        label="sim",
        cache=JudgeCache(cache) if cache else None,
        identity=endpoint.cache_identity(),
    )


def agent(request: AgentRequest) -> str:
    return f"reply {len(request.history) + 1}"


async def _run(cases: list[dict[str, Any]], settings: SimulationSettings) -> dict[str, EvalCaseResult]:
    sets = InMemoryEvalSetManager()
    sets.put("app", EvalSet.model_validate({"evalSetId": "s", "evalCases": cases}))
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=InMemoryMetricManager(),
        result_manager=InMemoryEvalResultManager(),
        simulation=settings,
    )
    result = await evaluator.evaluate("s")
    assert result.eval_set_result is not None
    return {c.eval_id: c for c in result.eval_set_result.eval_case_results}


def _users(case: EvalCaseResult) -> list[str]:
    return [t.actual_invocation.user_content.content for t in case.eval_metric_result_per_invocation]


async def test_adk_dialect_sends_one_stateless_prompt_per_turn(chat_server: ChatServer) -> None:
    chat_server.queue(ok("Roll a d20 please."), ok("Is it prime? Thanks </finished>"))
    case = {
        "evalId": "c",
        "conversation_scenario": {
            "starting_prompt": "What can you do?",
            "conversation_plan": "Ask for a d20 roll.",
            "user_persona": "NOVICE",
        },
    }
    simulator = LlmUserSimulator(client_for(chat_server))
    results = await _run([case], SimulationSettings(user_simulator=simulator))
    assert _users(results["c"]) == ["What can you do?", "Roll a d20 please."]
    assert results["c"].simulation.stop_reason == "stop_signal"  # type: ignore[union-attr]
    first, second = chat_server.requests
    assert [m["role"] for m in second.body["messages"]] == ["user"]  # stateless: one prompt holding everything
    prompt = second.body["messages"][0]["content"]
    assert "Ask for a d20 roll." in prompt and "</finished>" in prompt
    assert "user: What can you do?\n\nagent: reply 1\n\nuser: Roll a d20 please.\n\nagent: reply 2" in prompt
    assert "first-time user" in prompt  # the NOVICE persona
    assert "user: What can you do?\n\nagent: reply 1" in first.body["messages"][0]["content"]


async def test_trpc_dialect_keeps_a_session_and_sends_the_last_reply(chat_server: ChatServer) -> None:
    chat_server.queue(ok("I want to go to Paris."), ok("  </DONE> "))
    case = {"evalId": "c", "conversationScenario": {"conversationPlan": "Go to Paris.", "stopSignal": "</done>"}}
    results = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server))))
    assert _users(results["c"]) == ["I want to go to Paris."]
    first, second = chat_server.requests
    system = first.body["messages"][0]
    assert system["role"] == "system" and "Conversation plan:\nGo to Paris." in system["content"]
    assert "output only this stop signal and nothing else: </done>" in system["content"]
    assert first.body["messages"][1] == {"role": "user", "content": ""}  # no startingPrompt: the start is empty
    assert [m["role"] for m in second.body["messages"]] == ["system", "user", "assistant", "user"]
    assert second.body["messages"][2]["content"] == "I want to go to Paris."
    assert second.body["messages"][3]["content"] == "reply 1"


async def test_retries_then_answers(chat_server: ChatServer) -> None:
    chat_server.queue(error(503), ok("</finished>"))
    case = {"evalId": "c", "conversation_scenario": {"starting_prompt": "s", "conversation_plan": "p"}}
    results = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server))))
    assert results["c"].error_message is None and len(chat_server.requests) == 2


async def test_empty_or_failing_simulator_fails_the_case_without_the_key(chat_server: ChatServer) -> None:
    chat_server.queue(ok("   "), ok(""), ok(" "))  # empty answers are retried, then fail
    case = {"evalId": "c", "conversation_scenario": {"starting_prompt": "s", "conversation_plan": "p"}}
    results = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server))))
    assert str(results["c"].error_message).startswith("user simulator sim failed: judge sim-model")
    assert "the answer is empty" in str(results["c"].error_message)
    chat_server.queue(error(401, f"bad key {KEY}"))
    failed = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server))))
    message = str(failed["c"].error_message)
    assert message.startswith("user simulator sim failed:") and KEY not in message


async def test_answers_are_cached(chat_server: ChatServer, tmp_path: Path) -> None:
    case = {"evalId": "c", "conversation_scenario": {"starting_prompt": "s", "conversation_plan": "p"}}
    chat_server.queue(ok("more"), ok("</finished>"))
    first = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server, tmp_path))))
    again = await _run([case], SimulationSettings(user_simulator=LlmUserSimulator(client_for(chat_server, tmp_path))))
    assert _users(first["c"]) == _users(again["c"]) == ["s", "more"]
    assert len(chat_server.requests) == 2  # the second run came from the cache


async def test_generated_mock_results(chat_server: ChatServer) -> None:
    generator = JudgeMockGenerator(client_for(chat_server))
    chat_server.queue(ok('```json\n{"temp": 21}\n```'))
    assert await generator.generate("Invent a forecast.", '{"city": "Paris"}') == '```json\n{"temp": 21}\n```'
    request = chat_server.requests[0].body["messages"]
    assert request == [
        {"role": "system", "content": "Invent a forecast."},
        {"role": "user", "content": '{"city": "Paris"}'},
    ]


async def test_generate_scenarios_in_both_dialects(chat_server: ChatServer) -> None:
    answer = (
        '{"scenarios": [{"starting_prompt": "Book a table", "conversation_plan": "For 2 at 8pm."},'
        ' {"starting_prompt": "", "conversation_plan": "skipped"},'
        ' {"starting_prompt": "Cancel", "conversation_plan": "Booking 42."}]}'
    )
    chat_server.queue(ok(answer), ok(answer))
    client = client_for(chat_server)
    trpc = await generate_scenarios(client, "Restaurant booking agent.", count=5, max_turns=6)
    assert [s.starting_prompt for s in trpc] == ["Book a table", "Cancel"]
    assert trpc[0].stop_signal == "</finished>" and trpc[0].max_allowed_invocations == 6 and trpc[0].dialect == "trpc"
    assert trpc[0].conversation_plan == "For 2 at 8pm. When the goal is reached, output only </finished>."
    prompt = chat_server.requests[0].body["messages"][0]["content"]
    assert "Restaurant booking agent." in prompt and "Write 5 varied scenarios" in prompt
    adk = await generate_scenarios(client_for(chat_server), "Restaurant booking agent.", count=1, dialect="adk")
    assert len(adk) == 1 and adk[0].dialect == "adk" and adk[0].conversation_plan == "For 2 at 8pm."
    assert len(scenario_eval_id(adk[0])) == 8


async def test_generate_scenarios_rejects_useless_answers(chat_server: ChatServer) -> None:
    from agentgauge.judges import JudgeError

    chat_server.queue(ok('{"scenarios": []}'))
    with pytest.raises(JudgeError, match="no scenario"):
        await generate_scenarios(client_for(chat_server), "agent", count=2)
