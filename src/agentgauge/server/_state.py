"""Everything one server instance holds: managers over the data directory, the loaded agents, sessions, runs."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, NotFoundError
from ..storage import LocalMetricManager, check_segment
from ._cache import ServerEvalSets
from ._config import ServerConfig
from ._history import ResultHistory
from ._sessions import SESSION_DIR, SessionStore
from ._watch import ResultWatch

if TYPE_CHECKING:  # pragma: no cover
    from ..agents import Agent
    from ..evaluators import Registry
    from ._runs import RunManager

__all__ = ["ServerState"]


LOCK_DIR = "locks"
"""Folder under the data directory holding the lock files of the eval set and metrics files the server edits."""


def agent_dirs(agents: dict[str, str]) -> dict[str, Path]:
    """App name → the folder of its agent, for agents given as an ADK agent folder or its ``agent.py`` (where ADK
    keeps the app's ``.adk/eval_history``)."""
    found: dict[str, Path] = {}
    for app, spec in agents.items():
        path = Path(spec)
        if spec.endswith(".py") and path.stem == "agent":
            found[app] = path.absolute().parent
        elif path.is_dir():
            found[app] = path.absolute()
    return found


class ServerState:
    """The managers, the agents by app name and the run manager.

    Eval sets and metrics files are read and edited where they are (``config.eval_root``); everything else the
    server writes goes under ``config.data_dir``: sessions, the lock files of those edits and, unless
    ``--output-dir`` or ``--store`` says otherwise, results. Results are read from every place they may be
    (:class:`~agentgauge.server._history.ResultHistory`).
    """

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        data, root = config.data_dir, config.eval_root
        self.eval_sets = ServerEvalSets(root, data / LOCK_DIR)
        self.metrics = LocalMetricManager(root, lock_dir=data / LOCK_DIR)
        self.results = ResultHistory.for_config(config, agent_dirs(config.agents))
        self.sessions = SessionStore(data / SESSION_DIR)
        self.watch = ResultWatch(self.results, self.app_names)
        """Versions of each app's results, raised when a result is added anywhere (pushed by ``/api/live/events``)."""
        self._agents: dict[str, Agent] = {}
        self._agent_locks: dict[str, asyncio.Lock] = {}
        self._registry: Registry | None = None
        self._registry_lock = threading.Lock()
        self._runs: RunManager | None = None
        self._tracked: bool | None = None

    @property
    def registry(self) -> Registry:
        """The metric registry (created on first use: it is what a run scores with), as ``agentgauge eval`` builds it
        (the server's default judge, the plug-ins of the project), its judge metrics registered before any thread
        sees it (the warm-up and the requests may ask for it at once)."""
        with self._registry_lock:
            if self._registry is None:
                from ..launch import make_registry

                config = self.config
                registry = make_registry(config.output_dir or config.data_dir / "results", config.judge)
                registry.names()  # registers the judge metrics, which a listing would otherwise do half-seen
                self._registry = registry
            return self._registry

    @property
    def runs(self) -> RunManager:
        """The background runs of this server."""
        if self._runs is None:
            from ._runs import RunManager

            self._runs = RunManager(self)
        return self._runs

    def app_names(self) -> list[str]:
        """Apps with an agent, then folders of the eval set folder holding eval sets (sorted, without duplicates)."""
        names = set(self.config.agents)
        try:
            entries = list(self.config.eval_root.iterdir())
        except OSError:
            entries = []
        for entry in entries:
            if entry.name.startswith((".", "_")) or not entry.is_dir():
                continue
            try:
                if self.eval_sets.list(entry.name):
                    names.add(entry.name)
            except (InputError, OSError):
                continue  # a folder whose name is no valid app name holds no app
        return sorted(names)

    def evals_tracked(self) -> bool:
        """Whether git tracks files under the eval set folder (asked once: ``git ls-files``; no git, no)."""
        if self._tracked is None:
            import subprocess

            root = self.config.eval_root
            try:
                listed = subprocess.run(
                    ["git", "ls-files", "-z", "--", "."],
                    cwd=root,
                    capture_output=True,
                    timeout=5,
                    check=False,
                    stdin=subprocess.DEVNULL,
                )
                self._tracked = listed.returncode == 0 and bool(listed.stdout.strip(b"\0"))
            except (OSError, subprocess.SubprocessError):
                self._tracked = False
        return self._tracked

    def check_app(self, app: str) -> str:
        """``app`` when it is a valid path segment (any name: a new app gets its folder on first write)."""
        check_segment(app, "app name")
        if app.startswith("."):  # hidden folders (ADK's .adk, old .sessions) never hold an app
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

                self._agents[app] = await asyncio.to_thread(load_agent, spec, remote=self.config.remote)
        return self._agents[app]
