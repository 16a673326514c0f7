"""Run the simulation example through the Python API and print each simulated conversation with its scores.

    python examples/simulation/show_conversation.py

Same run as ``agentgauge eval examples/simulation/agent.py examples/simulation/trip.evalset.json --user-simulator
examples/simulation/simulator.py --expected-agent examples/simulation/reference_agent.py``, with the
``user_simulator`` and ``expected_agent`` arguments of :class:`agentgauge.AgentEvaluator`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # agent.py, reference_agent.py and simulator.py sit beside this script

from agent import root_agent  # noqa: E402
from reference_agent import root_agent as reference_agent  # noqa: E402
from simulator import user_simulator  # noqa: E402

from agentgauge import AgentEvaluator, load_eval_set, load_metrics  # noqa: E402
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager  # noqa: E402


async def main() -> None:
    """Evaluate the trip set and print the conversations."""
    eval_set = load_eval_set(HERE / "trip.evalset.json")
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("trip_app", eval_set)
    metrics.put_all("trip_app", eval_set.eval_set_id, load_metrics(HERE / "trip.metrics.json"))
    evaluator = AgentEvaluator(
        "trip_app",
        root_agent,
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        user_simulator=user_simulator,
        expected_agent=reference_agent,
    )
    result = await evaluator.evaluate(eval_set.eval_set_id)
    assert result.eval_set_result is not None
    for case in result.eval_set_result.eval_case_results:
        sim = case.simulation
        how = (
            f"{sim.dialect} scenario, driver {sim.driver}, {sim.turns} user turns, ended by {sim.stop_reason}"
            if sim
            else "fixed conversation"
        )
        print(f"== {case.eval_id} ({how}): {case.final_eval_status.value}")
        for turn in case.eval_metric_result_per_invocation:
            actual = turn.actual_invocation
            print(f"  user:  {actual.user_content.content}")
            for tool in actual.tools:
                print(f"  tool:  {tool.name}({tool.arguments}) -> {tool.result}")
            print(f"  agent: {actual.final_response.content if actual.final_response else ''}")
        scores = ", ".join(
            f"{m.metric_name} {m.score:.4g}" for m in case.overall_eval_metric_results if m.score is not None
        )
        print(f"  scores: {scores}")


if __name__ == "__main__":
    asyncio.run(main())
