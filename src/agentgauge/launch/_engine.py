"""Which engine runs a request's cases: this process, or a Ray cluster with cluster-wide rate limits."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:  # pragma: no cover
    from ..distributed import RateLimit
    from ..service import EvaluatorSource, Executor
    from ..simulation import SimulationSettings
    from ._options import EngineOptions
    from ._surface import Surface

__all__ = ["EXECUTORS", "EngineChoice", "engine_choice"]

EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class EngineChoice:
    """The engine options of a request, checked; :meth:`build` makes the executor of a run."""

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
        ``registry`` builds their registry and ``simulation`` their simulation settings."""
        if self.kind == "local":
            return None
        from ..distributed import RayExecutor

        if agent_spec is not None and Path(agent_spec.split(":", 1)[0]).exists():
            agent_spec = str(Path(agent_spec).absolute())  # workers need not share this directory
        return RayExecutor(
            self.address, agent_spec=agent_spec, registry=registry, rate_limits=self.rate_limits, simulation=simulation
        )


def engine_choice(options: EngineOptions, surface: Surface) -> EngineChoice:
    """``options`` checked (:class:`InputError` naming the option when they are wrong)."""
    name = surface.name
    kind, address = options.executor, options.ray_address
    if kind not in EXECUTORS:
        raise InputError(f"{name('executor')} must be one of {', '.join(EXECUTORS)}, got {kind!r}")
    if kind == "local" and (address is not None or options.rate_limits):
        raise InputError(f"{name('ray_address')} and {name('rate_limit')} need {name('executor')} ray")
    if address is not None and not (address == "auto" or ":" in address):
        raise InputError(f"{name('ray_address')} must be 'auto', ray://HOST:PORT or HOST:PORT, got {address!r}")
    limits: dict[str, RateLimit] = {}
    if options.rate_limits:
        from ..distributed import parse_rate_limit

        for text in options.rate_limits:
            try:
                endpoint, limit = parse_rate_limit(text)
            except ValueError as exc:
                raise InputError(f"{name('rate_limit')} {exc}") from None
            limits[endpoint] = limit
    if kind == "ray" and importlib.util.find_spec("ray") is None:
        raise InputError(f"{name('executor')} ray needs Ray: pip install 'agentgauge[ray]'")
    return EngineChoice(kind, address, limits)
