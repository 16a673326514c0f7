"""Running evaluations on a Ray cluster (``pip install 'agentgauge[ray]'``).

:class:`RayExecutor` is an :class:`~agentgauge.service.Executor` for
:class:`~agentgauge.run._evaluator.AgentEvaluator` (``executor=RayExecutor(...)`` or ``executor="ray"``) and
``agentgauge eval --executor ray``; :class:`RateLimit` configures its cluster-wide limits per endpoint. Ray itself is
imported only when a run starts. See docs/scale.md.
"""

from ._executor import NAMESPACE, RayExecutor
from ._ratelimit import EndpointLimiter, RateLimit, parse_rate_limit

__all__ = ["NAMESPACE", "EndpointLimiter", "RateLimit", "RayExecutor", "parse_rate_limit"]
