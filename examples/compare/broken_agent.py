"""The calculator agent of ``examples/calculator`` with a bug put in on purpose: it multiplies by adding.

Used to show ``agentgauge compare`` on two real runs::

    agentgauge eval examples/calculator/agent.py examples/calculator/calculator.evalset.json
    agentgauge eval examples/compare/broken_agent.py examples/calculator/calculator.evalset.json
    agentgauge compare BASE_RESULT NEW_RESULT
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import Tool

_spec = importlib.util.spec_from_file_location(
    "_calculator_example", Path(__file__).resolve().parents[1] / "calculator" / "agent.py"
)
assert _spec is not None and _spec.loader is not None
calculator_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calculator_example)


def broken_calculator(operation: str, a: float, b: float) -> dict[str, Any]:
    """The calculator tool, except that ``mul`` adds (the regression ``compare`` should catch)."""
    return calculator_example.calculator("add" if operation == "mul" else operation, a, b)


def root_agent(request: AgentRequest) -> AgentOutput:
    """The example calculator agent's logic, calling the broken tool."""
    parsed = calculator_example.parse(request.user_content.content, calculator_example._previous_result(request))
    if parsed is None:
        return AgentOutput(final_response="calc error: I can add, subtract, multiply or divide two numbers.")
    operation, a, b = parsed
    result = broken_calculator(operation, a, b)
    call = Tool(
        id=f"calc_{len(request.history) + 1}",
        name="calculator",
        arguments={"operation": operation, "a": a, "b": b},
        result=result,
    )
    answer = f"calc error: {result['error']}" if "error" in result else f"calc result: {result['result']}"
    return AgentOutput(final_response=answer, tools=[call])
