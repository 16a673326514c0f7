"""The run options every (case, run) pipeline of an evaluation uses, as one frozen object.

:class:`~agentgauge.run.AgentEvaluator` builds a :class:`RunOptions` from its keyword arguments; the execution job, the
local service and the Ray workers receive that object and rely on its values. A run's request is checked once, before
(:meth:`agentgauge.launch.EvalRequest.check`); the pool that bounds the pipelines refuses a parallelism below 1 itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model._prices import PriceTable
    from ..simulation import SimulationSettings
    from ._agent_cache import AgentResponseCache
    from ._aggregation import CaseResultAggregator

__all__ = ["RunOptions"]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How each (case, run) pipeline of an evaluation runs; a timeout that is not positive raises ``ValueError`` on
    construction.

    - ``parallelism`` (at least 1, refused by the pool otherwise): how many pipelines are in flight at once, across
      cases and runs alike.
    - ``timeout`` (positive seconds, or ``None`` for none): bounds each case's inference.
    - ``prices``: the cost of the token usage live runs record (``None``: the built-in price table).
    - ``simulation``: user simulator, expected agent and tool-mock generator of scenario and
      ``expectedRunnerEnabled`` cases (``None``: none).
    - ``agent_cache``: earlier agent answers to reuse, new ones stored (``None``: the agent answers every case).
    - ``case_aggregator``: gives each case run its case score and status (``None``: trpc-agent-go's default for
      cases scored by trpc's rules, see :class:`~agentgauge.service.CaseResultAggregator`).
    """

    parallelism: int = 4
    timeout: float | None = None
    prices: PriceTable | None = None
    simulation: SimulationSettings | None = None
    agent_cache: AgentResponseCache | None = None
    case_aggregator: CaseResultAggregator | None = None

    def __post_init__(self) -> None:
        if self.timeout is not None and self.timeout <= 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")
