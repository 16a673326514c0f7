"""LLM-judge metrics, in both dialects, and their registration in the evaluator registry.

trpc: ``llm_final_response``, ``llm_rubric_response``, ``llm_rubric_knowledge_recall``, ``llm_rubric_critic``,
``llm_rubric_reference_critic``, ``llm_hallucinations``, ``llm_verifier_pairwise``, ``llm_judge_template`` (config
in ``criterion.llmJudge``; judge failures fail the case). ADK: ``final_response_match_v2``,
``response_evaluation_score``, ``safety_v1``, ``hallucinations_v1``, ``rubric_based_final_response_quality_v1``,
``rubric_based_tool_use_quality_v1`` (config in ``criterion.adk``; judge failures leave invocations not evaluated).
"""

from __future__ import annotations

from ...judges import JudgePool, JudgeSettings
from ._adk import ADK_METRICS
from ._critic import CRITIC_METRICS
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._hallucinations import HALLUCINATIONS, HallucinationsEvaluator
from ._pairwise import PAIRWISE, PairwiseEvaluator
from ._ready import check_judge_ready
from ._sample import JudgeConfig, Prompt, Sample
from ._template import TEMPLATE, TemplateEvaluator
from ._trpc import TRPC_METRICS
from ._trpc_hallucinations import TRPC_HALLUCINATIONS, TrpcHallucinationsEvaluator

__all__ = [
    "ALL_METRICS",
    "HallucinationsEvaluator",
    "JudgeConfig",
    "JudgeMetric",
    "LLMJudgeEvaluator",
    "PairwiseEvaluator",
    "Prompt",
    "Sample",
    "TemplateEvaluator",
    "TrpcHallucinationsEvaluator",
    "build_llm_evaluators",
    "check_judge_ready",
]

ALL_METRICS: tuple[JudgeMetric, ...] = (
    *TRPC_METRICS,
    *CRITIC_METRICS,
    TRPC_HALLUCINATIONS,
    PAIRWISE,
    TEMPLATE,
    *ADK_METRICS,
    HALLUCINATIONS,
)
"""Every built-in judge metric."""


def build_llm_evaluators(settings: JudgeSettings | None = None) -> list[LLMJudgeEvaluator]:
    """One evaluator per built-in judge metric, all sharing one :class:`JudgePool` (per-judge limits, cache)."""
    pool = JudgePool(settings)
    out: list[LLMJudgeEvaluator] = []
    special: dict[
        str, type[HallucinationsEvaluator | TrpcHallucinationsEvaluator | PairwiseEvaluator | TemplateEvaluator]
    ] = {
        HALLUCINATIONS.name: HallucinationsEvaluator,
        TRPC_HALLUCINATIONS.name: TrpcHallucinationsEvaluator,
        PAIRWISE.name: PairwiseEvaluator,
        TEMPLATE.name: TemplateEvaluator,
    }
    for metric in ALL_METRICS:
        cls = special.get(metric.name)
        out.append(cls(pool) if cls is not None else LLMJudgeEvaluator(metric, pool))
    return out
