"""Run one eval set in memory with agentgauge's evaluator (shared by the ADK drop-in and the pytest plugin)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import EvalMetric, EvalSet, EvalSetResult

__all__ = ["arun_eval_set", "run_eval_set"]


async def arun_eval_set(
    eval_set: EvalSet,
    metrics: Sequence[EvalMetric],
    agent: object,
    *,
    app_name: str,
    num_runs: int = 1,
    case_ids: Sequence[str] | None = None,
    result_manager: Any = None,
    case_status: str | None = None,
) -> EvalSetResult:
    """Evaluate ``eval_set`` with ``metrics`` against ``agent`` (anything :func:`agentgauge.agents.as_agent`
    accepts, or ``None`` when every selected case is in trace mode) using in-memory managers; returns every case
    result of every run (its summary's case statuses decided by ``case_status``, default ``mean``).

    ``result_manager`` (an agentgauge result manager) also stores the result; by default it is kept in memory only.
    """
    from ..agents import as_agent
    from ..run._evaluator import AgentEvaluator
    from ..storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    sets = InMemoryEvalSetManager()
    sets.put(app_name, eval_set)
    metric_store = InMemoryMetricManager()
    metric_store.put_all(app_name, eval_set.eval_set_id, list(metrics))
    evaluator = AgentEvaluator(
        app_name,
        as_agent(agent) if agent is not None else None,
        eval_set_manager=sets,
        metric_manager=metric_store,
        result_manager=result_manager if result_manager is not None else InMemoryEvalResultManager(),
        num_runs=num_runs,
        case_ids=list(case_ids) if case_ids is not None else None,
        case_status=case_status,
    )
    outcome = await evaluator.evaluate(eval_set.eval_set_id)
    return outcome.eval_set_result


def run_eval_set(
    eval_set: EvalSet,
    metrics: Sequence[EvalMetric],
    agent: object,
    *,
    app_name: str,
    num_runs: int = 1,
    case_ids: Sequence[str] | None = None,
    result_manager: Any = None,
    case_status: str | None = None,
) -> EvalSetResult:
    """Synchronous :func:`arun_eval_set` (runs its own event loop; call it from synchronous code only)."""
    import asyncio

    return asyncio.run(
        arun_eval_set(
            eval_set,
            metrics,
            agent,
            app_name=app_name,
            num_runs=num_runs,
            case_ids=case_ids,
            result_manager=result_manager,
            case_status=case_status,
        )
    )
