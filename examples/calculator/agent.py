"""A deterministic calculator agent: the default agentgauge demo, no model or API key needed.

It understands ``calc <operation> <a> <b>`` (operation: add, sub, mul, div) and a few natural phrasings
("what is 6 times 7?", "subtract 4 from 10", "now multiply that by 4" — ``that`` is the previous result of the
session). Every computation goes through the ``calculator`` tool, recorded as a tool call, and the answer is
``calc result: <value>``.

Run the demo with ``make demo`` or::

    agentgauge eval examples/calculator/agent.py examples/calculator/calculator.evalset.json --print-detailed-results
"""

from __future__ import annotations

import re
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import Tool

_WORDS = {
    "add": "add",
    "plus": "add",
    "sum": "add",
    "sub": "sub",
    "subtract": "sub",
    "minus": "sub",
    "mul": "mul",
    "multiply": "mul",
    "times": "mul",
    "multiplied": "mul",
    "div": "div",
    "divide": "div",
    "divided": "div",
    "over": "div",
}
_NUMBER = r"-?\d+(?:\.\d+)?"
_PREVIOUS = r"\b(?:that|it|the result)\b"


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def calculator(operation: str, a: float, b: float) -> dict[str, Any]:
    """Apply ``operation`` (add, sub, mul, div) to ``a`` and ``b``."""
    if operation == "div" and b == 0:
        return {"operation": operation, "a": a, "b": b, "error": "division by zero"}
    value = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b if b else 0}[operation]
    return {"a": a, "b": b, "operation": operation, "result": _number(str(value))}


def _previous_result(request: AgentRequest) -> int | float | None:
    for invocation in reversed(request.history):
        for tool in reversed(invocation.tools):
            if isinstance(tool.result, dict) and "result" in tool.result:
                return tool.result["result"]  # type: ignore[no-any-return]
    return None


def parse(text: str, previous: int | float | None) -> tuple[str, int | float, int | float] | None:
    """The (operation, a, b) a prompt asks for, or ``None`` when it is not a calculation."""
    lowered = text.lower()
    strict = re.fullmatch(rf"\s*calc\s+(add|sub|mul|div)\s+({_NUMBER})\s+({_NUMBER})\s*", lowered)
    if strict:
        return strict.group(1), _number(strict.group(2)), _number(strict.group(3))
    operation = next((op for word, op in _WORDS.items() if re.search(rf"\b{word}\b", lowered)), None)
    if operation is None:
        return None
    # "that" / "it" stand for the previous result; keep the operand order as written.
    tokens = re.findall(rf"{_NUMBER}|{_PREVIOUS}", lowered)
    operands = [previous if not re.fullmatch(_NUMBER, t) else _number(t) for t in tokens]
    if len(operands) != 2 or any(v is None for v in operands):
        return None
    a, b = operands
    assert a is not None and b is not None
    if operation == "sub" and re.search(r"\bfrom\b", lowered):
        a, b = b, a  # "subtract 4 from 10" means 10 - 4
    return operation, a, b


def root_agent(request: AgentRequest) -> AgentOutput:
    """Answer one calculator prompt, calling the ``calculator`` tool for the arithmetic."""
    parsed = parse(request.user_content.content, _previous_result(request))
    if parsed is None:
        return AgentOutput(final_response="calc error: I can add, subtract, multiply or divide two numbers.")
    operation, a, b = parsed
    arguments = {"operation": operation, "a": a, "b": b}
    result = calculator(operation, a, b)
    call = Tool(id=f"calc_{len(request.history) + 1}", name="calculator", arguments=arguments, result=result)
    answer = f"calc error: {result['error']}" if "error" in result else f"calc result: {result['result']}"
    return AgentOutput(final_response=answer, tools=[call])
