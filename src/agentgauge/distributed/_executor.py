"""The Ray executor: (case, run) pipelines on async actors of a Ray cluster, results streamed back to the driver.

What runs where: the driver (the ``agentgauge eval`` process or the caller of the API) reads the eval set, sends
each case to the least busy :class:`~agentgauge.distributed._worker.CaseWorker` actor that has a free slot, and
consumes the compact results as they arrive (result file, summary rows, progress). The actors load the agent and
the evaluator registry once, run inference and scoring, and return a :class:`~agentgauge.service.CompactResult`.
A named :class:`~agentgauge.distributed._ratelimit.RateLimiterActor` admits agent and judge calls cluster-wide.

Every work item is keyed by (result id, case, run) -- its dispatch position within the run of one result. When a
worker process dies, Ray restarts the actor and the driver sends the item's case again (to the least busy actor),
up to ``max_attempts`` times; a result that arrives for a key already done is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .._util.uuids import uuid4
from ..errors import InputError
from ..service import Emit, EvaluatorSource, ExecutionJob, WorkItem
from ._ratelimit import RateLimit

if TYPE_CHECKING:  # pragma: no cover
    from ..simulation import SimulationSettings

__all__ = ["RayExecutor"]

NAMESPACE = "agentgauge"
"""The Ray namespace of the actors a run creates."""

_UNSUPPORTED_CALLBACKS = (
    "before_inference_case",
    "after_inference_case",
    "before_evaluate_case",
    "after_evaluate_case",
    "after_inference_set",
)


class RayExecutor:
    """Runs an evaluation's pipelines on a Ray cluster (``pip install 'agentgauge[ray]'``).

    - ``address``: ``None`` connects to the cluster of ``RAY_ADDRESS`` or starts a local one; ``"auto"`` joins the
      cluster running on this machine; ``"ray://host:10001"`` connects through Ray Client. A Ray session this
      executor started is shut down when the run ends; one that was already up is left alone.
    - ``agent_spec``: the agent as the command line names it (a file, directory or ``module:attribute``), loaded in
      every worker; without it the evaluator's agent object is shipped to the workers (it must pickle).
    - ``registry``: a picklable factory of the evaluator registry, called once per worker (default: the built-in
      :class:`~agentgauge.evaluators.Registry`).
    - ``num_actors`` (default: one per CPU of the cluster, at most the parallelism) share the evaluator's
      ``parallelism``: each actor runs at most ``ceil(parallelism / num_actors)`` cases at once.
    - ``rate_limits``: per endpoint (``"agent"``, ``"judge"`` or ``"judge:<model>"``), a :class:`RateLimit` enforced
      across all actors by one named limiter actor.
    - ``batch_size``: cases sent per actor call (default: an eighth of an actor's slots, 1 to 64); the cases of a
      call run concurrently in the actor and return together, which saves Ray's per-call cost at high concurrency.
    - ``max_attempts``: how often a case is sent when the worker running it dies (then it fails with a reason).
    - ``simulation``: a picklable factory of the run's simulation settings, called once per worker (default: the
      evaluator's ``simulation`` settings are shipped as they are; objects defined in a file loaded by path cannot
      be, so the command line passes a factory that loads those files in the worker).
    - ``init_options`` go to ``ray.init`` (e.g. ``runtime_env``), ``actor_options`` to every worker actor
      (e.g. ``{"num_cpus": 1}``, the default).

    Case-level callbacks and ``AfterInferenceSet`` callbacks run in this process only and are refused
    (``ValueError``); set-level ``Before*`` and ``AfterEvaluateSet`` callbacks work. The evaluator's ``prices`` and
    ``simulation`` settings are shipped to every worker (they must pickle); an ``agent_cache`` is refused
    (:class:`~agentgauge.errors.InputError`). Resuming (``evaluate(resume=...)``) and the progress log work: the
    driver skips the pairs scored before and logs each result as it arrives.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        agent_spec: str | None = None,
        registry: Callable[[], EvaluatorSource] | None = None,
        num_actors: int | None = None,
        rate_limits: Mapping[str, RateLimit] | None = None,
        max_attempts: int = 3,
        batch_size: int | None = None,
        init_options: Mapping[str, Any] | None = None,
        actor_options: Mapping[str, Any] | None = None,
        simulation: Callable[[], SimulationSettings] | None = None,
    ) -> None:
        if num_actors is not None and num_actors < 1:
            raise ValueError(f"num_actors must be at least 1, got {num_actors}")
        if batch_size is not None and batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        self.address = address
        self.agent_spec = agent_spec
        self.registry = registry
        self.num_actors = num_actors
        self.rate_limits = dict(rate_limits or {})
        self.max_attempts = max_attempts
        self.batch_size = batch_size
        self.init_options = dict(init_options or {})
        self.actor_options = dict(actor_options or {})
        self.simulation = simulation
        self.worker_pids: list[int] = []
        """Process ids of the worker actors of the current run (for monitoring and tests)."""
        self.retried = 0
        """How many cases of the last run were sent again after their worker died."""
        self.limiter_name: str | None = None
        """The name of the current run's limiter actor (namespace :data:`NAMESPACE`), when limits are set."""
        self.timings: dict[str, float] = {}
        """Seconds the last run spent connecting to Ray, starting the actors, and dispatching the cases (first
        case sent to last result received)."""

    def _connect(self) -> bool:
        """Connect to (or start) Ray; True when this call started the session (and must end it)."""
        import ray

        if ray.is_initialized():
            return False
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": True}
        if self.address is None and not os.environ.get("RAY_ADDRESS"):
            options["include_dashboard"] = False
        options.update(self.init_options)
        try:
            ray.init(address=self.address, namespace=NAMESPACE, **options)
        except Exception as exc:  # an unreachable or misconfigured cluster: one line, not Ray's traceback
            where = f" at {self.address}" if self.address else ""
            raise InputError(f"cannot start or join the Ray cluster{where}: {type(exc).__name__}: {exc}") from None
        return True

    def _actor_count(self, parallelism: int) -> int:
        import ray

        if self.num_actors is not None:
            return min(self.num_actors, parallelism)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        return max(1, min(cpus, parallelism))

    async def execute(self, job: ExecutionJob, items: Iterable[WorkItem], emit: Emit) -> None:
        """Run every item on the cluster (see :class:`~agentgauge.service.Executor`)."""
        import ray

        refused = [name for point in _UNSUPPORTED_CALLBACKS for name in job.callbacks.names(point)]
        if refused:
            raise ValueError(
                f"callbacks {', '.join(refused)} run in this process only; use the local executor for them"
            )
        if job.options.agent_cache is not None:
            raise InputError("an agent cache (--cache-agent) is not available with the Ray executor")
        clock = time.perf_counter()
        started = self._connect()  # in the main thread: Ray installs its signal handlers there
        self.timings = {"connect": time.perf_counter() - clock}
        limiter = None
        actors: list[Any] = []
        try:
            count = self._actor_count(job.options.parallelism)
            slots = math.ceil(job.options.parallelism / count)
            limiter_spec = None
            if self.rate_limits:
                from ._ratelimit import RateLimiterActor

                self.limiter_name = f"agentgauge-rate-limiter-{uuid4()}"
                limiter = (
                    ray.remote(RateLimiterActor)
                    .options(name=self.limiter_name, namespace=NAMESPACE, num_cpus=0, max_concurrency=100_000)
                    .remote(self.rate_limits)
                )
                limiter_spec = (self.limiter_name, NAMESPACE, frozenset(self.rate_limits))
            from ._worker import CaseWorker

            agent = self.agent_spec if self.agent_spec is not None else job.agent
            options = {"num_cpus": 1, **self.actor_options}
            worker_class = ray.remote(CaseWorker).options(max_concurrency=slots, max_restarts=-1, **options)
            # A simulation factory replaces the driver's settings, which then need not pickle.
            run_options = job.options if self.simulation is None else dataclasses.replace(job.options, simulation=None)
            try:
                actors = [
                    worker_class.remote(agent, self.registry, run_options, limiter_spec, self.simulation)
                    for _ in range(count)
                ]
            except (TypeError, ValueError, AttributeError) as exc:  # e.g. a simulator object that cannot pickle
                raise InputError(f"the Ray workers could not be sent the run's settings: {exc}") from None
            try:
                self.worker_pids = list(await asyncio.gather(*(a.pid.remote() for a in actors)))
            except ray.exceptions.RayActorError as exc:  # e.g. the agent cannot be loaded on the workers
                raise InputError(f"the Ray workers could not start: {exc}") from None
            self.timings["actors"] = time.perf_counter() - clock - self.timings["connect"]
            if job.started is not None:  # the workers are up; the first batches go out next
                job.started()
            clock = time.perf_counter()
            await self._dispatch(job, actors, slots, items, emit)
            self.timings["dispatch"] = time.perf_counter() - clock
        finally:
            await asyncio.shield(asyncio.to_thread(self._release, actors, limiter, started))

    async def _dispatch(
        self, job: ExecutionJob, actors: list[Any], slots: int, items: Iterable[WorkItem], emit: Emit
    ) -> None:
        from ._dispatch import Dispatcher

        if job.prepared is not None and not job.prepared.done():
            job.prepared.cancel()  # scoring happens in the workers; the driver needs no scorer
        batch_size = self.batch_size or max(1, min(64, slots // 8))
        self.retried = 0
        dispatcher = Dispatcher(actors, slots, batch_size, self.max_attempts, items, emit, self.worker_pids)
        try:
            await dispatcher.run()
        finally:
            self.retried = dispatcher.retried

    def _release(self, actors: list[Any], limiter: Any, started: bool) -> None:
        import ray

        for actor in [*actors, *([limiter] if limiter is not None else [])]:
            with contextlib.suppress(Exception):
                ray.kill(actor)
        if started:
            with contextlib.suppress(Exception):
                ray.shutdown()
