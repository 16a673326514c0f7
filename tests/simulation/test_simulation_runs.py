"""Scenario cases and the expected runner through the run engine, with scripted simulated users."""

from __future__ import annotations

from typing import Any

from agentgauge import AgentEvaluator
from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import EvalCaseResult, EvalMetric, EvalSet, EvalStatus, Tool
from agentgauge.simulation import ScriptedUserSimulator, SimulationContext, SimulationSettings, UserTurn
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


def echo(request: AgentRequest) -> str:
    return f"echo {len(request.history) + 1}: {request.user_content.content}"


async def _run(
    cases: list[dict[str, Any]],
    agent: Any = echo,
    *,
    metrics: list[EvalMetric] | None = None,
    **kwargs: Any,
) -> dict[str, EvalCaseResult]:
    eval_set = EvalSet.model_validate({"evalSetId": "s", "evalCases": cases})
    sets, metric_manager = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", eval_set)
    metric_manager.put_all("app", "s", metrics or [])
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=metric_manager,
        result_manager=InMemoryEvalResultManager(),
        **kwargs,
    )
    result = await evaluator.evaluate("s")
    assert result.eval_set_result is not None
    return {case.eval_id: case for case in result.eval_set_result.eval_case_results}


def _users(case: EvalCaseResult) -> list[str]:
    return [turn.actual_invocation.user_content.content for turn in case.eval_metric_result_per_invocation]


def _trpc(eval_id: str, **scenario: Any) -> dict[str, Any]:
    return {"evalId": eval_id, "conversationScenario": {"conversationPlan": "plan", **scenario}}


def _adk(eval_id: str, **scenario: Any) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "conversation_scenario": {"starting_prompt": "start", "conversation_plan": "plan", **scenario},
    }


async def test_trpc_stop_signal_ends_only_on_an_exact_message() -> None:
    script = ["a", "thanks </done>", " </DONE> ", "never sent"]
    results = await _run([_trpc("c", stopSignal="</done>", startingPrompt="hello")], user_simulator=script)
    case = results["c"]
    assert case.error_message is None
    assert _users(case) == ["hello", "a", "thanks </done>"]
    assert case.simulation is not None
    assert (case.simulation.dialect, case.simulation.turns, case.simulation.stop_reason) == ("trpc", 3, "stop_signal")
    # The simulated conversation is the case's actual conversation, with the agent's answers.
    replies = [t.actual_invocation.final_response.content for t in case.eval_metric_result_per_invocation]  # type: ignore[union-attr]
    assert replies == ["echo 1: hello", "echo 2: a", "echo 3: thanks </done>"]
    # Without an expected runner the expected side holds the user turns only.
    expected = [t.expected_invocation for t in case.eval_metric_result_per_invocation]
    assert all(e is not None and e.final_response is None and not e.tools for e in expected)


async def test_adk_stop_signal_ends_on_a_substring() -> None:
    results = await _run([_adk("c")], user_simulator=["a", "ok, thanks </finished>", "never sent"])
    assert _users(results["c"]) == ["start", "a"]
    assert results["c"].simulation.stop_reason == "stop_signal"  # type: ignore[union-attr]


async def test_turn_limits() -> None:
    endless = [f"m{i}" for i in range(50)]
    results = await _run(
        [_adk("adk"), _trpc("trpc", stopSignal="x", maxAllowedInvocations=3), _trpc("none", maxAllowedInvocations=2)],
        user_simulator=endless,
    )
    assert len(_users(results["adk"])) == 20  # ADK default, the starting prompt counts
    assert _users(results["trpc"]) == ["m0", "m1", "m2"]  # no startingPrompt: the simulator writes turn 1
    assert results["trpc"].simulation.stop_reason == "turn_limit"  # type: ignore[union-attr]
    assert len(_users(results["none"])) == 2
    limited = await _run([_adk("adk")], user_simulator=endless, simulation=SimulationSettings(max_turns=4))
    assert len(_users(limited["adk"])) == 4


async def test_scripted_simulator_per_case_and_simulator_stop() -> None:
    simulator = ScriptedUserSimulator({"a": ["one"], "b": []})
    results = await _run([_adk("a"), _adk("b")], user_simulator=simulator)
    assert _users(results["a"]) == ["start", "one"]
    assert results["a"].simulation.stop_reason == "simulator"  # type: ignore[union-attr]
    assert _users(results["b"]) == ["start"]


async def test_function_simulator_sees_the_agent_reply_and_history() -> None:
    seen: list[tuple[int, str, int]] = []

    def user(context: SimulationContext, turn: UserTurn) -> str | None:
        seen.append((turn.index, turn.last_agent_message, len(turn.history)))
        assert context.eval_id == "c" and context.rules.plan == "plan"
        return "again" if turn.index < 2 else "</finished>"

    await _run([_adk("c")], user_simulator=user)
    assert seen == [(1, "echo 1: start", 1), (2, "echo 2: again", 2)]


