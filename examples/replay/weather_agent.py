"""The Google ADK weather agent that recorded ``examples/traces/adk_weather.otlp.jsonl`` (its scripted model, no API
key; see ``examples/traces/record_adk_trace.py``). Replayed against that trace, its ``get_weather`` calls are answered
from the recording by ADK's before-tool callback and the tool never runs.

    agentgauge traces to-evalset examples/traces/adk_weather.otlp.jsonl weather_replay.evalset.json --mocks strict
    agentgauge eval examples/replay/weather_agent.py weather_replay.evalset.json --replay
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from google.adk.agents import Agent

_spec = importlib.util.spec_from_file_location(
    "_adk_trace_recorder", Path(__file__).resolve().parents[1] / "traces" / "record_adk_trace.py"
)
assert _spec is not None and _spec.loader is not None
recorder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(recorder)


def get_weather(city: str) -> dict[str, Any]:
    """Return the current weather for a city (a replay never calls it: the recording answers)."""
    raise RuntimeError("get_weather ran for real during a replay")


root_agent = Agent(
    name="weather_agent", model=recorder._scripted_model(), instruction="Answer weather questions.", tools=[get_weather]
)
