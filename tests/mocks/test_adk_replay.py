"""Replay on a real Google ADK LlmAgent (scripted model): a recorded run replayed against the same agent and against
one whose prompt changed the tool's arguments."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from test_adk_tool_mocks import CALLS, ScriptedLlm, get_weather

from agentgauge import AgentEvaluator
from agentgauge.mocks import replay_eval_set
from agentgauge.model import EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, EvalStatus
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


class ChangedPromptLlm(ScriptedLlm):
    """The same model after a prompt change: it now spells the city in capitals when it calls the tool."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        async for response in super().generate_content_async(llm_request, stream):
            for part in response.content.parts if response.content and response.content.parts else []:
                if part.function_call is not None and part.function_call.args:
                    part.function_call.args = {"city": str(part.function_call.args["city"]).upper()}
            yield response


SET = {
    "evalSetId": "weather",
    "evalCases": [
        {"evalId": "two_cities", "conversation": [{"userContent": {"content": c}} for c in ("Paris", "Oslo")]}
    ],
}
METRICS = [EvalMetric(metric_name="replay_fidelity", threshold=1.0)]


async def _run(eval_set: EvalSet, upper: bool, metrics: list[EvalMetric]) -> EvalCaseResult:
    model = ChangedPromptLlm(model="scripted") if upper else ScriptedLlm(model="scripted")
    agent = LlmAgent(name="weather", model=model, tools=[get_weather])
    sets, metric_store = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", eval_set)
    metric_store.put_all("app", eval_set.eval_set_id, metrics)
    evaluator = AgentEvaluator(
        "app", agent, eval_set_manager=sets, metric_manager=metric_store, result_manager=InMemoryEvalResultManager()
    )
    result = await evaluator.evaluate(eval_set.eval_set_id)
    assert result.eval_set_result is not None
    [case] = result.eval_set_result.eval_case_results
    return case


async def test_adk_agent_replays_its_recording_and_a_changed_prompt_drifts() -> None:
    CALLS.clear()
    recorded = await _run(EvalSet.model_validate(SET), False, [])
    assert CALLS == ["Paris", "Oslo"]  # the recording ran the real tool
    recording = EvalSetResult(eval_set_result_id="recorded", eval_set_id="weather", eval_case_results=[recorded])
    replay = replay_eval_set(recording, "strict").eval_set

    same = await _run(replay, False, METRICS)
    assert CALLS == ["Paris", "Oslo"]  # the replay never ran it
    assert same.final_eval_status is EvalStatus.PASSED
    [fidelity] = same.overall_eval_metric_results
    assert fidelity.score == 1.0
    answers = [e.actual_invocation.final_response for e in same.eval_metric_result_per_invocation]
    assert [a.content if a else None for a in answers] == [
        e.actual_invocation.final_response.content if e.actual_invocation.final_response else None
        for e in recorded.eval_metric_result_per_invocation
    ]

    changed = await _run(replay, True, METRICS)
    assert CALLS == ["Paris", "Oslo"]
    assert changed.final_eval_status is EvalStatus.FAILED
    first = changed.eval_metric_result_per_invocation[0]
    record = first.actual_invocation.replay
    assert record is not None and record.mode == "strict"
    [drift] = record.drift
    assert (drift.name, drift.recorded, drift.arguments) == ("get_weather", {"city": "Paris"}, {"city": "PARIS"})
    assert drift.difference.startswith("actual 'PARIS' != expected 'Paris' at $.city")
    answer = first.actual_invocation.final_response
    assert answer is not None and "replay: no recorded result for get_weather" in answer.content
    [fidelity] = changed.overall_eval_metric_results
    assert fidelity.score == 0.0
    assert "argument drift: turn 1 call 1 get_weather" in (fidelity.details.reason if fidelity.details else "")
