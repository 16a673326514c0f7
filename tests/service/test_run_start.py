"""The moment a run is under way: ``bounded_each`` says when every worker has begun its first item, and
``AgentEvaluator(on_start=...)`` is called then, once (the CLI prints its header there, so importing the console
overlaps the agents' time)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from svc_fakes import case, exact_answer_evaluator, inv

from agentgauge.agents import AgentRequest
from agentgauge.model import EvalCase
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.service import Emit, ExecutionJob, LocalExecutor, WorkItem, bounded_each


@pytest.mark.parametrize(("count", "limit"), [(10, 4), (2, 4), (0, 3)])
async def test_started_comes_once_every_worker_has_begun_its_first_item(count: int, limit: int) -> None:
    begun: list[int] = []
    calls: list[list[int]] = []
    release = asyncio.Event()

    async def work(item: int) -> None:
        begun.append(item)
        await release.wait()

    def started() -> None:
        calls.append(list(begun))
        release.set()

    await bounded_each(work, range(count), limit, started=started)
    assert calls == [list(range(min(count, limit)))]
    assert begun == list(range(count))


def _case(eval_id: str) -> EvalCase:
    return case(eval_id, inv(f"{eval_id}-0", f"echo: {eval_id}-0"))


def _evaluator(agent: object, on_start: Any, executor: Any = None, cases: int = 3) -> AgentEvaluator:
    evaluator: AgentEvaluator = exact_answer_evaluator(
        [_case(f"c{i}") for i in range(cases)], agent, parallelism=2, on_start=on_start, executor=executor
    )
    return evaluator


async def test_on_start_is_called_once_while_the_first_cases_wait_for_their_agent() -> None:
    calls: list[int] = []
    agent_calls: list[str] = []

    async def agent(request: AgentRequest) -> str:
        agent_calls.append(request.user_content.content)
        await asyncio.sleep(0.01)
        return f"echo: {request.user_content.content}"

    def on_start() -> None:
        calls.append(len(agent_calls))

    outcome = await _evaluator(agent, on_start).evaluate("set")
    assert calls == [2]  # both workers' agents were called, none had answered
    assert outcome.eval_set_result.eval_case_results[0].final_eval_status.value == "passed"


class _SilentExecutor:
    """An executor that never reports its start (a third-party one, say)."""

    async def execute(self, job: ExecutionJob, items: Iterable[WorkItem], emit: Emit) -> None:
        quiet = ExecutionJob(**{**vars(job), "started": None})
        await LocalExecutor().execute(quiet, items, emit)


async def test_on_start_still_comes_when_the_executor_never_reports_it() -> None:
    calls: list[str] = []

    async def agent(request: AgentRequest) -> str:
        return f"echo: {request.user_content.content}"

    outcome = await _evaluator(agent, lambda: calls.append("start"), executor=_SilentExecutor()).evaluate("set")
    assert calls == ["start"]
    assert len(outcome.eval_set_result.eval_case_results) == 3


async def test_a_failing_on_start_is_reported_and_the_run_goes_on() -> None:
    reported: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))

    async def agent(request: AgentRequest) -> str:
        return f"echo: {request.user_content.content}"

    def on_start() -> None:
        raise RuntimeError("header failed")

    outcome = await _evaluator(agent, on_start).evaluate("set")
    assert [str(c["exception"]) for c in reported] == ["header failed"]
    assert all(r.final_eval_status.value == "passed" for r in outcome.eval_set_result.eval_case_results)
