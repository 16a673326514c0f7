"""The calculator agent after a change that skips the primality tool. A replay reports the recorded ``is_prime``
result that no call consumed."""

from calculator_tools import answer

from agentgauge.agents import AgentOutput, AgentRequest


def root_agent(request: AgentRequest) -> AgentOutput:
    """The recorded agent, answering the prime question without its tool."""
    return answer(request, check_prime=False)
