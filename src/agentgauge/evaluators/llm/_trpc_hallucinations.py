"""trpc's ``llm_hallucinations``: per sample, one call splits the final answer into sentences and a second call
labels each sentence against the context the agent had; the share of grounded sentences is the sample score."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...judges import JudgeClient, JudgePool
from ...model import Invocation
from ._aggregate import average_invocations
from ._engine import JudgeMetric
from ._grounding import GroundingEvaluator
from ._sample import JudgeConfig, NotApplicable, Sample
from ._text import final_text
from ._trpc import trpc_majority_vote

__all__ = ["TRPC_HALLUCINATIONS", "TrpcHallucinationsEvaluator"]

TRPC_HALLUCINATIONS = JudgeMetric(
    name="llm_hallucinations",
    description="LLM judge (trpc): share of final-answer sentences grounded in the context (supported and "
    "not_applicable count 1); two calls per sample, majority vote, average over invocations",
    dialect="trpc",
    needs_expected=False,
    aggregate_samples=trpc_majority_vote,
    aggregate_invocations=average_invocations,
)


class TrpcHallucinationsEvaluator(GroundingEvaluator):
    """``llm_hallucinations`` with trpc semantics: configuration in ``criterion.llmJudge``; an answer that
    cannot be parsed (no sentences, no labels, an unknown label) fails the case with the reason."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(TRPC_HALLUCINATIONS, pool)

    def texts_to_check(self, actual: Invocation, config: JudgeConfig) -> list[str]:
        """The final answer only."""
        text = final_text(actual)
        if not text.strip():
            raise NotApplicable("no final answer to check")
        return [text]

    async def judge_texts(self, texts: Sequence[str], context: str, config: JudgeConfig, client: JudgeClient) -> Sample:
        """Draw ``num_samples`` segment-and-validate pairs of the final answer, then vote."""
        [text] = texts
        return await self.best_sample(functools.partial(self.grounded_sample, text, context, config, client), config)
