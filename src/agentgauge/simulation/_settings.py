"""What a run needs for simulated conversations, expected agents and generated tool mocks."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..agents import Agent
    from ..mocks import MockResultGenerator
    from ._protocol import UserSimulator

__all__ = ["SimulationSettings"]


@dataclass
class SimulationSettings:
    """Run-level settings for ``conversationScenario`` cases, the expected runner and ``llmGenerator`` mocks.

    - ``user_simulator``: plays the user of scenario cases (:class:`LlmUserSimulator`,
      :class:`ScriptedUserSimulator` or your own :class:`UserSimulator`);
    - ``expected_agent``: produces the expected invocations of cases with ``expectedRunnerEnabled`` (with
      ``toolMock.expected``) and drives ``driver: "expected"`` scenarios;
    - ``mock_generator``: produces ``llmGenerator`` tool results;
    - ``max_turns``: overrides every scenario's user-turn limit (``0``: unlimited);
    - ``adk_max_invocations``: ADK's ``user_simulator_config.max_allowed_invocations`` for ADK scenarios
      (default 20, ``-1`` unlimited).
    """

    user_simulator: UserSimulator | None = None
    expected_agent: Agent | None = None
    mock_generator: MockResultGenerator | None = None
    max_turns: int | None = None
    adk_max_invocations: int | None = None
