"""The calculator agent after a prompt change: "add 8 to that" now becomes ``add(8, that)``, the operands the other
way round. A replay reports the argument drift at that call."""

from calculator_tools import answer

from agentgauge.agents import AgentOutput, AgentRequest


def root_agent(request: AgentRequest) -> AgentOutput:
    """The recorded agent with its operands swapped on additions."""
    return answer(request, swap_operands=True)
