"""Tool mocks on a Google ADK LlmAgent: the before-tool callback replaces the tool's execution."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from agentgauge import AgentEvaluator
from agentgauge.model import EvalCaseResult, EvalSet, EvalStatus
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

CALLS: list[str] = []


def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    CALLS.append(city)
    return {"city": city, "condition": "real"}


class ScriptedLlm(BaseLlm):
    """Calls get_weather for the city in the user message, then reports the tool's answer."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        response = next((p.function_response for p in last.parts or [] if p.function_response), None)
        if response is not None:
            text = f"weather: {response.response}"
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))
            return
        city = (last.parts or [types.Part(text="")])[0].text or ""
        call = types.FunctionCall(id="fc-1", name="get_weather", args={"city": city})
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))


def _case(eval_id: str, city: str, rule_city: str, result: Any) -> dict[str, Any]:
    rule = {"name": "get_weather", "arguments": {"expected": {"city": rule_city}}, "result": result}
    return {
        "evalId": eval_id,
        "conversation": [{"userContent": {"content": city}, "toolMock": {"actual": [rule]}}],
    }


async def _run(cases: list[dict[str, Any]]) -> dict[str, EvalCaseResult]:
    agent = LlmAgent(name="weather", model=ScriptedLlm(model="scripted"), tools=[get_weather])
    sets = InMemoryEvalSetManager()
    sets.put("app", EvalSet.model_validate({"evalSetId": "s", "evalCases": cases}))
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=InMemoryMetricManager(),
        result_manager=InMemoryEvalResultManager(),
    )
    result = await evaluator.evaluate("s")
    assert result.eval_set_result is not None
    return {c.eval_id: c for c in result.eval_set_result.eval_case_results}


async def test_adk_tool_calls_are_mocked_and_unmatched_calls_fail_the_turn() -> None:
    CALLS.clear()
    results = await _run(
        [
            _case("dict", "Paris", "Paris", {"condition": "mocked"}),
            _case("scalar", "Paris", "Paris", "sunny"),
            _case("miss", "Rome", "Paris", {"condition": "mocked"}),
            {"evalId": "real", "conversation": [{"userContent": {"content": "Oslo"}}]},
        ]
    )
    [turn] = results["dict"].eval_metric_result_per_invocation
    assert turn.actual_invocation.tools[0].result == {"condition": "mocked"}
    assert turn.actual_invocation.final_response.content == "weather: {'condition': 'mocked'}"  # type: ignore[union-attr]
    assert results["scalar"].eval_metric_result_per_invocation[0].actual_invocation.tools[0].result == {
        "result": "sunny"
    }
    assert results["miss"].final_eval_status is EvalStatus.ERROR
    assert "tool 'get_weather' is mocked but no rule matched" in str(results["miss"].error_message)
    assert CALLS == ["Oslo"]  # only the unmocked case ran the real tool
