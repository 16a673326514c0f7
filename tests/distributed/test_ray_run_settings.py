"""The Ray executor with the run settings of the evaluator: prices and simulation settings reach the workers (same
results as the local executor), an interrupted run resumes on the cluster with its progress log, and an agent cache
is refused before anything starts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge import AgentEvaluator
from agentgauge.distributed import RayExecutor
from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.model import EvalCaseResult, EvalSet
from agentgauge.model._prices import ModelPrice, PriceTable
from agentgauge.run._evaluator import EvaluationResult
from agentgauge.run._resume import load_resume, progress_path
from agentgauge.service import Callbacks, ExecutionJob, LoadedEvalSet, RunOptions
from agentgauge.simulation import ScriptedUserSimulator
from agentgauge.storage import InMemoryEvalResultManager, InMemoryMetricManager, LocalEvalResultManager

USAGE_AGENT = """
import asyncio


async def agent(request):
    await asyncio.sleep({latency})
    return {{
        "final_response": f"echo {{len(request.history) + 1}}: {{request.user_content.content}}",
        "usage": {{"inputTokens": 1000, "outputTokens": 100, "model": "house-model"}},
    }}
"""

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

PRICES = PriceTable({"house-model": ModelPrice(input=2.0, output=10.0)})


def _spec(folder: Path, name: str, latency: float) -> str:
    path = folder / f"{name}.py"
    path.write_text(USAGE_AGENT.format(latency=latency), encoding="utf-8")
    return str(path)


def _scenario_set() -> EvalSet:
    cases = [
        {"evalId": f"s{i}", "conversation_scenario": {"starting_prompt": f"start {i}", "conversation_plan": "plan"}}
        for i in range(6)
    ]
    return EvalSet.model_validate({"evalSetId": "scenarios", "evalCases": cases})


def _run(agent: object, executor: object) -> dict[str, EvalCaseResult]:
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=LoadedEvalSet(_scenario_set()),
        metric_manager=InMemoryMetricManager(),
        result_manager=InMemoryEvalResultManager(),
        executor=executor,  # type: ignore[arg-type]
        parallelism=4,
        prices=PRICES,
        user_simulator=ScriptedUserSimulator({"s0": ["one", "two"], "s3": ["three"]}),
    )
    outcome = evaluator.evaluate_sync("scenarios")
    return {case.eval_id: case for case in outcome.eval_set_result.eval_case_results}


def _turns(case: EvalCaseResult) -> list[tuple[str, str | None, float | None]]:
    return [
        (
            turn.actual_invocation.user_content.content,
            turn.actual_invocation.final_response.content if turn.actual_invocation.final_response else None,
            turn.actual_invocation.usage.cost if turn.actual_invocation.usage else None,
        )
        for turn in case.eval_metric_result_per_invocation
    ]


def test_prices_and_the_user_simulator_reach_the_workers(ray_cluster: Any, tmp_path: Path) -> None:
    from agentgauge.agents import load_agent

    spec = _spec(tmp_path, "usage_agent", 0.0)
    local = _run(load_agent(spec), None)
    remote = _run(None, RayExecutor(agent_spec=spec, num_actors=2))

    assert {k: _turns(v) for k, v in remote.items()} == {k: _turns(v) for k, v in local.items()}
    assert [user for user, _, _ in _turns(remote["s0"])] == ["start 0", "one", "two"]  # the scripted user spoke
    assert _turns(remote["s3"])[1] == ("three", "echo 2: three", pytest.approx(0.003))  # 1000 x 2 + 100 x 10 / 1M
    assert all(case.error_message is None for case in remote.values())


def _bench_evaluator(bench: dict[str, Path], folder: Path, executor: RayExecutor, **options: Any) -> AgentEvaluator:
    eval_set = load_eval_set(bench["set"])
    metrics = InMemoryMetricManager()
    metrics.put_all("bench", eval_set.eval_set_id, load_metrics(bench["metrics"]))
    return AgentEvaluator(
        "bench",
        None,
        eval_set_manager=LoadedEvalSet(eval_set),
        metric_manager=metrics,
        result_manager=LocalEvalResultManager(base_dir=folder),
        executor=executor,
        parallelism=4,
        **options,
    )


def test_an_interrupted_ray_run_resumes_with_its_progress_log(
    ray_cluster: Any, bench: dict[str, Path], tmp_path: Path
) -> None:
    spec = str(tmp_path / "replay_resume.py")
    Path(spec).write_text(REPLAY_AGENT.format(replay=str(bench["replay"]), latency=0.2), encoding="utf-8")
    set_id = load_eval_set(bench["set"]).eval_set_id
    done: list[int] = []
    first = _bench_evaluator(
        bench, tmp_path, RayExecutor(agent_spec=spec, num_actors=2), progress=lambda d, t: done.append(d)
    )

    async def interrupted() -> EvaluationResult:
        task = asyncio.ensure_future(first.evaluate(set_id))
        while len(done) < 4:
            await asyncio.sleep(0.02)
        first.interrupt()
        return await task

    stopped = asyncio.run(interrupted())
    assert stopped.interrupted and stopped.result_path is not None
    kept = {(c.eval_id, c.run_id): c for c in stopped.eval_set_result.eval_case_results}
    assert 3 <= len(kept) < 40

    logged: list[list[bytes]] = []
    log = progress_path(stopped.result_path)

    def watch(finished: int, total: int) -> None:
        if finished == total:  # the last result is in the log by now
            logged.append(log.read_bytes().splitlines())

    state = load_resume(stopped.result_path)
    second = _bench_evaluator(bench, tmp_path, RayExecutor(agent_spec=spec, num_actors=2), progress=watch)
    resumed = asyncio.run(second.evaluate(set_id, resume=state))

    cases = resumed.eval_set_result.eval_case_results
    assert not resumed.interrupted and len(cases) == 40
    assert resumed.eval_set_result.eval_set_result_id == stopped.eval_set_result.eval_set_result_id
    for case in cases:
        if (case.eval_id, case.run_id) in kept:
            assert case == kept[(case.eval_id, case.run_id)]  # scored before: kept as it was, not run again
    [lines] = logged
    records = [EvalCaseResult.model_validate(orjson.loads(line)) for line in lines[1:]]
    assert len(records) == 40 - len(kept)  # one line per case run now, each a whole result
    assert {(r.eval_id, r.run_id) for r in records}.isdisjoint(kept)
    assert not log.exists()  # removed once the result file holds every case


def test_an_agent_cache_is_refused_before_ray_starts() -> None:
    options = RunOptions(parallelism=1, agent_cache=object())  # type: ignore[arg-type]
    job = ExecutionJob("app", "s", None, None, Callbacks(), options)  # type: ignore[arg-type]
    executor = RayExecutor(address="ray://unreachable.invalid:10001")
    with pytest.raises(InputError, match=r"agent cache \(--cache-agent\) is not available with the Ray executor"):
        asyncio.run(executor.execute(job, [], lambda item, result: None))


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _user_turns(folder: Path) -> dict[str, list[str]]:
    [path] = folder.rglob("*.evalset_result.json")
    doc = orjson.loads(path.read_bytes())
    return {
        case["evalId"]: [
            turn["actualInvocation"]["userContent"]["content"] for turn in case["evalMetricResultPerInvocation"]
        ]
        for case in doc["evalCaseResults"]
    }


def test_cli_simulation_files_are_loaded_in_the_workers(ray_cluster: Any, tmp_path: Path) -> None:
    # The simulator and expected-agent files define objects Ray cannot ship (their modules exist only in this
    # process): the workers build the simulation settings from the file names themselves.
    from typer.testing import CliRunner

    from agentgauge.cli import app

    sim = EXAMPLES / "simulation"
    args = [
        "eval",
        str(sim / "agent.py"),
        str(sim / "trip.evalset.json"),
        "--user-simulator",
        str(sim / "simulator.py"),
        "--expected-agent",
        str(sim / "reference_agent.py"),
    ]
    local = CliRunner().invoke(app, [*args, "--output-dir", str(tmp_path / "local")])
    remote = CliRunner().invoke(app, [*args, "--executor", "ray", "--output-dir", str(tmp_path / "ray")])
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    turns = _user_turns(tmp_path / "ray")
    assert turns == _user_turns(tmp_path / "local")
    assert turns["paris_trip"] == ["Hi, can you help me prepare a trip?", "I'm going to Paris.", "On friday."]


def test_cli_store_takes_the_results_of_a_ray_run(ray_cluster: Any, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentgauge.cli import app

    calc = EXAMPLES / "calculator"
    store = f"sqlite:///{tmp_path / 'results.db'}"
    args = ["eval", str(calc / "agent.py"), str(calc / "calculator.evalset.json"), "--executor", "ray", "--json"]
    ran = CliRunner().invoke(app, [*args, "--store", store])
    assert ran.exit_code == 0, ran.output
    result_id = orjson.loads(ran.stdout)["evalSetResultId"]
    shown = CliRunner().invoke(app, ["show", result_id, "--store", store, "--json"])
    assert shown.exit_code == 0, shown.output
    cases = orjson.loads(shown.stdout)["evalCaseResults"]
    assert sorted(c["evalId"] for c in cases) == sorted(c["evalId"] for c in _calculator_cases())
    assert all(c["finalEvalStatus"] == "passed" for c in cases)


def _calculator_cases() -> list[dict[str, Any]]:
    doc = orjson.loads((EXAMPLES / "calculator" / "calculator.evalset.json").read_bytes())
    cases: list[dict[str, Any]] = doc.get("evalCases") or doc["eval_cases"]
    return cases
