"""ADK-dialect judge metrics: final_response_match_v2, response_evaluation_score, safety_v1 and the rubric-based
final-response / tool-use quality metrics."""

from __future__ import annotations

from collections.abc import Sequence

from ...criteria._llm import Rubric
from ...model import Invocation
from ._aggregate import majority_vote, mean_of_evaluated, mean_samples, pooled_rubric_mean, rubric_majority_vote
from ._engine import JudgeMetric, MessagesConstructor
from ._parsers import parse_adk_rubric_blocks, parse_adk_validity, parse_safety, parse_score_1_to_5
from ._prompts import (
    ADK_FINAL_RESPONSE,
    ADK_RUBRIC_FINAL_RESPONSE,
    ADK_RUBRIC_TOOL_USE,
    RESPONSE_QUALITY,
    SAFETY,
    adk_rubric_lines,
    safety_schema,
    score_schema,
    validity_schema,
)
from ._sample import JudgeConfig, NotApplicable, Prompt, Sample
from ._text import final_text, invocation_rubrics, render_tool_calls, user_text

__all__ = ["ADK_METRICS", "effective_rubrics"]

FINAL_RESPONSE_QUALITY = "FINAL_RESPONSE_QUALITY"
TOOL_USE_QUALITY = "TOOL_USE_QUALITY"


def _message(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def _answer(actual: Invocation, config: JudgeConfig) -> str:
    return final_text(actual, include_intermediate=config.flag("include_intermediate_responses_in_final"))


def _reference(expected: Invocation) -> str:
    if expected.final_response is None:
        raise NotApplicable("the expected invocation has no final response to compare against")
    return final_text(expected)


def _binary_vote(samples: Sequence[Sample], config: JudgeConfig) -> Sample:
    return majority_vote(samples, lambda s: s.score is not None and s.score >= 0.5)


def _mean(samples: Sequence[Sample], config: JudgeConfig) -> Sample:
    return mean_samples(samples)


def _rubric_vote(samples: Sequence[Sample], config: JudgeConfig) -> Sample:
    return rubric_majority_vote(samples)


def _final_response_match(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], cfg: JudgeConfig) -> Prompt:
    actual, expected = actuals[-1], expecteds[-1]
    text = ADK_FINAL_RESPONSE.format(
        user=user_text(expected), response=_answer(actual, cfg), reference=_reference(expected)
    )
    return Prompt(_message(text), validity_schema())


def _response_quality(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], cfg: JudgeConfig) -> Prompt:
    actual, expected = actuals[-1], expecteds[-1]
    text = RESPONSE_QUALITY.format(
        user=user_text(expected), response=_answer(actual, cfg), reference=_reference(expected)
    )
    return Prompt(_message(text), score_schema())


def _safety(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], cfg: JudgeConfig) -> Prompt:
    actual = actuals[-1]
    return Prompt(_message(SAFETY.format(user=user_text(actual), response=_answer(actual, cfg))), safety_schema())


def effective_rubrics(
    config: JudgeConfig, rubric_type: str, invocations: Sequence[Invocation | None]
) -> tuple[Rubric, ...]:
    """The criterion's rubrics plus case and invocation rubrics of ``rubric_type`` (untyped ones are ignored).

    Raises NotApplicable for no rubrics or a duplicate id, as ADK reports those as not evaluated.
    """

    def typed(r: Rubric) -> bool:
        owner = (r.model_extra or {}).get("metric_name", (r.model_extra or {}).get("metricName"))
        return (r.type or "").strip().upper() == rubric_type and owner in (None, "", config.metric_name)

    merged = [*config.rubrics]
    for rubric in [*config.case_rubrics, *invocation_rubrics(invocations)]:
        if typed(rubric) and not any(r.id == rubric.id and r.text == rubric.text for r in merged):
            merged.append(rubric)
    if not merged:
        raise NotApplicable("Rubrics are required.")
    ids = [r.id for r in merged]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise NotApplicable(f"duplicate rubric id(s): {', '.join(dupes)}")
    return tuple(merged)


def _rubric_prompt(template: str, rubric_type: str) -> MessagesConstructor:
    def construct(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], cfg: JudgeConfig) -> Prompt:
        actual = actuals[-1]
        rubrics = effective_rubrics(cfg, rubric_type, [actual, expecteds[-1] if expecteds else None])
        text = template.format(
            user=user_text(actual),
            tools=render_tool_calls(actual),
            response=_answer(actual, cfg) or "(no final response)",
            rubrics=adk_rubric_lines(rubrics),
        )
        return Prompt(_message(text), None, rubrics)

    return construct


def _score_rubric_blocks(answer: str, prompt: Prompt) -> Sample:
    return parse_adk_rubric_blocks(answer, prompt.rubrics)


ADK_METRICS: tuple[JudgeMetric, ...] = (
    JudgeMetric(
        name="final_response_match_v2",
        description="LLM judge (ADK): is the final response valid against the reference? majority vote over "
        "num_samples (default 5); overall = valid / evaluated invocations",
        dialect="adk",
        needs_expected=True,
        construct=_final_response_match,
        score=lambda answer, prompt: parse_adk_validity(answer),
        aggregate_samples=_binary_vote,
        aggregate_invocations=mean_of_evaluated,
    ),
    JudgeMetric(
        name="response_evaluation_score",
        description="LLM judge (ADK-compatible, agentgauge's own prompt in place of Vertex coherence): response "
        "quality 1-5 against the reference; mean over invocations",
        dialect="adk",
        needs_expected=True,
        construct=_response_quality,
        score=lambda answer, prompt: parse_score_1_to_5(answer),
        aggregate_samples=_mean,
        aggregate_invocations=mean_of_evaluated,
        min_value=1.0,
        max_value=5.0,
        adk_default_samples=1,
    ),
    JudgeMetric(
        name="safety_v1",
        description="LLM judge (ADK-compatible, agentgauge's own prompt in place of Vertex safety): safe 1 / "
        "unsafe 0; mean over invocations",
        dialect="adk",
        needs_expected=False,
        construct=_safety,
        score=lambda answer, prompt: parse_safety(answer),
        aggregate_samples=_binary_vote,
        aggregate_invocations=mean_of_evaluated,
        adk_default_samples=1,
    ),
    JudgeMetric(
        name="rubric_based_final_response_quality_v1",
        description="LLM judge (ADK): final response checked against FINAL_RESPONSE_QUALITY rubrics; per-rubric "
        "majority vote; overall = mean of all rubric verdicts",
        dialect="adk",
        needs_expected=False,
        construct=_rubric_prompt(ADK_RUBRIC_FINAL_RESPONSE, FINAL_RESPONSE_QUALITY),
        score=_score_rubric_blocks,
        aggregate_samples=_rubric_vote,
        aggregate_invocations=pooled_rubric_mean,
    ),
    JudgeMetric(
        name="rubric_based_tool_use_quality_v1",
        description="LLM judge (ADK): tool calls checked against TOOL_USE_QUALITY rubrics; per-rubric majority "
        "vote; overall = mean of all rubric verdicts",
        dialect="adk",
        needs_expected=False,
        construct=_rubric_prompt(ADK_RUBRIC_TOOL_USE, TOOL_USE_QUALITY),
        score=_score_rubric_blocks,
        aggregate_samples=_rubric_vote,
        aggregate_invocations=pooled_rubric_mean,
    ),
)
