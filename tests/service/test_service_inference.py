"""Inference of one case: session, state, history, context messages, trace mode and isolated failures."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from svc_fakes import RecordingAgent, case, inv

from agentgauge.agents import AgentOutput, AgentRequest, as_agent
from agentgauge.model import EvalCase, EvalStatus, Message, SessionInput, Tool
from agentgauge.service import case_problem, infer_case, trace_invocations, turn_mismatches, user_only


async def _infer(agent: object, eval_case: EvalCase, timeout: float | None = None):  # type: ignore[no-untyped-def]
    return await infer_case(
        as_agent(agent) if agent is not None else None,
        eval_case,
        app_name="app",
        eval_set_id="set",
        session_id="sess-1",
        timeout=timeout,
    )


async def test_one_session_with_state_history_and_context_messages() -> None:
    agent = RecordingAgent()
    eval_case = case(
        "c1",
        inv("first", invocation_id="c1-1"),
        inv("second", invocation_id="c1-2", context_messages=[Message(role="system", content="turn ctx")]),
        context_messages=[Message(role="system", content="case ctx")],
    )
    result = await _infer(agent, eval_case)

    assert result.status is EvalStatus.PASSED
    assert (result.session_id, result.user_id, result.eval_case_id) == ("sess-1", "u", "c1")
    first, second = agent.requests
    assert [r.session_id for r in agent.requests] == ["sess-1", "sess-1"]
    assert [r.user_id for r in agent.requests] == ["u", "u"]
    # One state dict per session, initialised from sessionInput.state and shared across turns.
    assert first.state is second.state
    assert second.state == {"k": 1, "seen": 2}
    assert eval_case.session_input is not None and eval_case.session_input.state == {"k": 1}
    assert [m.content for m in first.context_messages] == ["case ctx"]
    assert [m.content for m in second.context_messages] == ["case ctx", "turn ctx"]
    assert first.history == []
    assert [h.final_response.content for h in second.history] == ["echo: first"]  # type: ignore[union-attr]

    actual = result.inferences
    assert [a.final_response.content for a in actual] == ["echo: first", "echo: second"]  # type: ignore[union-attr]
    assert [a.user_content.content for a in actual] == ["first", "second"]
    assert all(uuid.UUID(a.invocation_id) for a in actual)
    assert actual[0].tools[0].arguments == {"text": "first"}
    assert actual[1].context_messages == second.context_messages
    assert actual[0].creation_timestamp is not None


async def test_missing_session_input_uses_default_user() -> None:
    agent = RecordingAgent()
    result = await _infer(agent, case("c", inv("hi"), session_input=None))
    assert result.user_id == "user"
    assert agent.requests[0].state == {"seen": 1}


async def test_agent_exception_fails_the_case_and_clears_inferences() -> None:
    def agent(request: AgentRequest) -> str:
        if request.user_content.content == "bad":
            raise ValueError("boom")
        return "fine"

    result = await _infer(agent, case("c", inv("ok"), inv("bad", invocation_id="c-2")))
    assert result.status is EvalStatus.FAILED
    assert result.error_message == "agent failed on invocation 2 of 2 (c-2): ValueError: boom"
    assert result.inferences == []


async def test_garbage_output_fails_the_case() -> None:
    async def agent(request: AgentRequest) -> object:
        return 12345

    result = await _infer(agent, case("c", inv("x")))
    assert result.error_message is not None
    assert result.error_message.startswith("agent failed on invocation 1 of 1: agent returned int")


async def test_output_that_cannot_be_saved_fails_the_case() -> None:
    # Tool arguments are free-form; a value JSON cannot hold would otherwise break saving the whole run.
    async def agent(request: AgentRequest) -> AgentOutput:
        return AgentOutput(final_response="ok", tools=[Tool(id="t1", name="lookup", arguments={"when": object()})])

    result = await _infer(agent, case("c", inv("x"), inv("y")))
    assert result.status is EvalStatus.FAILED
    assert result.inferences == []
    assert result.error_message is not None
    assert result.error_message.startswith("agent failed on invocation 1 of 2: agent output cannot be saved as JSON: ")
    assert "object" in result.error_message


async def test_timeout_covers_the_whole_case() -> None:
    async def agent(request: AgentRequest) -> str:
        await asyncio.sleep(0.15)
        return "slow"

    result = await _infer(agent, case("c", inv("a"), inv("b")), timeout=0.2)
    assert result.status is EvalStatus.FAILED
    assert result.error_message == "inference timed out after 0.2 s"


async def test_agent_that_hangs_forever_is_cut_off() -> None:
    async def agent(request: AgentRequest) -> str:
        await asyncio.Event().wait()
        return "never"

    result = await asyncio.wait_for(_infer(agent, case("c", inv("a")), timeout=0.05), 2)
    assert result.error_message == "inference timed out after 0.05 s"


@pytest.mark.parametrize(
    ("kwargs", "has_agent", "problem"),
    [
        ({"conversation": [inv("a")]}, True, None),
        ({"conversation": [inv("a")]}, False, "no agent to run this case"),
        ({}, True, "case has neither conversation nor conversationScenario"),
        (
            {"conversation": [inv("a")], "conversation_scenario": {"conversationPlan": "p"}},
            True,
            "conversation and conversationScenario are mutually exclusive",
        ),
        ({"conversation_scenario": {"conversationPlan": "p"}}, True, None),  # scenario rules are checked at run time
        ({"conversation_scenario": {"conversationPlan": "p"}}, False, "no agent to run this case"),
        ({"conversation": [inv("a")], "actual_conversation": [inv("a")]}, True, "only allowed in trace mode"),
        ({"eval_mode": "trace", "conversation": [inv("a", "b")]}, False, None),
        ({"eval_mode": "trace"}, False, "trace-mode case has neither conversation nor actualConversation"),
        (
            {"eval_mode": "trace", "conversation": [inv("a")], "conversation_scenario": {"conversationPlan": "p"}},
            False,
            "conversationScenario is not allowed in trace mode",
        ),
        # different lengths are scored turn by turn (see test_trace_turn_mismatches), not refused
        ({"eval_mode": "trace", "conversation": [inv("a")], "actual_conversation": [inv("a"), inv("b")]}, False, None),
    ],
)
def test_case_problems(kwargs: dict[str, object], has_agent: bool, problem: str | None) -> None:
    eval_case = EvalCase(eval_id="c", session_input=SessionInput(user_id="u"), **kwargs)  # type: ignore[arg-type]
    found = case_problem(eval_case, has_agent=has_agent)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found


async def test_invalid_case_fails_without_calling_the_agent() -> None:
    agent = RecordingAgent()
    result = await _infer(agent, EvalCase(eval_id="c"))
    assert result.status is EvalStatus.FAILED
    assert result.error_message == "case has neither conversation nor conversationScenario"
    assert agent.requests == []


def test_trace_table() -> None:
    expected = [inv("q1", "expected 1", invocation_id="e1"), inv("q2", "expected 2", invocation_id="e2")]
    actual = [inv("q1", "actual 1", invocation_id="a1"), inv("q2", "actual 2", invocation_id="a2")]

    only_conv = EvalCase(eval_id="c", eval_mode="trace", conversation=expected)
    actuals, expecteds = trace_invocations(only_conv)
    assert actuals == expected
    assert expecteds == [user_only(i) for i in expected]
    assert expecteds[0].final_response is None and expecteds[0].invocation_id == "e1"

    only_actual = EvalCase(eval_id="c", eval_mode="trace", actual_conversation=actual)
    actuals, expecteds = trace_invocations(only_actual)
    assert actuals == actual
    assert [e.user_content.content for e in expecteds] == ["q1", "q2"]
    assert all(e.final_response is None and not e.tools for e in expecteds)

    both = EvalCase(eval_id="c", eval_mode="trace", conversation=expected, actual_conversation=actual)
    assert trace_invocations(both) == (actual, expected)
    assert turn_mismatches(both) == ([], [])


@pytest.mark.parametrize(
    ("recorded", "expected", "reasons", "extra"),
    [
        (1, 3, ["missing turn 2: expected user message 'q2' has no recorded turn (the recording has 1 turn(s), the "
                "expected conversation 3)", "missing turn 3: expected user message 'q3' has no recorded turn (the "
                "recording has 1 turn(s), the expected conversation 3)"], []),
        (2, 1, ["unexpected turn 2: recorded user message 'q2' has no expected turn (the recording has 2 turn(s), "
                "the expected conversation 1)"], ["a2"]),
    ],
)  # fmt: skip
def test_trace_turn_mismatches(recorded: int, expected: int, reasons: list[str], extra: list[str]) -> None:
    actual = [inv(f"q{n}", f"actual {n}", invocation_id=f"a{n}") for n in range(1, recorded + 1)]
    golden = [inv(f"q{n}", f"expected {n}", invocation_id=f"e{n}") for n in range(1, expected + 1)]
    both = EvalCase(eval_id="c", eval_mode="trace", conversation=golden, actual_conversation=actual)
    common = min(recorded, expected)
    assert trace_invocations(both) == (actual[:common], golden[:common])
    found, beyond = turn_mismatches(both)
    assert found == reasons
    assert [i.invocation_id for i in beyond] == extra


async def test_trace_mode_never_calls_the_agent() -> None:
    agent = RecordingAgent()
    trace_case = EvalCase(eval_id="t", eval_mode="trace", conversation=[inv("q", "recorded")])
    result = await _infer(agent, trace_case)
    assert result.status is EvalStatus.PASSED
    assert agent.requests == []
    assert result.inferences[0].final_response.content == "recorded"  # type: ignore[union-attr]
    assert (await _infer(None, trace_case)).status is EvalStatus.PASSED


async def test_agent_exception_keeps_the_traceback_and_the_finished_turns() -> None:
    from agentgauge._util.redact import clear_secrets, register_secret

    secret = "sk-test-0123456789abcdef"
    register_secret(secret)
    try:

        def agent(request: AgentRequest) -> str:
            if request.user_content.content == "bad":
                raise ValueError(f"boom with key {secret}")
            return "fine"

        result = await _infer(agent, case("c", inv("ok"), inv("bad", invocation_id="c-2")))
    finally:
        clear_secrets()
    assert result.inferences == []
    assert [i.final_response.content for i in result.partial_inferences] == ["fine"]  # type: ignore[union-attr]
    assert result.error_traceback is not None
    assert result.error_traceback.startswith("Traceback (most recent call last):")
    assert 'raise ValueError(f"boom with key {secret}")' in result.error_traceback  # the agent's own frame
    assert result.error_traceback.endswith("ValueError: boom with key ***")
    assert secret not in result.error_traceback


async def test_timeout_keeps_the_finished_turns() -> None:
    async def agent(request: AgentRequest) -> str:
        if request.user_content.content == "slow":
            await asyncio.sleep(5)
        return "quick"

    result = await _infer(agent, case("c", inv("fast"), inv("slow")), timeout=0.3)
    assert result.error_message == "inference timed out after 0.3 s"
    assert [i.user_content.content for i in result.partial_inferences] == ["fast"]
    assert result.error_traceback is None
