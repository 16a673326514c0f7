"""The depth check on agent output: exact at the limit, cheap for ordinary values, not fooled by brackets in text."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.agents import AgentOutput
from agentgauge.agents._safety import MAX_OUTPUT_DEPTH, check_output_depth
from agentgauge.errors import AgentError
from agentgauge.model import Tool


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("result", "too_deep"),
    [
        (_nested(MAX_OUTPUT_DEPTH), False),
        (_nested(MAX_OUTPUT_DEPTH + 1), True),
        (_nested(300), True),  # deeper than the serialiser goes: walked
        ({"text": "[" * 500 + "{" * 500}, False),  # brackets inside strings are not nesting
        ([[1, 2]] * 400, False),  # many containers side by side, two levels deep
    ],
)
def test_depth_of_tool_results(result: Any, too_deep: bool) -> None:
    output = AgentOutput(final_response="ok", tools=[Tool(name="t", arguments={}, result=result)])
    if too_deep:
        with pytest.raises(AgentError, match=r"tools\[0\]\.result is nested more than 100 levels deep"):
            check_output_depth(output)
    else:
        check_output_depth(output)
