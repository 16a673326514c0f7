"""A scripted simulated user for the example: it answers the assistant's questions from the facts in the
scenario's conversation plan (``city=...``, ``day=...``) and ends the conversation with the scenario's stop signal.

It follows each dialect's stop rule: a trpc scenario ends only when the whole message equals ``stopSignal``, an
ADK scenario when the message contains ``</finished>``. Use it with
``--user-simulator examples/simulation/simulator.py``.
"""

from __future__ import annotations

import re

from agentgauge.simulation import SimulationContext, UserTurn


def simulated_user(context: SimulationContext, turn: UserTurn) -> str | None:
    """The next user message (``None`` when the user has nothing left to say)."""
    facts = dict(re.findall(r"(\w+)=(\w+)", context.rules.plan))
    asked = turn.last_agent_message.lower()
    if "which city" in asked:
        return f"I'm going to {facts.get('city', 'Paris')}."
    if "when do you travel" in asked:
        return f"On {facts.get('day', 'monday')}."
    if "anything else" in asked:
        if context.rules.dialect == "adk":
            return "No, that's all. Thanks! </finished>"
        return context.rules.stop_signal
    return None


user_simulator = simulated_user
"""What ``--user-simulator`` loads: a function ``(context, turn) -> str | None`` is a simulator."""
