"""A Google ADK weather agent with a scripted model (no API key): the agent that recorded
``examples/traces/adk_weather.otlp.jsonl``. Replayed against that trace, its ``get_weather`` calls are answered from
the recording by ADK's before-tool callback and the tool never runs.

    agentgauge traces to-evalset examples/traces/adk_weather.otlp.jsonl weather_replay.evalset.json --mocks strict
    agentgauge eval examples/replay/weather_agent.py weather_replay.evalset.json --replay
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import Agent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types


def get_weather(city: str) -> dict[str, Any]:
    """Return the current weather for a city (a replay never calls it: the recording answers)."""
    raise RuntimeError("get_weather ran for real during a replay")


class ScriptedModel(BaseLlm):
    """Calls get_weather for the city in the latest user message, then answers from the tool result."""

    model: str = "scripted-weather-model"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """One scripted model turn."""
        last = llm_request.contents[-1]
        response = next((p.function_response for p in last.parts or [] if p.function_response), None)
        if response is not None:
            result = response.response or {}
            text = f"It is {result.get('forecast')} in {result.get('city')}, {result.get('temperature_c')} °C."
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))
            return
        question = " ".join(p.text or "" for p in last.parts or [])
        city = question.rstrip("?").split(" in ")[-1].strip()
        call = types.FunctionCall(name="get_weather", args={"city": city}, id=f"call_{city.lower()}")
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(function_call=call)]))


root_agent = Agent(
    name="weather_agent", model=ScriptedModel(), instruction="Answer weather questions.", tools=[get_weather]
)
