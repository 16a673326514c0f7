"""The Ray executor on a real local Ray instance: same scores as the local engine, a killed worker's cases are
retried, and the cluster-wide rate limiter holds its rate and concurrency across two actors."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from agentgauge import AgentEvaluator
from agentgauge.distributed import RateLimit, RayExecutor
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.model import EvalStatus
from agentgauge.run._evaluator import EvaluationResult
from agentgauge.service import LoadedEvalSet
from agentgauge.storage import InMemoryEvalResultManager, InMemoryMetricManager

REPLAY_AGENT = """
import asyncio, json
from agentgauge.agents import AgentOutput
from agentgauge.model import Message, Tool

with open({replay!r}, encoding="utf-8") as fh:
    SCRIPT = json.load(fh)


async def agent(request):
    turn = SCRIPT[request.user_content.content]
    await asyncio.sleep({latency})
    return AgentOutput(
        final_response=Message(role="assistant", content=turn["answer"]),
        tools=[Tool.model_validate(t) for t in turn["tools"]],
    )
"""

CLOCK_AGENT = """
import asyncio, os, time
from agentgauge.agents import AgentOutput
from agentgauge.model import Message


async def agent(request):
    start = time.time()
    await asyncio.sleep({latency})
    return AgentOutput(final_response=Message(role="assistant", content=f"{{os.getpid()}} {{start}} {{time.time()}}"))
