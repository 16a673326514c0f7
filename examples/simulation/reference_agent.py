"""The reference version of the trip assistant: the expected agent of the example (``--expected-agent``).

It asks the same questions and calls the same tool, and words its advice "Bring ..." where the evaluated agent
says "Pack ...", so ``response_match_score`` shows a real (below 1) score.
"""

from __future__ import annotations

from agent import answer

from agentgauge.agents import AgentOutput, AgentRequest


def root_agent(request: AgentRequest) -> AgentOutput:
    """The expected agent."""
    return answer(request, wording="Bring")
