"""LLM-judge metrics, in both dialects, and their registration in the evaluator registry.

trpc: ``llm_final_response``, ``llm_rubric_response``, ``llm_rubric_knowledge_recall`` (config in
``criterion.llmJudge``; judge failures fail the case). ADK: ``final_response_match_v2``,
``response_evaluation_score``, ``safety_v1``, ``hallucinations_v1``, ``rubric_based_final_response_quality_v1``,
``rubric_based_tool_use_quality_v1`` (config in ``criterion.adk``; judge failures leave invocations not evaluated).
"""

from __future__ import annotations

from typing import Any

from ...judges import JudgePool, JudgeSettings
from ._adk import ADK_METRICS
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._hallucinations import HALLUCINATIONS, HallucinationsEvaluator
from ._ready import check_judge_ready
from ._sample import JudgeConfig, Prompt, Sample
from ._trpc import TRPC_METRICS

__all__ = [
    "ALL_METRICS",
    "HallucinationsEvaluator",
    "JudgeConfig",
    "JudgeMetric",
    "LLMJudgeEvaluator",
    "Prompt",
    "Sample",
    "build_llm_evaluators",
    "check_judge_ready",
    "register_llm_builtins",
]

ALL_METRICS: tuple[JudgeMetric, ...] = (*TRPC_METRICS, *ADK_METRICS, HALLUCINATIONS)
"""Every built-in judge metric."""


def build_llm_evaluators(settings: JudgeSettings | None = None) -> list[LLMJudgeEvaluator]:
    """One evaluator per built-in judge metric, all sharing one :class:`JudgePool` (per-judge limits, cache)."""
    pool = JudgePool(settings)
    out: list[LLMJudgeEvaluator] = []
    for metric in ALL_METRICS:
        out.append(HallucinationsEvaluator(pool) if metric is HALLUCINATIONS else LLMJudgeEvaluator(metric, pool))
    return out


def register_llm_builtins(registry: Any, settings: JudgeSettings | None) -> None:
    """Register every built-in judge metric in ``registry`` with its :class:`MetricInfo`."""
    from .. import MetricInfo

    for evaluator in build_llm_evaluators(settings):
        m = evaluator.metric
        info = MetricInfo(
            name=m.name,
            description=m.description,
            needs_expected=m.needs_expected,
            needs_judge=True,
            min_value=m.min_value,
            max_value=m.max_value,
        )
        registry.register(evaluator, name=m.name, info=info)
