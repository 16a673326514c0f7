"""An OpenAI-compatible tool-calling agent, evaluated with judge-free metrics.

Environment:

- ``OPENAI_API_KEY`` (required): the API key of the endpoint;
- ``OPENAI_BASE_URL`` (optional): any OpenAI-compatible endpoint (vLLM, Ollama ``http://localhost:11434/v1``,
  LiteLLM, DeepSeek, ...); default OpenAI;
- ``OPENAI_MODEL`` (optional): the model name, default ``gpt-4o-mini``.

Run::

    agentgauge eval examples/openai_agent/agent.py examples/openai_agent/weather.evalset.json --print-detailed-results
"""

from __future__ import annotations

import os

from agentgauge.agents import OpenAIAgent

_FORECASTS = {
    "paris": {"condition": "sunny", "high_c": 24},
    "oslo": {"condition": "rain", "high_c": 11},
    "tokyo": {"condition": "cloudy", "high_c": 19},
}


def get_weather(city: str) -> dict[str, object]:
    """Get today's weather forecast for a city.

    Args:
        city: The city name in English, e.g. "Paris".
    """
    forecast = _FORECASTS.get(city.strip().lower())
    if forecast is None:
        return {"city": city, "error": "unknown city"}
    return {"city": city, **forecast}


def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: The temperature in degrees Celsius.
    """
    return round(celsius * 9 / 5 + 32, 1)


root_agent = OpenAIAgent(
    os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    base_url=os.environ.get("OPENAI_BASE_URL") or None,
    system_prompt=(
        "You are a weather assistant. Always call get_weather for weather questions and celsius_to_fahrenheit "
        "for conversions; never guess numbers. Answer in one short sentence."
    ),
    tools=[get_weather, celsius_to_fahrenheit],
    max_steps=6,
    model_settings={"temperature": 0},
)
