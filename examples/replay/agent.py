"""The recorded calculator agent of the replay examples (see ``calculator_tools.py``)."""

from calculator_tools import answer

from agentgauge.agents import AgentOutput, AgentRequest


def root_agent(request: AgentRequest) -> AgentOutput:
    """Multiply, add to the last result, check primality: every step through a mockable tool."""
    return answer(request)
