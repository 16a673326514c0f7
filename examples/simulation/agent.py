"""A deterministic trip-weather assistant: the agent of the user-simulation example, no model or API key needed.

It asks for the destination city and the travel day (in any order, as the user gives them), then calls the
``get_weather`` tool and suggests what to pack. ``get_weather`` is decorated with ``agentgauge.mocks.mockable``,
so the eval set's ``toolMock`` rules replace it during evaluation. Run the example with::

    agentgauge eval examples/simulation/agent.py examples/simulation/trip.evalset.json \
        --user-simulator examples/simulation/simulator.py --expected-agent examples/simulation/reference_agent.py
"""

from __future__ import annotations

import re
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.mocks import mockable
from agentgauge.model import Tool

CITIES = ("paris", "lyon", "tokyo", "beijing", "shenzhen")
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_FORECASTS = {
    "paris": ("rain", 14),
    "lyon": ("sunny", 22),
    "tokyo": ("cloudy", 18),
    "beijing": ("windy", 9),
    "shenzhen": ("humid", 29),
}
_PACK = {"rain": "an umbrella", "sunny": "sunglasses", "cloudy": "a light jacket", "windy": "a warm coat"}


@mockable
def get_weather(city: str, day: str) -> dict[str, Any]:
    """The forecast for ``city`` on ``day`` (a fixed table: the example runs offline)."""
    condition, temp = _FORECASTS.get(city.lower(), ("mild", 20))
    return {"city": city, "day": day, "condition": condition, "tempC": temp}


def _find(words: tuple[str, ...], texts: list[str]) -> str | None:
    for text in reversed(texts):
        for word in words:
            if re.search(rf"\b{word}\b", text.lower()):
                return word
    return None


def advice(forecast: dict[str, Any], *, wording: str = "Pack") -> str:
    """The answer for a forecast."""
    item = _PACK.get(str(forecast.get("condition")), "layers")
    return (
        f"Forecast for {str(forecast['city']).title()} on {str(forecast['day']).title()}: {forecast['condition']}, "
        f"{forecast['tempC']}°C. {wording} {item}. Anything else?"
    )


def answer(request: AgentRequest, *, wording: str = "Pack") -> AgentOutput:
    """One turn of the assistant (``wording`` lets the reference agent phrase its advice differently)."""
    said = [inv.user_content.content for inv in request.history] + [request.user_content.content]
    latest = request.user_content.content.lower()
    if request.history and re.search(r"\b(no|thanks|thank you|that's all)\b", latest):
        return AgentOutput(final_response="Have a good trip!")
    city, day = _find(CITIES, said), _find(DAYS, said)
    if city is None:
        return AgentOutput(final_response="I can check the weather for your trip. Which city are you travelling to?")
    if day is None:
        return AgentOutput(final_response=f"When do you travel to {city.title()}?")
    arguments = {"city": city.title(), "day": day}
    forecast = get_weather(**arguments)
    return AgentOutput(
        final_response=advice(forecast, wording=wording),
        tools=[Tool(name="get_weather", arguments=arguments, result=forecast)],
    )


def root_agent(request: AgentRequest) -> AgentOutput:
    """The agent under evaluation."""
    return answer(request)
