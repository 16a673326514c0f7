"""User simulation: ``conversationScenario`` cases played by a simulated user, and the expected runner.

- :class:`UserSimulator` / :class:`SimulatedUser`: the simulator interface; :class:`ScriptedUserSimulator` says
  prepared lines; :class:`LlmUserSimulator` lets any OpenAI-compatible model play the user (judge client:
  retries, cache, secret masking).
- :func:`scenario_rules`: a scenario's rules in its dialect (ADK: ``</finished>`` anywhere in the message, 20
  turns by default; trpc: the whole message equals ``stopSignal``, ``maxAllowedInvocations`` with 0 unlimited).
- :class:`SimulationSettings`: what a run uses (simulator, expected agent, tool-mock generator, turn limits).
- :func:`generate_scenarios`: new scenario cases from an agent description with a model.
"""

from ..formats._scenarios import scenario_eval_id, scenarios_eval_set
from ._generate import generate_scenarios
from ._llm import JudgeMockGenerator, LlmUserSimulator, adk_prompt, render_history, trpc_system_prompt
from ._personas import BUILTIN_PERSONAS, UserBehavior, UserPersona, resolve_persona
from ._protocol import (
    ScriptedUserSimulator,
    SimulatedUser,
    SimulationContext,
    SimulationError,
    UserSimulator,
    UserTurn,
    as_user_simulator,
)
from ._rules import ADK_DEFAULT_MAX_INVOCATIONS, ADK_STOP_SIGNAL, ScenarioRules, scenario_rules
from ._settings import SimulationSettings

__all__ = [
    "ADK_DEFAULT_MAX_INVOCATIONS",
    "ADK_STOP_SIGNAL",
    "BUILTIN_PERSONAS",
    "JudgeMockGenerator",
    "LlmUserSimulator",
    "ScenarioRules",
    "ScriptedUserSimulator",
    "SimulatedUser",
    "SimulationContext",
    "SimulationError",
    "SimulationSettings",
    "UserBehavior",
    "UserPersona",
    "UserSimulator",
    "UserTurn",
    "adk_prompt",
    "as_user_simulator",
    "generate_scenarios",
    "render_history",
    "resolve_persona",
    "scenario_eval_id",
    "scenario_rules",
    "scenarios_eval_set",
    "trpc_system_prompt",
]
