"""How a run orders its work: scoring waits its turn behind the agents' next turns (OneAtATime), the cases with
the most turns start first (dispatch_order), and the collector's middle generation is collected less often while a
run is in progress."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from svc_fakes import case, exact_answer_evaluator, inv

from agentgauge.agents import AgentRequest
from agentgauge.model import ConversationScenario, EvalCase
from agentgauge.run._collector import LONGEST_FIRST_WINDOW, dispatch_order, expected_turns
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.service._pool import OneAtATime


async def test_one_at_a_time_lets_one_waiter_go_per_loop_iteration_in_order() -> None:
    turns = OneAtATime()
    events: list[str] = []

    async def scorer(name: str) -> None:
        await turns.wait()
        events.append(name)

    async def agent_step() -> None:
        # Ready in the same iteration as the scorers: runs before all but the first of them.
        await asyncio.sleep(0)
        events.append("agent")

    await asyncio.gather(scorer("s1"), scorer("s2"), scorer("s3"), agent_step())
    assert events == ["agent", "s1", "s2", "s3"]


async def test_other_ready_steps_run_between_two_turns() -> None:
    turns = OneAtATime()
    events: list[str] = []

    async def scorer(name: str) -> None:
        await turns.wait()
        events.append(name)

    async def agent_steps() -> None:
        for step in range(3):
            await asyncio.sleep(0)
            events.append(f"agent{step}")

    await asyncio.gather(scorer("s1"), scorer("s2"), agent_steps())
    # One scorer per loop iteration, each behind the agent step that was ready with it.
    assert events == ["agent0", "s1", "agent1", "s2", "agent2"]


async def test_a_cancelled_waiter_gives_its_turn_to_the_next() -> None:
    turns = OneAtATime()
    done: list[str] = []

    async def scorer(name: str) -> None:
        await turns.wait()
        done.append(name)

    first = asyncio.ensure_future(scorer("first"))
    second = asyncio.ensure_future(scorer("second"))
    await asyncio.sleep(0)  # both are waiting
    first.cancel()
    await asyncio.gather(first, second, return_exceptions=True)
    assert done == ["second"]
    # The turnstile is idle again and can be used afterwards.
    await turns.wait()


def _case(eval_id: str, turns: int) -> EvalCase:
    return case(eval_id, *(inv(f"{eval_id}-{i}", f"echo: {eval_id}-{i}") for i in range(turns)))


def test_expected_turns_of_each_kind_of_case() -> None:
    assert expected_turns(_case("a", 3)) == 3
    assert expected_turns(EvalCase(eval_id="t", eval_mode="trace", conversation=[inv("q", "a")])) == 0
    limited = ConversationScenario(starting_prompt="hi", max_allowed_invocations=7, stop_signal="bye")
    assert expected_turns(EvalCase(eval_id="s", conversation_scenario=limited)) == 7
    adk = ConversationScenario(starting_prompt="hi", conversation_plan="ask once")
    assert expected_turns(EvalCase(eval_id="s", conversation_scenario=adk)) == 20


def test_longest_cases_start_first_and_equal_lengths_keep_their_order() -> None:
    cases = [_case("one", 1), _case("three", 3), _case("two", 2), _case("three-b", 3), _case("one-b", 1)]
    order = list(dispatch_order(cases, parallelism=4))
    assert [cases[i].eval_id for i in order] == ["three", "three-b", "two", "one", "one-b"]
    # One case at a time: the eval set's order (the total time is the same either way).
    assert list(dispatch_order(cases, parallelism=1)) == [0, 1, 2, 3, 4]


def test_reordering_stays_within_windows_so_few_results_wait() -> None:
    cases = [_case(f"c{i}", 1 if i < LONGEST_FIRST_WINDOW else 2) for i in range(LONGEST_FIRST_WINDOW + 3)]
    order = list(dispatch_order(cases, parallelism=8))
    assert order[:LONGEST_FIRST_WINDOW] == list(range(LONGEST_FIRST_WINDOW))
    assert sorted(order[LONGEST_FIRST_WINDOW:]) == list(range(LONGEST_FIRST_WINDOW, LONGEST_FIRST_WINDOW + 3))


class _StartOrder:
    """Answers every turn at once and records which case each first turn belongs to."""

    def __init__(self) -> None:
        self.first_turns: list[str] = []

    async def __call__(self, request: AgentRequest) -> str:
        if not request.history:
            self.first_turns.append(request.user_content.content.split("-")[0])
        await asyncio.sleep(0)
        return f"echo: {request.user_content.content}"


def _evaluator(cases: list[EvalCase], agent: object, parallelism: int) -> AgentEvaluator:
    evaluator: AgentEvaluator = exact_answer_evaluator(cases, agent, parallelism=parallelism)
    return evaluator


async def test_a_run_starts_long_conversations_first_and_saves_results_in_eval_set_order() -> None:
    cases = [_case("a", 1), _case("b", 3), _case("c", 2), _case("d", 3)]
    agent = _StartOrder()
    outcome = await _evaluator(cases, agent, parallelism=2).evaluate("set")
    assert agent.first_turns == ["b", "d", "c", "a"]
    assert [r.eval_id for r in outcome.eval_set_result.eval_case_results] == ["a", "b", "c", "d"]
    assert all(r.final_eval_status.value == "passed" for r in outcome.eval_set_result.eval_case_results)


async def test_the_middle_generation_is_collected_less_often_during_a_run_only() -> None:
    before = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []

    async def agent(request: AgentRequest) -> str:
        seen.append(gc.get_threshold())
        return f"echo: {request.user_content.content}"

    await _evaluator([_case("a", 1)], agent, parallelism=2).evaluate("set")
    assert seen and seen[0][1] >= 100 and seen[0][0] == before[0]
    assert gc.get_threshold() == before


@pytest.mark.parametrize("parallelism", [1, 3])
async def test_every_case_runs_once_whatever_the_order(parallelism: int) -> None:
    cases = [_case(f"c{i}", 1 + i % 3) for i in range(7)]
    agent = _StartOrder()
    outcome = await _evaluator(cases, agent, parallelism=parallelism).evaluate("set")
    assert sorted(agent.first_turns) == sorted(c.eval_id for c in cases)
    assert [r.eval_id for r in outcome.eval_set_result.eval_case_results] == [c.eval_id for c in cases]
