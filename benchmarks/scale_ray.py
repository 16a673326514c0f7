"""Simulated agents at high concurrency on the local engine and on Ray actors: wall time against the ideal.

N one-turn cases; the agent sleeps ``--latency`` seconds, then answers with one tool call (scored with
``tool_trajectory_avg_score``). For each parallelism P the ideal wall is ``ceil(N / P) x latency`` (FIFO dispatch, zero
overhead). Ray runs start a local Ray instance once (not timed) and report the run's wall (``evaluate``: actor start,
dispatch, results) and the dispatch alone (first case sent to last result received).

    python benchmarks/scale_ray.py --cases 2000 --latency 0.05 --parallelism 200,2000 --actors 2
"""

from __future__ import annotations

import argparse
import json
import math
import tempfile
import time
from pathlib import Path
from typing import Any

AGENT = """
import asyncio
from agentgauge.agents import AgentOutput
from agentgauge.model import Message, Tool


async def agent(request):
    await asyncio.sleep({latency})
    answer = Message(role="assistant", content="done")
    return AgentOutput(final_response=answer, tools=[Tool(name="lookup", arguments={{"q": 1}})])
"""


def _write(folder: Path, cases: int, latency: float) -> tuple[Path, Path]:
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "go"},
        "finalResponse": {"role": "assistant", "content": "done"},
        "tools": [{"name": "lookup", "arguments": {"q": 1}}],
    }
    doc = {"evalSetId": "sim", "evalCases": [{"evalId": f"c{i:05d}", "conversation": [turn]} for i in range(cases)]}
    (folder / "sim.evalset.json").write_text(json.dumps(doc), encoding="utf-8")
    agent = folder / "sim_agent.py"
    agent.write_text(AGENT.format(latency=latency), encoding="utf-8")
    return folder / "sim.evalset.json", agent


def _run(set_path: Path, agent: Path, parallelism: int, executor: Any) -> tuple[float, int]:
    from agentgauge import AgentEvaluator
    from agentgauge.agents import load_agent
    from agentgauge.formats import load_eval_set
    from agentgauge.model import EvalMetric
    from agentgauge.service import LoadedEvalSet
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryMetricManager

    metrics = InMemoryMetricManager()
    metrics.put_all("sim", "sim", [EvalMetric(metric_name="tool_trajectory_avg_score", threshold=1.0)])
    evaluator = AgentEvaluator(
        "sim",
        load_agent(str(agent)) if executor is None else None,
        eval_set_manager=LoadedEvalSet(load_eval_set(set_path)),
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        parallelism=parallelism,
        executor=executor,
    )
    start = time.perf_counter()
    outcome = evaluator.evaluate_sync("sim")
    wall = time.perf_counter() - start
    passed = sum(1 for c in outcome.eval_set_result.eval_case_results if c.final_eval_status.value == "passed")
    return wall, passed


def main() -> int:
    """Measure and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--parallelism", default="200,2000")
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3, help="runs per setting; the median is reported")
    args = parser.parse_args()
    import ray

    from agentgauge.distributed import RayExecutor

    folder = Path(tempfile.mkdtemp(prefix="agentgauge-scale-ray-"))
    set_path, agent = _write(folder, args.cases, args.latency)
    began = time.perf_counter()
    ray.init(include_dashboard=False, log_to_driver=False)
    print(f"ray.init: {time.perf_counter() - began:.1f} s; cluster CPUs: {ray.cluster_resources().get('CPU')}")
    print("| executor | P | ideal s | wall s (run) | wall / ideal | dispatch s | dispatch / ideal | cases passed |")
    print("|---|---|---|---|---|---|---|---|")
    for p in (int(x) for x in args.parallelism.split(",")):
        ideal = math.ceil(args.cases / p) * args.latency
        for name in ("local", "ray"):
            walls, dispatches = [], []
            for _ in range(args.repeats):
                executor = RayExecutor(agent_spec=str(agent), num_actors=args.actors) if name == "ray" else None
                wall, passed = _run(set_path, agent, p, executor)
                walls.append(wall)
                dispatches.append(executor.timings["dispatch"] if executor is not None else wall)
            wall, dispatch = sorted(walls)[len(walls) // 2], sorted(dispatches)[len(dispatches) // 2]
            shown = f"ray ({args.actors} actors x {math.ceil(p / args.actors)})" if name == "ray" else "local"
            print(
                f"| {shown} | {p} | {ideal:.2f} | {wall:.2f} | {wall / ideal:.1f}x | {dispatch:.2f} | "
                f"{dispatch / ideal:.1f}x | {passed} |",
                flush=True,
            )
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
