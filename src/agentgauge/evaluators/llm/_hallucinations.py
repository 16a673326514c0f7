"""hallucinations_v1: segment each natural-language response into sentences, then label each sentence against the
context the agent had (prompts, context messages, tool calls and outputs)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from ...judges import JudgeClient, JudgePool, snippet
from ...model import Invocation, RubricScore, status_for_score
from .._base import PerInvocationResult
from ._aggregate import mean_of_evaluated, mean_samples
from ._engine import JudgeMetric, LLMJudgeEvaluator, gather_fail_fast
from ._parsers import parse_hallucination_labels, parse_sentences
from ._prompts import HALLUCINATION_SEGMENTER, HALLUCINATION_VALIDATOR
from ._sample import JudgeConfig, NotApplicable, Sample
from ._text import final_text, render_context

__all__ = ["HALLUCINATIONS", "HallucinationsEvaluator", "segment", "sentence_sample", "validate"]


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


class HallucinationsEvaluator(LLMJudgeEvaluator):
    """Two judge calls per natural-language step (the final response, plus intermediate responses when
    ``evaluate_intermediate_nl_responses`` is set). Step score = share of grounded sentences; invocation score =
    mean of step scores; overall = mean over evaluated invocations."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(HALLUCINATIONS, pool)

    async def _step(self, text: str, context: str, config: JudgeConfig, client: JudgeClient) -> Sample:
        segmented, sentences = await segment(text, config, client)
        if not sentences:
            return Sample(None, f"segmenter returned no <sentence> items; judge answer: {snippet(segmented)}")
        validated, labels = await validate(sentences, context, config, client)
        scored = [(s, label, v) for s, label, v in labels if v is not None]
        if not scored:
            return Sample(None, f"validator gave no recognised labels; judge answer: {snippet(validated)}")
        return sentence_sample(scored)

    async def judge_invocation(
        self,
        index: int,
        actuals: Sequence[Invocation],
        expecteds: Sequence[Invocation],
        config: JudgeConfig,
        client: JudgeClient,
    ) -> PerInvocationResult:
        """Score every natural-language step of the last invocation against the history-prefix context."""
        actual = actuals[-1]
        steps: list[str] = []
        if config.flag("evaluate_intermediate_nl_responses"):
            steps = [m.content for m in actual.intermediate_responses if m.content.strip()]
        if final_text(actual).strip():
            steps.append(final_text(actual))
        if not steps:
            raise NotApplicable("no natural-language response to check")
        context = render_context(actuals)
        results = await gather_fail_fast([functools.partial(self._step, t, context, config, client) for t in steps])
        scored = [r for r in results if r.score is not None]
        reason = "\n".join(r.reason for r in results if r.reason)
        score = sum(r.score for r in scored if r.score is not None) / len(scored) if scored else None
        return PerInvocationResult(
            actual,
            expecteds[-1],
            score,
            status_for_score(score, config.threshold),
            reason,
        )
