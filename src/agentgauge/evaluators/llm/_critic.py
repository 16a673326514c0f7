"""trpc's rubric critics: ``llm_rubric_critic`` (the reference answer is authoritative) and
``llm_rubric_reference_critic`` (the reference is a quality anchor). Both judge the final answer per rubric item
and answer with the same ``rubricScores`` JSON as ``llm_rubric_response``."""

from __future__ import annotations

from collections.abc import Sequence

from ...model import Invocation
from .._base import EvaluatorError
from ._aggregate import average_invocations
from ._engine import JudgeMetric, MessagesConstructor
from ._prompts import rubric_lines, rubric_schema
from ._sample import JudgeConfig, Prompt
from ._text import final_text, user_text
from ._trpc import checked_rubrics, score_rubrics, trpc_majority_vote

__all__ = ["CRITIC_METRICS"]

_OUTPUT = """\
## Answer format
Reply with one JSON object and nothing else:
{{"rubricScores": [{{"id": "<rubric id>", "score": 0 or 1, "reason": "<the defect you found, or why none>"}}]}}
One entry per rubric item, in the listed order, with the ids exactly as listed; score is the integer 0 or 1; no
markdown and no code fences.
"""

_INPUTS = """\
## Material
<question>
{user}
</question>

<candidate_answer>
{response}
</candidate_answer>

<reference_answer>
{reference}
</reference_answer>

<rubric>
{rubrics}
</rubric>
"""

CRITIC = (
    """\
## Role
You review an AI agent's answer the way a senior reviewer checks work against an approved solution.

## Goal
For every rubric item, decide whether <candidate_answer> meets it. <reference_answer> is the approved solution:
when the two disagree on a fact, a number, a name or a conclusion, the reference is right.

## How to decide
- Score 1 when the candidate meets the item, even if it is worded, ordered or formatted differently.
- Score 0 only for a material defect: a wrong or missing fact the item asks for, a contradiction of the
  reference, or a refusal or request for clarification where an answer was possible.
- Do not penalise style, length, politeness or extra correct detail that does not contradict the reference.
- A conditional item whose condition does not hold for this question scores 1.

## Steps (keep them to yourself)
1. Read the question and the reference; note what each rubric item requires.
2. Find the matching passage in the candidate, compare it with the reference, then decide.

"""
    + _OUTPUT
    + "\n"
    + _INPUTS
)

REFERENCE_CRITIC = (
    """\
## Role
You grade an AI agent's answer for quality, using a reference answer as the benchmark of what a good answer
contains.

## Goal
For every rubric item, decide whether <candidate_answer> meets it at least as well as <reference_answer> would.
The reference is an anchor for quality, not text to be copied: the candidate may phrase and organise things its
own way.

## How to decide
- Score 1 when the candidate covers the grounded facts and the level of detail the reference shows for this
  item.
- Score 0 when it omits facts or detail the reference shows are needed, contradicts the reference, or adds
  specific claims (numbers, names, dates, guarantees) that neither the question nor the reference supports.
- Wording, order and formatting never cost points.
- A conditional item whose condition does not hold for this question scores 1.

## Steps (keep them to yourself)
1. Note what the reference establishes for each rubric item.
2. Check the candidate for coverage, depth and unsupported specifics, then decide.

"""
    + _OUTPUT
    + "\n"
    + _INPUTS
)


def _constructor(template: str, schema_name: str) -> MessagesConstructor:
    def construct(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig) -> Prompt:
        checked_rubrics(config)
        actual, expected = actuals[-1], expecteds[-1]
        if expected.final_response is None:
            raise EvaluatorError(
                f"{config.metric_name}: expected invocation {len(expecteds)} has no finalResponse "
                "(the critic compares against it)"
            )
        text = template.format(
            user=user_text(actual),
            response=final_text(actual),
            reference=final_text(expected),
            rubrics=rubric_lines(config.rubrics),
        )
        return Prompt([{"role": "user", "content": text}], rubric_schema(schema_name, config.rubrics), config.rubrics)

    return construct


CRITIC_METRICS: tuple[JudgeMetric, ...] = (
    JudgeMetric(
        name="llm_rubric_critic",
        description="LLM judge: does the final answer meet each rubric, with the expected answer as the "
        "authoritative solution? per-rubric 0/1, mean",
        dialect="trpc",
        needs_expected=True,
        construct=_constructor(CRITIC, "rubric_critic_scores"),
        score=score_rubrics,
        aggregate_samples=trpc_majority_vote,
        aggregate_invocations=average_invocations,
    ),
    JudgeMetric(
        name="llm_rubric_reference_critic",
        description="LLM judge: does the final answer meet each rubric as well as the expected answer (a "
        "quality anchor)? per-rubric 0/1, mean",
        dialect="trpc",
        needs_expected=True,
        construct=_constructor(REFERENCE_CRITIC, "rubric_reference_critic_scores"),
        score=score_rubrics,
        aggregate_samples=trpc_majority_vote,
        aggregate_invocations=average_invocations,
    ),
)
