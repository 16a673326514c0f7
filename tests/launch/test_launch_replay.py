"""A replay request through ``launch.evaluate``: ``replay_fidelity`` scores first, a set without replay cases and
recorded traces are refused, each naming the option as the caller spells it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.launch import EvalRequest, MetricOptions, evaluate
from agentgauge.storage import InMemoryEvalResultManager

REPLAY = Path(__file__).resolve().parents[2] / "examples" / "replay"


async def test_a_replay_request_scores_replay_fidelity_first() -> None:
    request = EvalRequest(
        agent=str(REPLAY / "agent_skips_check.py"),
        sets=(str(REPLAY / "calculator_replay.evalset.json"),),
        metrics=MetricOptions(replay=True),
        results=InMemoryEvalResultManager(),
    )
    [outcome] = await evaluate(request)
    [case] = outcome.eval_set_result.eval_case_results
    names = [m.metric_name for m in case.overall_eval_metric_results]
    assert names == ["replay_fidelity", "tool_trajectory_avg_score", "final_response_avg_score"]
    assert case.overall_eval_metric_results[0].score == pytest.approx(2 / 3)


async def test_replay_needs_replay_cases_and_an_agent() -> None:
    plain = EvalRequest(
        agent=str(REPLAY / "agent.py"),
        sets=(str(REPLAY / "calculator.evalset.json"),),
        metrics=MetricOptions(replay=True),
        results=InMemoryEvalResultManager(),
    )
    with pytest.raises(InputError, match=r"^replay: no selected case of .* is a replay case"):
        await evaluate(plain)
    traces = EvalRequest(traces=REPLAY.parent / "traces", metrics=MetricOptions(replay=True))
    with pytest.raises(InputError, match="replay runs an agent on replay cases"):
        await evaluate(traces)
