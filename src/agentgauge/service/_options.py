"""The run options every (case, run) pipeline of an evaluation uses, as one frozen object validated once.

:class:`~agentgauge.run.AgentEvaluator` builds a :class:`RunOptions` from its keyword arguments; the execution job, the
local service and the Ray workers receive that object and rely on its values without checking them again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model._prices import PriceTable
    from ..simulation import SimulationSettings
    from ._agent_cache import AgentResponseCache

__all__ = ["RunOptions", "RunOptionsView", "run_options"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How each (case, run) pipeline of an evaluation runs; invalid values raise ``ValueError`` on construction.

    - ``parallelism`` (at least 1): how many pipelines are in flight at once, across cases and runs alike.
    - ``timeout`` (positive seconds, or ``None`` for none): bounds each case's inference.
    - ``prices``: the cost of the token usage live runs record (``None``: the built-in price table).
    - ``simulation``: user simulator, expected agent and tool-mock generator of scenario and
      ``expectedRunnerEnabled`` cases (``None``: none).
    - ``agent_cache``: earlier agent answers to reuse, new ones stored (``None``: the agent answers every case).
    """

    parallelism: int = 4
    timeout: float | None = None
    prices: PriceTable | None = None
    simulation: SimulationSettings | None = None
    agent_cache: AgentResponseCache | None = None

    def __post_init__(self) -> None:
        if self.parallelism < 1:
            raise ValueError(f"parallelism must be at least 1, got {self.parallelism}")
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")


def run_options(
    options: RunOptions | None,
    *,
    parallelism: int | None = None,
    timeout: float | None = None,
    prices: PriceTable | None = None,
    simulation: SimulationSettings | None = None,
    agent_cache: AgentResponseCache | None = None,
) -> RunOptions:
    """``options``, or the :class:`RunOptions` of the separate keywords that constructors took before the options
    object existed (``None``: the default). Giving both raises ``TypeError``: one of them would be ignored."""
    separate = {
        "parallelism": parallelism,
        "timeout": timeout,
        "prices": prices,
        "simulation": simulation,
        "agent_cache": agent_cache,
    }
    given = {name: value for name, value in separate.items() if value is not None}
    if options is None:
        return RunOptions(**given)  # type: ignore[arg-type]
    if given:
        raise TypeError(f"pass either options or {', '.join(given)}, not both")
    return options


class RunOptionsView:
    """The fields of ``self.options`` read by their own names (``job.parallelism``), as before the options object."""

    options: RunOptions

    @property
    def parallelism(self) -> int:
        """How many pipelines are in flight at once (:attr:`RunOptions.parallelism`)."""
        return self.options.parallelism

    @property
    def timeout(self) -> float | None:
        """The inference time limit of each case, in seconds (:attr:`RunOptions.timeout`)."""
        return self.options.timeout

    @property
    def prices(self) -> PriceTable | None:
        """The price table of recorded token usage (:attr:`RunOptions.prices`)."""
        return self.options.prices

    @property
    def simulation(self) -> SimulationSettings | None:
        """The simulation settings (:attr:`RunOptions.simulation`)."""
        return self.options.simulation

    @property
    def agent_cache(self) -> AgentResponseCache | None:
        """The agent answer cache (:attr:`RunOptions.agent_cache`)."""
        return self.options.agent_cache