async def test_failures_are_case_errors() -> None:
    async def boom(context: SimulationContext, turn: UserTurn) -> str:
        raise RuntimeError("simulator down")

    results = await _run(
        [
            _adk("no_sim"),
            _trpc("bad", maxAllowedInvocations=0),
            _trpc("nothing", stopSignal="x"),
        ],
        user_simulator=[],
    )
    assert "conversationScenario: stopSignal and maxAllowedInvocations cannot both be disabled" in str(
        results["bad"].error_message
    )
    assert results["nothing"].error_message == "the simulated user ended the conversation before the first turn"
    assert results["no_sim"].final_eval_status is EvalStatus.NOT_EVALUATED  # starting prompt, then the script ends
    failing = await _run([_adk("c")], user_simulator=boom)
    assert failing["c"].final_eval_status is EvalStatus.ERROR
    assert failing["c"].error_message == "user simulator failed on turn 2: RuntimeError: simulator down"
    missing = await _run([_adk("c")])
    assert "no user simulator for this conversationScenario case" in str(missing["c"].error_message)
    empty = await _run([_adk("c")], user_simulator=["  "])
    assert empty["c"].error_message == "user simulator returned an empty message on turn 2"


async def test_trpc_target_without_final_response_fails() -> None:
    def silent(request: AgentRequest) -> AgentOutput:
        return AgentOutput(final_response=None)

    results = await _run([_trpc("c", stopSignal="x", startingPrompt="hi")], silent, user_simulator=["more"])
    assert results["c"].error_message == "the agent gave no final response on simulated turn 1"
    adk = await _run([_adk("c")], silent, user_simulator=["more"])
    assert adk["c"].error_message is None  # ADK simply goes on


def reference(request: AgentRequest) -> AgentOutput:
    return AgentOutput(
        final_response=f"ref: {request.user_content.content}",
        tools=[Tool(id="t", name="lookup", arguments={"q": request.user_content.content}, result=1)],
    )


async def test_expected_runner_on_a_static_conversation_and_a_scenario() -> None:
    sessions: list[str] = []

    def tracked(request: AgentRequest) -> AgentOutput:
        sessions.append(request.session_id)
        return reference(request)

    cases = [
        {
            "evalId": "static",
            "expectedRunnerEnabled": True,
            "conversation": [{"userContent": {"content": "q1"}}, {"userContent": {"content": "q2"}}],
        },
        {**_trpc("actual_driver", stopSignal="x", startingPrompt="s"), "expectedRunnerEnabled": True},
    ]
    results = await _run(cases, echo, user_simulator=["x"], expected_agent=tracked)
    static = results["static"]
    assert static.error_message is None
    expected = [t.expected_invocation for t in static.eval_metric_result_per_invocation]
    assert [e.final_response.content for e in expected] == ["ref: q1", "ref: q2"]  # type: ignore[union-attr]
    assert all(s.endswith("-expected") for s in sessions)
    scenario = results["actual_driver"]
    assert [t.expected_invocation.final_response.content for t in scenario.eval_metric_result_per_invocation] == [  # type: ignore[union-attr]
        "ref: s"
    ]


async def test_driver_expected_lets_the_expected_agent_drive() -> None:
    replies: list[str] = []

    def user(context: SimulationContext, turn: UserTurn) -> str | None:
        replies.append(turn.last_agent_message)
        return "next" if turn.index < 2 else "x"

    case = _trpc("c", stopSignal="x", startingPrompt="s", driver="expected")
    results = await _run([case], echo, user_simulator=user, expected_agent=reference)
    assert replies == ["ref: s", "ref: next"]  # the simulated user talked to the expected agent
    result = results["c"]
    assert _users(result) == ["s", "next"]  # the agent replayed the same user turns
    assert [t.actual_invocation.final_response.content for t in result.eval_metric_result_per_invocation] == [  # type: ignore[union-attr]
        "echo 1: s",
        "echo 2: next",
    ]
    # expectedRunnerEnabled is not set: the expected side is user-only placeholders.
    assert all(t.expected_invocation.final_response is None for t in result.eval_metric_result_per_invocation)  # type: ignore[union-attr]
    assert result.simulation.driver == "expected"  # type: ignore[union-attr]
    without = await _run([case], echo, user_simulator=user)
    assert 'driver "expected" needs an expected agent' in str(without["c"].error_message)


async def test_expected_runner_enabled_without_expected_agent_fails_the_case() -> None:
    results = await _run(
        [{"evalId": "c", "expectedRunnerEnabled": True, "conversation": [{"userContent": {"content": "q"}}]}]
    )
    assert "expectedRunnerEnabled is set but no expected agent is configured" in str(results["c"].error_message)


async def test_trace_mode_with_expected_runner() -> None:
    case = {
        "evalId": "t",
        "evalMode": "trace",
        "expectedRunnerEnabled": True,
        "conversation": [
            {"userContent": {"content": "q"}, "finalResponse": {"role": "assistant", "content": "recorded"}}
        ],
    }
    results = await _run([case], None, expected_agent=reference)
    turn = results["t"].eval_metric_result_per_invocation[0]
    assert turn.actual_invocation.final_response.content == "recorded"  # type: ignore[union-attr]
    assert turn.expected_invocation.final_response.content == "ref: q"  # type: ignore[union-attr]


async def test_metrics_score_against_the_expected_agent() -> None:
    metric = EvalMetric.model_validate(
        {
            "metricName": "tool_trajectory_avg_score",
            "threshold": 1,
            "criterion": {"toolTrajectory": {"defaultStrategy": {"result": {"matchStrategy": "exact"}}}},
        }
    )
    cases = [{**_trpc("c", stopSignal="x", startingPrompt="s"), "expectedRunnerEnabled": True}]
    same = await _run(cases, reference, metrics=[metric], user_simulator=["x"], expected_agent=reference)
    assert same["c"].final_eval_status is EvalStatus.PASSED
    other = await _run(cases, echo, metrics=[metric], user_simulator=["x"], expected_agent=reference)
    assert other["c"].final_eval_status is EvalStatus.FAILED
