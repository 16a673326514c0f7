"""Evaluating an eval set with a (remote) agent over in-memory storage, as the remote-agent tests compare scores."""

from __future__ import annotations

from typing import Any

from agentgauge import AgentEvaluator
from agentgauge.model import EvalMetric, EvalSet, EvalSetResult
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


def evaluate_in_memory(agent: Any, eval_set: EvalSet, metrics: list[EvalMetric], **options: Any) -> EvalSetResult:
    """The result of running ``eval_set`` with ``agent`` and ``metrics`` (app ``app``); ``options`` go to
    :class:`~agentgauge.AgentEvaluator` (``parallelism=8``)."""
    sets, stored = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", eval_set)
    stored.put_all("app", eval_set.eval_set_id, metrics)
    evaluator = AgentEvaluator(
        "app",
        agent,
        eval_set_manager=sets,
        metric_manager=stored,
        result_manager=InMemoryEvalResultManager(),
        **options,
    )
    return evaluator.evaluate_sync(eval_set.eval_set_id).eval_set_result
