"""The calculator of the replay examples: two tools that go through agentgauge's tool mocks (``@mockable``), and
the agent logic the three example agents share.

Because the tools are ``@mockable``, a replay (``agentgauge eval --replay``) answers them from the recording and
they never run; ``REAL_CALLS`` lists the calls that did run for real (the tests read it).
"""

from __future__ import annotations

import re
from typing import Any

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.mocks import mockable
from agentgauge.model import Tool

REAL_CALLS: list[str] = []


@mockable
def calculator(operation: str, a: float, b: float) -> dict[str, Any]:
    """Apply ``operation`` (add, sub, mul) to ``a`` and ``b``."""
    REAL_CALLS.append("calculator")
    value = {"add": a + b, "sub": a - b, "mul": a * b}[operation]
    return {"result": value}


@mockable
def is_prime(n: int) -> dict[str, Any]:
    """Whether ``n`` is a prime number."""
    REAL_CALLS.append("is_prime")
    return {"n": n, "prime": n > 1 and all(n % d for d in range(2, int(n**0.5) + 1))}


def _previous(request: AgentRequest) -> Any:
    for invocation in reversed(request.history):
        for tool in reversed(invocation.tools):
            if tool.name == "calculator" and isinstance(tool.result, dict) and "result" in tool.result:
                return tool.result["result"]
    return None


def answer(request: AgentRequest, *, swap_operands: bool = False, check_prime: bool = True) -> AgentOutput:
    """Answer "What is A times B?" or "Add N to that. Is the sum prime?" with the tools.

    ``swap_operands`` writes "add N to that" as ``add(N, that)`` (the recorded agent writes ``add(that, N)``);
    ``check_prime=False`` answers the prime question without asking the tool.
    """
    text = request.user_content.content.lower()
    calls: list[Tool] = []

    def call(name: str, tool: Any, **arguments: Any) -> Any:
        result = tool(**arguments)
        calls.append(
            Tool(id=f"call_{len(request.history) + 1}_{len(calls) + 1}", name=name, arguments=arguments, result=result)
        )
        return result

    times = re.search(r"(\d+) times (\d+)", text)
    add = re.search(r"add (\d+) to that", text)
    if times:
        result = call("calculator", calculator, operation="mul", a=int(times[1]), b=int(times[2]))
    elif add and _previous(request) is not None:
        a, b = _previous(request), int(add[1])
        result = call(
            "calculator", calculator, operation="add", **({"a": b, "b": a} if swap_operands else {"a": a, "b": b})
        )
    else:
        return AgentOutput(final_response="I can multiply two numbers, or add a number to the last result.")
    if "error" in result:
        return AgentOutput(final_response=f"calc error: {result['error']}", tools=calls)
    reply = f"calc result: {result['result']}"
    if "prime" in text and check_prime:
        checked = call("is_prime", is_prime, n=result["result"])
        reply += " (prime)" if checked.get("prime") else " (not prime)"
    return AgentOutput(final_response=reply, tools=calls)
