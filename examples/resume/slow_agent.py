"""The calculator agent of ``examples/calculator``, slowed down (half a second per answer) so that a run can be
killed half-way and resumed: see ``kill_and_resume.sh`` and docs/running.md#resuming-an-interrupted-run."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from agentgauge.agents import AgentOutput, AgentRequest

_spec = importlib.util.spec_from_file_location(
    "_calculator_example_slow", Path(__file__).resolve().parents[1] / "calculator" / "agent.py"
)
assert _spec is not None and _spec.loader is not None
calculator_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calculator_example)


def root_agent(request: AgentRequest) -> AgentOutput:
    """The example calculator's answer, after half a second."""
    time.sleep(0.5)
    output: AgentOutput = calculator_example.root_agent(request)
    return output
