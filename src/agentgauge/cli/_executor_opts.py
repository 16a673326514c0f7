"""``eval --executor / --ray-address / --rate-limit``: which engine runs the cases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ._common import fail_input

if TYPE_CHECKING:  # pragma: no cover
    from ..distributed import RateLimit
    from ..service import EvaluatorSource, Executor
    from ..simulation import SimulationSettings

__all__ = ["ExecutorChoice", "executor_choice"]

EXECUTORS = ("local", "ray")


@dataclass
class ExecutorChoice:
    """The executor options of one ``eval`` command, checked; :meth:`build` makes the executor for a run."""

    kind: str = "local"
    address: str | None = None
    rate_limits: dict[str, RateLimit] = field(default_factory=dict)

    def build(
        self,
        agent_spec: str | None,
        registry: Callable[[], EvaluatorSource],
        simulation: Callable[[], SimulationSettings] | None = None,
    ) -> Executor | None:
        """``None`` for the local engine; else a Ray executor loading ``agent_spec`` in its workers, where
        ``simulation`` builds the run's simulation settings."""
        if self.kind == "local":
            return None
        from ..distributed import RayExecutor

        if agent_spec is not None and Path(agent_spec.split(":", 1)[0]).exists():
            agent_spec = str(Path(agent_spec).absolute())  # workers need not share this directory
        return RayExecutor(
            self.address,
            agent_spec=agent_spec,
            registry=registry,
            rate_limits=self.rate_limits,
            simulation=simulation,
        )


def executor_choice(kind: str, address: str | None, rate_limits: list[str]) -> ExecutorChoice:
    """Check the options (exit 2 with one ``error:`` line when they are wrong)."""
    if kind not in EXECUTORS:
        fail_input(f"--executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")
    if kind == "local" and (address is not None or rate_limits):
        fail_input("--ray-address and --rate-limit need --executor ray")
    if address is not None and not (address == "auto" or ":" in address):
        fail_input(f"--ray-address must be 'auto', ray://HOST:PORT or HOST:PORT, got {address!r}")
    limits: dict[str, RateLimit] = {}
    if rate_limits:
        from ..distributed._ratelimit import parse_rate_limit

        for text in rate_limits:
            try:
                name, limit = parse_rate_limit(text)
            except ValueError as exc:
                fail_input(f"--rate-limit {exc}")
            limits[name] = limit
    if kind == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            fail_input("--executor ray needs Ray: pip install 'agentgauge[ray]'")
    return ExecutorChoice(kind, address, limits)
