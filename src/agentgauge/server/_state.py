"""Everything one server instance holds: managers over the data directory, the loaded agents, sessions, runs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..errors import InputError, NotFoundError
from ..storage import LocalEvalResultManager, LocalEvalSetManager, LocalMetricManager, check_segment
from ._config import ServerConfig
from ._sessions import SessionStore

if TYPE_CHECKING:  # pragma: no cover
    from ..agents import Agent
    from ..evaluators import Registry
    from ._runs import RunManager

__all__ = ["ServerState"]


class ServerState:
    """The managers (local files under ``config.data_dir``), the agents by app name and the run manager."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        data = config.data_dir
        self.eval_sets = LocalEvalSetManager(data)
        self.metrics = LocalMetricManager(data)
        self.results = LocalEvalResultManager(data)
        self.sessions = SessionStore(data)
        self._agents: dict[str, Agent] = {}
        self._agent_locks: dict[str, asyncio.Lock] = {}
        self._registry: Registry | None = None
        self._runs: RunManager | None = None

    @property
    def registry(self) -> Registry:
        """The metric registry (created on first use: it is what a run scores with)."""
        if self._registry is None:
            from ..evaluators import Registry

            self._registry = Registry()
        return self._registry

    @property
    def runs(self) -> RunManager:
        """The background runs of this server."""
        if self._runs is None:
            from ._runs import RunManager

            self._runs = RunManager(self)
        return self._runs

    def app_names(self) -> list[str]:
        """Apps with an agent, then folders of the data directory holding eval sets (sorted, without duplicates)."""
        names = set(self.config.agents)
        try:
            for entry in self.config.data_dir.iterdir():
                if entry.is_dir() and not entry.name.startswith((".", "_")) and self.eval_sets.list(entry.name):
                    names.add(entry.name)
        except OSError:
            pass
        return sorted(names)

    def check_app(self, app: str) -> str:
        """``app`` when it is a valid path segment (any name: a new app gets its folder on first write)."""
        check_segment(app, "app name")
        if app.startswith("."):  # hidden folders hold sessions and locks, never an app
            raise InputError(f"invalid app name {app!r}: must not start with '.'")
        return app

    def has_agent(self, app: str) -> bool:
        """Whether an agent is configured for ``app``."""
        return app in self.config.agents

    async def agent(self, app: str) -> Agent:
        """The app's agent, imported once (in a worker thread: an import may be slow)."""
        found = self._agents.get(app)
        if found is not None:
            return found
        spec = self.config.agents.get(app)
        if spec is None:
            raise NotFoundError(
                f"no agent is served for app {app!r}; served: {', '.join(self.config.agents) or 'none'}"
            )
        lock = self._agent_locks.setdefault(app, asyncio.Lock())
        async with lock:
            if app not in self._agents:
                from ..agents import load_agent

                self._agents[app] = await asyncio.to_thread(load_agent, spec)
        return self._agents[app]
