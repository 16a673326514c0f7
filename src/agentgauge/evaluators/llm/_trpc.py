"""trpc-dialect judge metrics: llm_final_response, llm_rubric_response, llm_rubric_knowledge_recall."""

from __future__ import annotations

from collections.abc import Sequence

from ...model import Invocation
from .._base import EvaluatorError
from ._aggregate import average_invocations, majority_vote
from ._engine import JudgeMetric
from ._parsers import parse_rubric_answer, parse_trpc_validity
from ._prompts import (
    TRPC_FINAL_RESPONSE,
    TRPC_KNOWLEDGE_RECALL,
    TRPC_RUBRIC_RESPONSE,
    rubric_lines,
    rubric_schema,
)
from ._sample import JudgeConfig, Prompt, Sample
from ._text import final_text, knowledge_lines, user_text

__all__ = ["TRPC_METRICS", "checked_rubrics", "score_rubrics", "trpc_majority_vote"]


def trpc_majority_vote(samples: Sequence[Sample], config: JudgeConfig) -> Sample:
    """Majority vote with ``score >= threshold`` as the positive side."""
    return majority_vote(samples, lambda s: s.score is not None and s.score >= config.threshold)


def _user_message(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _final_response_prompt(
    actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
) -> Prompt:
    actual, expected = actuals[-1], expecteds[-1]
    if expected.final_response is None:
        raise EvaluatorError(
            f"{config.metric_name}: expected invocation {len(expecteds)} has no finalResponse to compare against"
        )
    text = TRPC_FINAL_RESPONSE.format(
        user=user_text(actual), response=final_text(actual), reference=final_text(expected)
    )
    return Prompt(_user_message(text))


def checked_rubrics(config: JudgeConfig) -> None:
    """Raise EvaluatorError unless the metric has rubrics with content, non-empty and unique ids."""
    if not config.rubrics:
        raise EvaluatorError(f"{config.metric_name}: llmJudge.rubrics is required (no rubric with content)")
    ids = [r.id.strip() for r in config.rubrics]
    if any(not rid for rid in ids):
        raise EvaluatorError(f"{config.metric_name}: every rubric needs a non-empty id")
    dupes = sorted({rid for rid in ids if ids.count(rid) > 1})
    if dupes:
        raise EvaluatorError(f"{config.metric_name}: duplicate rubric id(s): {', '.join(dupes)}")


def _rubric_response_prompt(
    actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
) -> Prompt:
    checked_rubrics(config)
    actual = actuals[-1]
    text = TRPC_RUBRIC_RESPONSE.format(
        user=user_text(actual), response=final_text(actual), rubrics=rubric_lines(config.rubrics)
    )
    return Prompt(_user_message(text), rubric_schema("rubric_response_scores", config.rubrics), config.rubrics)


def _knowledge_recall_prompt(
    actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig
) -> Prompt:
    checked_rubrics(config)
    actual = actuals[-1]
    try:
        knowledge = knowledge_lines(actual)
    except EvaluatorError as exc:
        raise EvaluatorError(f"{config.metric_name}: {exc}") from None
    text = TRPC_KNOWLEDGE_RECALL.format(
        user=user_text(actual), knowledge=knowledge, rubrics=rubric_lines(config.rubrics)
    )
    return Prompt(_user_message(text), rubric_schema("rubric_knowledge_recall_scores", config.rubrics), config.rubrics)


def score_rubrics(answer: str, prompt: Prompt) -> Sample:
    """Score a ``rubricScores`` answer (JSON, or the legacy text blocks) against the prompt's rubrics."""
    return parse_rubric_answer(answer, prompt.rubrics)


def _score_validity(answer: str, prompt: Prompt) -> Sample:
    return parse_trpc_validity(answer)


TRPC_METRICS: tuple[JudgeMetric, ...] = (
    JudgeMetric(
        name="llm_final_response",
        description="LLM judge: is the final answer consistent with the reference answer? valid 1 / invalid 0, "
        "majority vote over samples, average over invocations",
        dialect="trpc",
        needs_expected=True,
        construct=_final_response_prompt,
        score=_score_validity,
        aggregate_samples=trpc_majority_vote,
        aggregate_invocations=average_invocations,
    ),
    JudgeMetric(
        name="llm_rubric_response",
        description="LLM judge: does the final answer satisfy each rubric? per-rubric 0/1, mean; majority vote "
        "over samples",
        dialect="trpc",
        needs_expected=False,
        construct=_rubric_response_prompt,
        score=score_rubrics,
        aggregate_samples=trpc_majority_vote,
        aggregate_invocations=average_invocations,
    ),
    JudgeMetric(
        name="llm_rubric_knowledge_recall",
        description="LLM judge: do the knowledge_search tool results support each rubric? per-rubric 0/1, mean",
        dialect="trpc",
        needs_expected=False,
        construct=_knowledge_recall_prompt,
        score=score_rubrics,
        aggregate_samples=trpc_majority_vote,
        aggregate_invocations=average_invocations,
    ),
)
