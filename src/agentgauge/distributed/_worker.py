"""The Ray worker side of a distributed run: an async actor that loads the agent and the evaluator registry once
and runs (case, run) pipelines -- inference, then scoring -- returning compact results."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..agents import Agent, AgentOutput, AgentRequest, as_agent, load_agent
from ..formats._result_writer import case_json
from ..model import EvalCase
from ..service import (
    CompactResult,
    EvaluateRequest,
    EvaluatorSource,
    InferenceRequest,
    LocalService,
    RunOptions,
    case_row,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..simulation import SimulationSettings

__all__ = ["CaseWorker", "GatedAgent"]


class GatedAgent:
    """An agent whose every turn passes the process's call gate as endpoint ``"agent"``."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent

    async def run(self, request: AgentRequest) -> AgentOutput:
        """One turn of the wrapped agent, admitted by the gate."""
        from .._util.callgate import gated

        async with gated("agent"):
            return await self.agent.run(request)


class _NoSets:
    def get(self, app_name: str, eval_set_id: str) -> Any:
        raise LookupError("a worker is handed its cases")


class CaseWorker:
    """One Ray actor: ``agent`` is an agent spec (loaded here with :func:`~agentgauge.agents.load_agent`), an
    agent object shipped by Ray, or ``None`` (trace mode only); ``registry`` builds the evaluator registry.
    ``options`` are the run's options as the driver validated them (its ``timeout``, ``prices`` and ``simulation``
    apply here); ``simulation``, when given, is a factory of the simulation settings called here instead.
    ``limiter`` is the rate limiter actor's name and the endpoints it governs (``None``: no limits).
    """

    def __init__(
        self,
        agent: object | None,
        registry: Callable[[], EvaluatorSource] | None,
        options: RunOptions,
        limiter: tuple[str, str, frozenset[str]] | None,
        simulation: Callable[[], SimulationSettings] | None = None,
    ) -> None:
        loaded = load_agent(agent) if isinstance(agent, str) else agent
        runner: Agent | None = as_agent(loaded) if loaded is not None else None
        if limiter is not None:
            import ray

            from .._util.callgate import set_call_gate
            from ._ratelimit import limiter_gate

            name, namespace, endpoints = limiter
            set_call_gate(limiter_gate(ray.get_actor(name, namespace=namespace), endpoints))
            if runner is not None and "agent" in endpoints:
                runner = GatedAgent(runner)
        if registry is None:
            from ..evaluators import Registry

            evaluators: EvaluatorSource = Registry()
        else:
            evaluators = registry()
        if simulation is not None:
            options = dataclasses.replace(options, simulation=simulation())
        self._service = LocalService(runner, eval_set_manager=_NoSets(), evaluators=evaluators, options=options)

    async def run(
        self,
        run_id: int,
        inference_request: InferenceRequest,
        evaluate_request: EvaluateRequest,
        cases: list[EvalCase],
    ) -> list[CompactResult]:
        """Infer and score each case (concurrently), results in the order of ``cases``; problems of a case are a
        failed result, never an exception."""
        return list(await asyncio.gather(*(self._one(run_id, inference_request, evaluate_request, c) for c in cases)))

    async def _one(
        self, run_id: int, inference_request: InferenceRequest, evaluate_request: EvaluateRequest, case: EvalCase
    ) -> CompactResult:
        inference, _ = await self._service.infer(inference_request, case, {}, run_id=run_id)
        result, _ = await self._service.score(evaluate_request, case, inference, {}, run_id=run_id)
        return CompactResult(case_row(result), case_json(result.model_dump(mode="json")))

    def pid(self) -> int:
        """The worker's process id."""
        return os.getpid()
