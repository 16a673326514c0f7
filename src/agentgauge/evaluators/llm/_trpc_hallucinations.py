"""trpc's ``llm_hallucinations``: per sample, one call splits the final answer into sentences and a second call
labels each sentence against the context the agent had; the share of grounded sentences is the sample score."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...judges import JudgeClient, JudgeParseError, JudgePool
from ...model import Invocation
from .._base import PerInvocationResult
from ._aggregate import average_invocations
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._hallucinations import segment, sentence_sample, validate
from ._sample import JudgeConfig, NotApplicable, Sample
from ._text import final_text, render_context
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


class TrpcHallucinationsEvaluator(LLMJudgeEvaluator):
    """``llm_hallucinations`` with trpc semantics: configuration in ``criterion.llmJudge``; an answer that
    cannot be parsed (no sentences, no labels, an unknown label) fails the case with the reason."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(TRPC_HALLUCINATIONS, pool)

    async def _one_sample(self, text: str, context: str, config: JudgeConfig, client: JudgeClient, k: int) -> Sample:
        segmented, sentences = await segment(text, config, client, k)
        if not sentences:
            raise JudgeParseError("segmenter answer has no <sentence>...</sentence> items", raw=segmented)
        validated, labels = await validate(sentences, context, config, client, k)
        if not labels:
            raise JudgeParseError("validator answer has no 'label:' lines", raw=validated)
        unknown = sorted({label for _, label, value in labels if value is None})
        if unknown:
            raise JudgeParseError(f"validator answer has unknown label(s): {', '.join(unknown)}", raw=validated)
        return sentence_sample([(sentence, label, value) for sentence, label, value in labels if value is not None])

    async def judge_invocation(
        self,
        index: int,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        config: JudgeConfig,
        client: JudgeClient,
    ) -> PerInvocationResult:
        """Draw ``num_samples`` segment-and-validate pairs for the last invocation's final answer, then vote."""
        actual = actuals[-1]
        text = final_text(actual)
        if not text.strip():
            raise NotApplicable("no final answer to check")
        draw = functools.partial(self._one_sample, text, render_context(actuals), config, client)
        return await self.vote(draw, actual, expecteds[-1], config)
