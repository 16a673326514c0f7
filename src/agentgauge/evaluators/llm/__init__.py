"""LLM-judge metrics, in both dialects, and their registration in the evaluator registry.

trpc: ``llm_final_response``, ``llm_rubric_response``, ``llm_rubric_knowledge_recall``, ``llm_rubric_critic``,
``llm_rubric_reference_critic``, ``llm_hallucinations``, ``llm_verifier_pairwise``, ``llm_judge_template`` (config
in ``criterion.llmJudge``; judge failures fail the case). ADK: ``final_response_match_v2``,
``response_evaluation_score``, ``safety_v1``, ``hallucinations_v1``, ``rubric_based_final_response_quality_v1``,
``rubric_based_tool_use_quality_v1``, the multi-turn ``multi_turn_task_success_v1``,
``multi_turn_trajectory_quality_v1``, ``multi_turn_tool_use_quality_v1``,
``rubric_based_multi_turn_trajectory_quality_v1`` and ``per_turn_user_simulator_quality_v1`` (config in
``criterion.adk``; judge failures leave invocations not evaluated).
"""

from __future__ import annotations

from ...judges import JudgePool, JudgeSettings
from ._adk import ADK_METRICS
from ._critic import CRITIC_METRICS
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._hallucinations import HALLUCINATIONS, HallucinationsEvaluator
from ._multi_turn import MULTI_TURN_METRICS, USER_SIMULATOR_QUALITY, MultiTurnEvaluator, UserSimulatorQualityEvaluator
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
    "MultiTurnEvaluator",
    "PairwiseEvaluator",
    "Prompt",
    "Sample",
    "TemplateEvaluator",
    "TrpcHallucinationsEvaluator",
    "UserSimulatorQualityEvaluator",
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
    *MULTI_TURN_METRICS,
    USER_SIMULATOR_QUALITY,
)
"""Every built-in judge metric."""


def build_llm_evaluators(
    settings: JudgeSettings | None = None, *, pool: JudgePool | None = None
) -> list[LLMJudgeEvaluator]:
    """One evaluator per built-in judge metric, all sharing one :class:`JudgePool` (per-judge limits, cache):
    ``pool``, else a new one with ``settings``."""
    pool = pool if pool is not None else JudgePool(settings)
    out: list[LLMJudgeEvaluator] = []
    special: dict[
        str,
        type[
            HallucinationsEvaluator
            | TrpcHallucinationsEvaluator
            | PairwiseEvaluator
            | TemplateEvaluator
            | UserSimulatorQualityEvaluator
        ],
    ] = {
        HALLUCINATIONS.name: HallucinationsEvaluator,
        TRPC_HALLUCINATIONS.name: TrpcHallucinationsEvaluator,
        PAIRWISE.name: PairwiseEvaluator,
        TEMPLATE.name: TemplateEvaluator,
        USER_SIMULATOR_QUALITY.name: UserSimulatorQualityEvaluator,
    }
    multi_turn = {m.name for m in MULTI_TURN_METRICS}
    for metric in ALL_METRICS:
        cls = special.get(metric.name)
        if cls is not None:
            out.append(cls(pool))
        elif metric.name in multi_turn:
            out.append(MultiTurnEvaluator(metric, pool))
        else:
            out.append(LLMJudgeEvaluator(metric, pool))
    return out
