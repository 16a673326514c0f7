"""The calculator agent of ``examples/calculator`` made flaky on purpose, deterministically: over five runs of the
calculator set each case passes a fixed number of its runs.

Run it five times over the set to see how a case's status over its runs is decided (``--case-status``) and that
every report counts the same cases::

    agentgauge eval examples/flaky/flaky_agent.py examples/calculator/calculator.evalset.json \\
        --config examples/home_automation/test_config.json --num-runs 5

Which runs of a case go wrong is fixed by its prompt and by how many times the agent has answered that prompt
(modulo five), so a run of five gives the same outcomes per case whatever the order the runs are scheduled in. The
first prompt of ``calc_add`` also opens ``calc_multi_turn``, so it is always answered right.

==========================  =================  =======================================
case                        runs that go wrong  how (the tool call is right unless said)
==========================  =================  =======================================
``calc_add``                none               (5/5 runs pass)
``calc_natural_multiply``   3rd and 5th        answers 43 (3/5)
``calc_subtract_from``      2nd and 4th        subtracts 10 - 5: a wrong tool call (3/5)
``calc_divide``             3rd, 4th and 5th   answers 3.6 (2/5)
``calc_multi_turn``         5th                multiplies by 5 in the second turn (4/5)
``calc_not_a_calculation``  every one          calls the tool and answers 42 (0/5)
==========================  =================  =======================================
"""

from __future__ import annotations

import importlib.util
import threading
from collections import Counter
from pathlib import Path

from agentgauge.agents import AgentOutput, AgentRequest
from agentgauge.model import Tool

_spec = importlib.util.spec_from_file_location(
    "_calculator_example", Path(__file__).resolve().parents[1] / "calculator" / "agent.py"
)
assert _spec is not None and _spec.loader is not None
calculator_example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calculator_example)

RUNS = 5
"""The length of every pattern below: the agent's answers repeat every five runs."""

# prompt -> (which of five consecutive answers go wrong, how): "answer" keeps the tool call and says a wrong
# number, "operand" calls the tool with a wrong operand, "call" calls the tool where no call was expected.
_WRONG: dict[str, tuple[frozenset[int], str]] = {
    "What is 6 times 7?": (frozenset({2, 4}), "answer"),
    "Please subtract 4 from 10": (frozenset({1, 3}), "operand"),
    "calc div 7 2": (frozenset({2, 3, 4}), "answer"),
    "Now multiply that by 4": (frozenset({4}), "operand"),
    "Tell me a joke": (frozenset(range(RUNS)), "call"),
}
_seen: Counter[str] = Counter()
_lock = threading.Lock()


def _how_wrong(prompt: str) -> str | None:
    """How this answer to ``prompt`` goes wrong (``None``: it is right), counting the answer."""
    wrong = _WRONG.get(prompt)
    if wrong is None:
        return None
    with _lock:
        occurrence = _seen[prompt] % RUNS
        _seen[prompt] += 1
    runs, how = wrong
    return how if occurrence in runs else None


def _answer(operation: str, a: float, b: float, request: AgentRequest, *, wrong_number: bool) -> AgentOutput:
    result = calculator_example.calculator(operation, a, b)
    arguments = {"operation": operation, "a": a, "b": b}
    call = Tool(id=f"calc_{len(request.history) + 1}", name="calculator", arguments=arguments, result=result)
    value = result.get("result")
    if wrong_number and isinstance(value, (int, float)):
        value = calculator_example._number(str(value + (1 if isinstance(value, int) else 0.1)))
    return AgentOutput(final_response=f"calc result: {value}", tools=[call])


def root_agent(request: AgentRequest) -> AgentOutput:
    """Answer as the example calculator agent does, except on the runs the table of the module docstring names."""
    prompt = request.user_content.content
    how = _how_wrong(prompt)
    if how == "call":
        return _answer("mul", 6, 7, request, wrong_number=False)
    parsed = calculator_example.parse(prompt, calculator_example._previous_result(request))
    if parsed is None:
        return AgentOutput(final_response="calc error: I can add, subtract, multiply or divide two numbers.")
    operation, a, b = parsed
    if how == "operand":
        b = b + 1
    return _answer(operation, a, b, request, wrong_number=how == "answer")
