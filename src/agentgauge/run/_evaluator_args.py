"""What :class:`~agentgauge.run.AgentEvaluator`'s arguments name, made into the objects it runs with: the executor
(``"local"``, ``"ray"`` or an object), the simulation settings with their shortcuts, and an agent given as a string."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..service import Executor
    from ..simulation import SimulationSettings

__all__ = ["agent_object", "executor_named", "simulation_settings"]


def executor_named(executor: Executor | str | None) -> Executor:
    """The executor an :class:`AgentEvaluator` argument names (see its docstring)."""
    if executor is None or executor == "local":
        from ..service import LocalExecutor

        return LocalExecutor()
    if executor == "ray":
        from ..distributed import RayExecutor

        return RayExecutor()
    if isinstance(executor, str):
        raise ValueError(f"unknown executor {executor!r}: use 'local', 'ray' or an Executor object")
    return executor


def simulation_settings(
    settings: SimulationSettings | None, user_simulator: object | None, expected_agent: object | None
) -> SimulationSettings | None:
    """``settings`` with the ``user_simulator`` / ``expected_agent`` shortcuts filled in (``None`` when none)."""
    if settings is None and user_simulator is None and expected_agent is None:
        return None
    import dataclasses

    from ..agents import as_agent
    from ..simulation import SimulationSettings, as_user_simulator

    out = dataclasses.replace(settings) if settings is not None else SimulationSettings()
    if user_simulator is not None:
        out.user_simulator = as_user_simulator(user_simulator)
    if expected_agent is not None:
        out.expected_agent = as_agent(agent_object(expected_agent))
    elif out.expected_agent is not None:
        out.expected_agent = as_agent(agent_object(out.expected_agent))
    return out


def agent_object(agent: object) -> object:
    """``agent`` itself, or the agent a string names (a file, ``module:attribute`` or a remote agent URL such as
    ``a2a+http://host:8000``, with default connection settings; see :func:`agentgauge.agents.load_agent`)."""
    if not isinstance(agent, str):
        return agent
    from ..agents import load_agent

    return load_agent(agent)