"""


def _agent_file(folder: Path, name: str, source: str) -> str:
    path = folder / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return str(path)


def _evaluator(
    set_path: Path, metrics_path: Path | None, agent: object, executor: object, **options: Any
) -> AgentEvaluator:
    eval_set = load_eval_set(set_path)
    metrics = InMemoryMetricManager()
    if metrics_path is not None:
        metrics.put_all("bench", eval_set.eval_set_id, load_metrics(metrics_path))
    return AgentEvaluator(
        "bench",
        agent,
        eval_set_manager=LoadedEvalSet(eval_set),
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        executor=executor,  # type: ignore[arg-type]
        **options,
    )


def _scores(outcome: EvaluationResult) -> dict[tuple[str, int], Any]:
    return {
        (c.eval_id, c.run_id): (
            c.final_eval_status,
            c.error_message,
            [(m.metric_name, m.score, m.eval_status) for m in c.overall_eval_metric_results],
            [[(m.metric_name, m.score) for m in p.eval_metric_results] for p in c.eval_metric_result_per_invocation],
        )
        for c in outcome.eval_set_result.eval_case_results
    }


def test_same_scores_as_the_local_executor(ray_cluster: Any, bench: dict[str, Path]) -> None:
    from agentgauge.agents import load_agent

    spec = _agent_file(bench["dir"], "replay_fast", REPLAY_AGENT.format(replay=str(bench["replay"]), latency=0.01))
    local = _evaluator(bench["set"], bench["metrics"], load_agent(spec), None, parallelism=8, num_runs=2)
    expected = local.evaluate_sync(load_eval_set(bench["set"]).eval_set_id)
    executor = RayExecutor(agent_spec=spec, num_actors=2)
    started: list[int] = []  # how many workers were up when the run said it had started
    on_start = lambda: started.append(len(executor.worker_pids))  # noqa: E731
    remote = _evaluator(bench["set"], bench["metrics"], None, executor, parallelism=8, num_runs=2, on_start=on_start)
    got = remote.evaluate_sync(load_eval_set(bench["set"]).eval_set_id)

    assert len(executor.worker_pids) == 2 and os.getpid() not in executor.worker_pids
    assert started == [2]
    assert _scores(got) == _scores(expected)
    assert len(_scores(got)) == 80  # 40 cases x 2 runs
    assert got.eval_set_result.summary == expected.eval_set_result.summary
    statuses = {status for status, *_ in _scores(got).values()}
    assert statuses == {EvalStatus.PASSED, EvalStatus.FAILED}  # real scores, not a uniform outcome
    # The driver stopped only what it started: the session of the fixture is still up.
    assert ray_cluster.is_initialized()


def test_a_killed_workers_cases_are_retried(ray_cluster: Any, bench: dict[str, Path]) -> None:
    from agentgauge.agents import load_agent

    spec = _agent_file(bench["dir"], "replay_slow", REPLAY_AGENT.format(replay=str(bench["replay"]), latency=0.15))
    executor = RayExecutor(agent_spec=spec, num_actors=2)
    done: list[int] = []
    evaluator = _evaluator(
        bench["set"], bench["metrics"], None, executor, parallelism=8, progress=lambda d, t: done.append(d)
    )
    set_id = load_eval_set(bench["set"]).eval_set_id

    async def run() -> EvaluationResult:
        task = asyncio.ensure_future(evaluator.evaluate(set_id))
        while not (executor.worker_pids and len(done) > 4):  # mid-run: some cases finished, others in flight
            await asyncio.sleep(0.02)
        os.kill(executor.worker_pids[0], signal.SIGKILL)
        return await task

    outcome = asyncio.run(run())
    results = outcome.eval_set_result.eval_case_results
    assert executor.retried >= 1
    assert sorted(r.eval_id for r in results) == sorted(c.eval_id for c in load_eval_set(bench["set"]).eval_cases)
    assert [r.error_message for r in results if r.error_message] == []  # every case ran to a score
    local = _evaluator(bench["set"], bench["metrics"], load_agent(spec), None)
    assert _scores(outcome) == _scores(local.evaluate_sync(set_id))


def _clock_set(folder: Path, n: int) -> tuple[Path, Path]:
    """``n`` one-turn cases and a metric that passes any answer, so each answer is saved with the result."""
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "hi"},
        "finalResponse": {"role": "assistant", "content": "hello"},
    }
    cases = [{"evalId": f"c{i:02d}", "conversation": [turn]} for i in range(n)]
    path = folder / "clock.evalset.json"
    path.write_text(json.dumps({"evalSetId": "clock", "evalCases": cases}), encoding="utf-8")
    metrics = folder / "clock.metrics.json"
    metrics.write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.0}]), encoding="utf-8")
    return path, metrics


def _answers(outcome: EvaluationResult) -> list[tuple[int, float, float]]:
    """(worker pid, start, end) of every agent call, from the answers of the clock agent saved as actuals."""
    calls = []
    for case in outcome.eval_set_result.eval_case_results:
        assert case.error_message is None, case.error_message
        for inv in case.eval_metric_result_per_invocation:
            assert inv.actual_invocation.final_response is not None
            pid, start, end = inv.actual_invocation.final_response.content.split()
            calls.append((int(pid), float(start), float(end)))
    return calls


def test_rate_limiter_holds_the_rate_across_two_actors(ray_cluster: Any, tmp_path: Path) -> None:
    spec = _agent_file(tmp_path, "clock", CLOCK_AGENT.format(latency=0.05))
    rpm = 600.0  # one call start every 0.1 s, whichever actor makes it
    executor = RayExecutor(agent_spec=spec, num_actors=2, rate_limits={"agent": RateLimit(requests_per_minute=rpm)})
    got = _evaluator(*_clock_set(tmp_path, 16), None, executor, parallelism=16).evaluate_sync("clock")
    calls = _answers(got)

    assert len(calls) == 16
    assert len({pid for pid, _, _ in calls}) == 2  # both actors made calls
    starts = sorted(start for _, start, _ in calls)
    # Admissions are spaced exactly by the limiter actor; what the agents see adds the message delay to the worker
    # (a few ms; on a loaded machine up to a few hundred). A delay only makes a call start later, so the k-th call
    # to start can never start sooner than k intervals after the first admission: check that bound, which a late
    # call in the middle cannot break (comparing neighbouring calls would count its delay twice); 0.25 s allows for
    # the first call's own delay.
    interval = 60 / rpm
    early = [(k, round(s - starts[0], 3)) for k, s in enumerate(starts) if s - starts[0] < k * interval - 0.25]
    assert not early, early  # (call, seconds after the first): started before the rate allowed


def test_rate_limiter_bounds_concurrent_calls_across_two_actors(ray_cluster: Any, tmp_path: Path) -> None:
    spec = _agent_file(tmp_path, "clock2", CLOCK_AGENT.format(latency=0.2))
    executor = RayExecutor(agent_spec=spec, num_actors=2, rate_limits={"agent": RateLimit(max_concurrent=2)})
    got = _evaluator(*_clock_set(tmp_path, 10), None, executor, parallelism=10).evaluate_sync("clock")
    calls = _answers(got)

    assert len({pid for pid, _, _ in calls}) == 2
    events = sorted([(start, 1) for _, start, _ in calls] + [(end, -1) for _, _, end in calls])
    running = peak = 0
    for _, step in events:
        running += step
        peak = max(peak, running)
    assert peak == 2  # 10 calls were ready at once; never more than 2 ran, on either actor
    assert max(end for _, _, end in calls) - min(start for _, start, _ in calls) >= 5 * 0.2 - 0.02


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_interrupted_run_keeps_finished_cases_and_stops_its_actors(ray_cluster: Any, bench: dict[str, Path]) -> None:
    spec = _agent_file(bench["dir"], "replay_stop", REPLAY_AGENT.format(replay=str(bench["replay"]), latency=0.2))
    executor = RayExecutor(agent_spec=spec, num_actors=2)
    done: list[int] = []
    evaluator = _evaluator(
        bench["set"], bench["metrics"], None, executor, parallelism=4, progress=lambda d, t: done.append(d)
    )

    async def run() -> EvaluationResult:
        task = asyncio.ensure_future(evaluator.evaluate(load_eval_set(bench["set"]).eval_set_id))
        while len(done) < 4:  # (0, total) first, then three finished cases
            await asyncio.sleep(0.02)
        evaluator.interrupt()  # what Ctrl-C does on the command line
        return await task

    outcome = asyncio.run(run())
    saved = outcome.eval_set_result.eval_case_results
    assert outcome.interrupted and 3 <= len(saved) < 40
    assert all(case.error_message is None for case in saved)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in executor.worker_pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(pid) for pid in executor.worker_pids)  # the run's actors were stopped
    assert ray_cluster.is_initialized()  # a session the run did not start is left running
