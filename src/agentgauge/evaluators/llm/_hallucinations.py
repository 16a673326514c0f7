"""hallucinations_v1: segment each natural-language response into sentences, then label each sentence against the
context the agent had (prompts, context messages, tool calls and outputs)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...judges import JudgeClient, JudgePool
from ...model import Invocation
from ._aggregate import mean_of_evaluated, mean_samples
from ._engine import JudgeMetric, gather_fail_fast
from ._grounding import GroundingEvaluator
from ._sample import JudgeConfig, NotApplicable, Sample
from ._text import final_text

__all__ = ["HALLUCINATIONS", "HallucinationsEvaluator"]


HALLUCINATIONS = JudgeMetric(
    name="hallucinations_v1",
    description="LLM judge (ADK): share of response sentences supported by the context (supported and "
    "not_applicable count 1); segmenter call then validator call per response",
    dialect="adk",
    needs_expected=False,
    aggregate_samples=lambda samples, config: mean_samples(samples),
    aggregate_invocations=mean_of_evaluated,
    adk_default_samples=1,
)


class HallucinationsEvaluator(GroundingEvaluator):
    """Two judge calls per natural-language step (the final response, plus intermediate responses when
    ``evaluate_intermediate_nl_responses`` is set). Step score = share of grounded sentences; invocation score =
    mean of step scores; overall = mean over evaluated invocations."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(HALLUCINATIONS, pool)

    def texts_to_check(self, actual: Invocation, config: JudgeConfig) -> list[str]:
        """The final response, after the intermediate responses when the criterion asks for them."""
        steps: list[str] = []
        if config.flag("evaluate_intermediate_nl_responses"):
            steps = [m.content for m in actual.intermediate_responses if m.content.strip()]
        if final_text(actual).strip():
            steps.append(final_text(actual))
        if not steps:
            raise NotApplicable("no natural-language response to check")
        return steps

    async def judge_texts(self, texts: Sequence[str], context: str, config: JudgeConfig, client: JudgeClient) -> Sample:
        """One sample per step; the invocation's score is the mean of the scored steps, its reason all of theirs."""
        results = await gather_fail_fast(
            [functools.partial(self.grounded_sample, t, context, config, client) for t in texts]
        )
        scored = [r for r in results if r.score is not None]
        reason = "\n".join(r.reason for r in results if r.reason)
        score = sum(r.score for r in scored if r.score is not None) / len(scored) if scored else None
        return Sample(score, reason)
