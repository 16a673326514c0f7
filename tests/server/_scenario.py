"""A scenario app for the server tests: the simulation example's agent with one ``conversationScenario`` case."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIMULATION = ROOT / "examples" / "simulation"
SCENARIO = {
    "driver": "actual",
    "startingPrompt": "Hi, can you help me prepare a trip?",
    "conversationPlan": "You travel to city=Paris on day=friday. Answer the assistant's questions. Once you have the "
    "forecast, output only </finished>.",
    "stopSignal": "</finished>",
    "maxAllowedInvocations": 6,
}
# An assertion on the whole conversation: the case has no expected data besides its scenario.
METRICS = [
    {"metricName": "trajectory_tool_used", "threshold": 1, "criterion": {"assertion": {"tools": ["get_weather"]}}}
]


def scenario_app(root: Path) -> Path:
    """App ``trip`` under ``root`` (the simulation example's agent) with eval set ``trips``: one scenario case,
    ``paris``, and no metrics file."""
    app = root / "trip"
    app.mkdir(parents=True)
    shutil.copy(SIMULATION / "agent.py", app / "agent.py")
    cases = [{"evalId": "paris", "conversationScenario": SCENARIO}]
    (app / "trips.evalset.json").write_text(json.dumps({"evalSetId": "trips", "evalCases": cases}), encoding="utf-8")
    return app
