"""The core both hallucination metrics share (ADK ``hallucinations_v1``, trpc ``llm_hallucinations``): a segmenter call
splits a response into sentences, a validator call labels each sentence against the context the agent had, and the
share of grounded sentences is the sample's score."""

from __future__ import annotations

import abc
from collections.abc import Sequence

from ...judges import JudgeClient, JudgeParseError, snippet
from ...model import Invocation, RubricScore
from .._base import PerInvocationResult
from ._engine import LLMJudgeEvaluator, sample_result
from ._parsers import parse_hallucination_labels, parse_sentences
from ._prompts import HALLUCINATION_SEGMENTER, HALLUCINATION_VALIDATOR
from ._sample import JudgeConfig, Sample
from ._text import render_context

__all__ = ["GroundingEvaluator", "segment", "sentence_sample", "validate"]


async def segment(text: str, config: JudgeConfig, client: JudgeClient, k: int = 0) -> tuple[str, list[str]]:
    """The segmenter call for ``text`` (sample ``k``): the judge's answer and the sentences read from it."""
    answer = await client.ask(
        [{"role": "user", "content": HALLUCINATION_SEGMENTER.format(response=text)}],
        generation_config=config.generation_config,
        sample_index=k,
        time_budget=config.time_budget,
    )
    return answer, parse_sentences(answer)


async def validate(
    sentences: Sequence[str], context: str, config: JudgeConfig, client: JudgeClient, k: int = 0
) -> tuple[str, list[tuple[str, str, float | None]]]:
    """The validator call labelling ``sentences`` against ``context`` (sample ``k``): the judge's answer and
    its ``(sentence, label, score)`` triples (score ``None`` for an unknown label)."""
    numbered = "\n".join(f'<sentence id="{i}">{s}</sentence>' for i, s in enumerate(sentences, start=1))
    answer = await client.ask(
        [{"role": "user", "content": HALLUCINATION_VALIDATOR.format(context=context, sentences=numbered)}],
        generation_config=config.generation_config,
        sample_index=k,
        time_budget=config.time_budget,
    )
    return answer, parse_hallucination_labels(answer)


def sentence_sample(labels: Sequence[tuple[str, str, float]]) -> Sample:
    """One rubric item per labelled sentence; the score is the share of grounded sentences."""
    items = [
        RubricScore(id=f"sentence_{i}", reason=f"[{label}] {sentence}", score=value)
        for i, (sentence, label, value) in enumerate(labels, start=1)
    ]
    mean = sum(value for _, _, value in labels) / len(labels)
    return Sample(mean, "\n".join(i.reason for i in items), items)


def _check_labels(labels: Sequence[tuple[str, str, float | None]], answer: str) -> None:
    """trpc: a validator answer with no labels, or with a label it does not know, is unreadable."""
    if not labels:
        raise JudgeParseError("validator answer has no 'label:' lines", raw=answer)
    unknown = sorted({label for _, label, value in labels if value is None})
    if unknown:
        raise JudgeParseError(f"validator answer has unknown label(s): {', '.join(unknown)}", raw=answer)


class GroundingEvaluator(LLMJudgeEvaluator, abc.ABC):
    """Base of the hallucination evaluators: per invocation, each text :meth:`texts_to_check` picks is segmented and
    validated against the history prefix's context, and :meth:`judge_texts` turns the samples into the result.

    The dialect decides what an unreadable judge answer does: trpc raises ``JudgeParseError`` (the case fails
    with the reason); ADK returns an unscored sample that quotes the answer.
    """

    async def grounded_sample(
        self, text: str, context: str, config: JudgeConfig, client: JudgeClient, k: int = 0
    ) -> Sample:
        """Sample ``k`` of ``text``: segment it, label its sentences, score the share of grounded ones."""
        strict = self.metric.dialect == "trpc"
        segmented, sentences = await segment(text, config, client, k)
        if not sentences:
            if strict:
                raise JudgeParseError("segmenter answer has no <sentence>...</sentence> items", raw=segmented)
            return Sample(None, f"segmenter returned no <sentence> items; judge answer: {snippet(segmented)}")
        validated, labels = await validate(sentences, context, config, client, k)
        if strict:
            _check_labels(labels, validated)
        scored = [(sentence, label, value) for sentence, label, value in labels if value is not None]
        if not scored:
            return Sample(None, f"validator gave no recognised labels; judge answer: {snippet(validated)}")
        return sentence_sample(scored)

    @abc.abstractmethod
    def texts_to_check(self, actual: Invocation, config: JudgeConfig) -> list[str]:
        """The natural-language texts of ``actual`` to check; raises ``NotApplicable`` when there is none."""

    @abc.abstractmethod
    async def judge_texts(self, texts: Sequence[str], context: str, config: JudgeConfig, client: JudgeClient) -> Sample:
        """The sample that decides the invocation, from its texts checked against ``context``."""

    async def judge_invocation(
        self,
        index: int,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        config: JudgeConfig,
        client: JudgeClient,
    ) -> PerInvocationResult:
        """Check the texts of the last invocation against the context of the whole history prefix."""
        actual = actuals[-1]
        texts = self.texts_to_check(actual, config)
        decided = await self.judge_texts(texts, render_context(actuals), config, client)
        return sample_result(actual, expecteds[-1], decided, config.threshold)
