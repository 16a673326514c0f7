"""The rules of a scenario in its dialect: first message, stop signal, turn limit, driver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..model import ConversationScenario
from ._personas import UserPersona, resolve_persona

__all__ = ["ADK_DEFAULT_MAX_INVOCATIONS", "ADK_STOP_SIGNAL", "ScenarioRules", "scenario_rules"]

ADK_STOP_SIGNAL = "</finished>"
"""ADK's fixed stop signal: a simulated user message containing it ends the conversation."""

ADK_DEFAULT_MAX_INVOCATIONS = 20
"""ADK's default ``max_allowed_invocations`` (the starting prompt counts)."""


@dataclass(frozen=True)
class ScenarioRules:
    """How a scenario is played: dialect, driver, fixed first message, stop signal and user-turn limit.

    ``max_turns`` is ``None`` for unlimited; it counts user messages sent, the starting prompt included.
    """

    dialect: Literal["adk", "trpc"]
    driver: Literal["actual", "expected"]
    plan: str
    starting_prompt: str
    stop_signal: str
    max_turns: int | None
    persona: UserPersona | None

    def is_stop(self, message: str) -> bool:
        """Whether the simulated user's ``message`` ends the conversation.

        ADK: the message contains the stop signal (case-insensitive). trpc: the whole trimmed message equals it
        (case-insensitive).
        """
        if not self.stop_signal:
            return False
        if self.dialect == "adk":
            return self.stop_signal.lower() in message.lower()
        return message.strip().casefold() == self.stop_signal.strip().casefold()


def scenario_rules(
    scenario: ConversationScenario, *, max_turns: int | None = None, adk_max_invocations: int | None = None
) -> ScenarioRules:
    """The rules of ``scenario``; ``ValueError`` says why it cannot be played.

    ``max_turns`` overrides the scenario's limit (both dialects; ``0`` or negative: unlimited);
    ``adk_max_invocations`` is the ADK simulator configuration's ``max_allowed_invocations`` (default 20, ``-1``
    unlimited), used for ADK scenarios.
    """
    plan = (scenario.conversation_plan or "").strip()
    if not plan:
        raise ValueError("conversationPlan must not be empty")
    persona = resolve_persona(scenario.user_persona)
    if scenario.dialect == "adk":
        if not (scenario.starting_prompt or "").strip():
            raise ValueError("startingPrompt is required (ADK scenario)")
        limit = ADK_DEFAULT_MAX_INVOCATIONS if adk_max_invocations is None else adk_max_invocations
        if max_turns is not None:
            limit = max_turns if max_turns > 0 else -1
        return ScenarioRules(
            "adk",
            "actual",
            plan,
            scenario.starting_prompt or "",
            ADK_STOP_SIGNAL,
            None if limit < 0 else limit,
            persona,
        )
    driver = scenario.driver or "actual"
    if driver not in ("actual", "expected"):
        raise ValueError(f'invalid conversationScenario driver {driver!r}: expected "actual" or "expected"')
    stop = (scenario.stop_signal or "").strip()
    limit = scenario.max_allowed_invocations or 0
    if max_turns is not None:
        limit = max(max_turns, 0)
    if limit < 0:
        raise ValueError("maxAllowedInvocations must be greater than or equal to 0")
    if not stop and limit == 0:
        raise ValueError("stopSignal and maxAllowedInvocations cannot both be disabled")
    return ScenarioRules(
        "trpc",
        "expected" if driver == "expected" else "actual",
        plan,
        scenario.starting_prompt or "",
        stop,
        limit or None,
        persona,
    )
