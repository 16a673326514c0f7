"""The pre-flight check of remote agents: before the first case, each remote agent's card or endpoint must answer
its protocol, so that an agent that is down (or a typo'd port) is one input error, not a run of failed cases."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from ...errors import AgentError, InputError

__all__ = ["PreflightAgent", "check_remote_agents", "preflight_remote_agents"]


@runtime_checkable
class PreflightAgent(Protocol):
    """A remote agent that can check it is reachable without running a turn (every scheme of this package)."""

    endpoint: Any

    async def preflight(self) -> None:
        """Raise :class:`~agentgauge.errors.AgentError` naming the scheme, URL and cause when unusable."""


async def preflight_remote_agents(agents: Iterable[object]) -> None:
    """Check every remote agent among ``agents`` (others, and ``None``, are skipped), one after the other, each
    within its turn limit; :class:`InputError` with the first failure's message (scheme, URL, cause)."""
    remote = [agent for agent in agents if isinstance(agent, PreflightAgent)]
    try:
        for agent in remote:
            await agent.preflight()
    except AgentError as exc:
        raise InputError(f"{exc} (checked before the first case; nothing was run)") from None
    finally:
        for agent in remote:
            await agent.endpoint.aclose()  # the connections belong to this loop; the run opens its own


def check_remote_agents(agents: Iterable[object]) -> None:
    """:func:`preflight_remote_agents` in an event loop of its own (for commands, before their run starts)."""
    remote = [agent for agent in agents if isinstance(agent, PreflightAgent)]
    if remote:
        asyncio.run(preflight_remote_agents(remote))
