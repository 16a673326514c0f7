"""trpc's ``llm_verifier_pairwise``: the judge grades the actual answer (candidate A) and the expected answer
(candidate B) with letters A (best) to T (worst); each grade is the probability-weighted mean over the letter
tokens the judge considered, read from token logprobs, and the score is the preference for A."""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Sequence
from typing import Any

from ...judges import JudgeClient, JudgeError, JudgeParseError, JudgePool
from ...judges._openai import LOGPROBS_ENVELOPE
from ...model import EvalMetric, Invocation
from .._base import EvaluatorError
from ._aggregate import average_invocations
from ._engine import JudgeMetric, LLMJudgeEvaluator
from ._sample import JudgeConfig, Prompt, Sample
from ._text import final_text, user_text
from ._trpc import trpc_majority_vote

__all__ = ["GRANULARITY", "PAIRWISE", "PairwiseEvaluator", "letter_grade", "pairwise_score"]

GRANULARITY = 20
"""Letters A..T: A is worth 1.0, T is worth 0.0, evenly spaced."""
_TAGS = ("<score_A>", "<score_B>")
_DEFAULT_CRITERIA = "Correctness, completeness and helpfulness of the answer to the user's request."

PROMPT = """\
## Task
Two candidate answers to the same request are shown. Grade each one on its own against the criteria, using a
letter from A to T: A means it fully meets the criteria, T means it fails them entirely, and the letters in
between are evenly spaced steps. Grade the candidates independently; neither is assumed to be right.

## Criteria
{criteria}

## Request
{user}

## Candidate A
{candidate_a}

## Candidate B
{candidate_b}

## Answer format
Think briefly about each candidate, then end your reply with exactly this line, one letter inside each tag:
<score_A>X</score_A><score_B>Y</score_B>
"""


def _letter_index(token: str) -> int | None:
    text = token.strip().upper()
    if len(text) != 1:
        return None
    index = ord(text) - ord("A")
    return index if 0 <= index < GRANULARITY else None


def _distribution(entry: dict[str, Any], prefix_len: int) -> dict[int, float]:
    token = str(entry.get("token", ""))
    if prefix_len > len(token):
        return {}
    prefix = token[:prefix_len]
    out: dict[int, float] = {}
    for cand in [entry, *(entry.get("top_logprobs") or [])]:
        text = str(cand.get("token", ""))
        if not text.startswith(prefix):
            continue
        index = _letter_index(text[len(prefix) :])
        logprob = cand.get("logprob")
        if index is None or not isinstance(logprob, int | float):
            continue
        if index not in out or logprob > out[index]:
            out[index] = float(logprob)
    return out


def _expected(dist: dict[int, float]) -> float:
    if any(math.isnan(v) for v in dist.values()):
        raise ValueError("score token logprob is NaN")
    top = max(dist.values())
    if math.isinf(top):
        raise ValueError("score token logprobs are all -inf")
    weights = {i: math.exp(v - top) for i, v in dist.items()}
    return sum(w * (1 - i / (GRANULARITY - 1)) for i, w in weights.items()) / sum(weights.values())


def letter_grade(tokens: Sequence[dict[str, Any]], tag: str) -> float:
    """The expected value (1.0 = A … 0.0 = T) of the letter right after ``tag``, weighted by the softmax of the
    logprobs of the letters among that token and its top alternatives. ValueError names what is missing."""
    if not tokens:
        raise ValueError("token logprobs are empty")
    text = ""
    for i, entry in enumerate(tokens):
        before = len(text)
        text += str(entry.get("token", ""))
        start = text.find(tag, max(0, before - len(tag) + 1))
        if start < 0:
            continue
        end = start + len(tag)
        if end < len(text):  # the letter shares a token with the end of the tag
            dist = _distribution(entry, end - before)
        elif i + 1 < len(tokens):
            dist = _distribution(tokens[i + 1], 0)
        else:
            raise ValueError("score token is missing after tag")
        if not dist:
            raise ValueError("no letter A-T among the logprobs after the tag")
        return _expected(dist)
    raise ValueError("score tag is missing")


def pairwise_score(grade_a: float, grade_b: float) -> float:
    """Preference for A over B: 0.5 for a tie, clamped to [0, 1]."""
    return min(1.0, max(0.0, 0.5 + (grade_a - grade_b) / 2))


def _score(answer: str, prompt: Prompt) -> Sample:
    try:
        envelope = json.loads(answer)
    except ValueError:
        envelope = None
    if not isinstance(envelope, dict) or "logprobs" not in envelope:
        raise JudgeError(
            "the judge answered without token logprobs; llm_verifier_pairwise needs a judge that returns "
            "logprobs (an OpenAI-compatible endpoint with logprobs/top_logprobs support)"
        )
    tokens = envelope.get("logprobs")
    content = str(envelope.get("content", ""))
    if not tokens:
        raise JudgeError(
            "the judge endpoint returned no token logprobs; llm_verifier_pairwise needs an endpoint that "
            "supports logprobs/top_logprobs"
        )
    grades = []
    for tag in _TAGS:
        try:
            grades.append(letter_grade(tokens, tag))
        except ValueError as exc:
            raise JudgeParseError(f"{tag.strip('<>')}: {exc}", raw=content) from None
    a, b = grades
    return Sample(pairwise_score(a, b), f"grade A (actual) {a:.4f}, grade B (expected) {b:.4f}")


def _construct(actuals: Sequence[Invocation], expecteds: Sequence[Invocation], config: JudgeConfig) -> Prompt:
    actual, expected = actuals[-1], expecteds[-1]
    if actual.final_response is None or expected.final_response is None:
        side = "actual" if actual.final_response is None else "expected"
        raise EvaluatorError(f"{config.metric_name}: {side} invocation {len(actuals)} has no finalResponse")
    criteria = "\n".join(f"- {r.text}" for r in config.rubrics) or f"- {_DEFAULT_CRITERIA}"
    text = PROMPT.format(
        criteria=criteria, user=user_text(actual), candidate_a=final_text(actual), candidate_b=final_text(expected)
    )
    return Prompt([{"role": "user", "content": text}])


PAIRWISE = JudgeMetric(
    name="llm_verifier_pairwise",
    description="LLM judge: preference for the actual over the expected answer from logprob-weighted A-T letter "
    "grades, 0.5 + (A - B) / 2; needs an endpoint with token logprobs",
    dialect="trpc",
    needs_expected=True,
    construct=_construct,
    score=_score,
    aggregate_samples=trpc_majority_vote,
    aggregate_invocations=average_invocations,
)


class PairwiseEvaluator(LLMJudgeEvaluator):
    """Asks for token logprobs (the answer arrives as a JSON envelope) and names the missing capability when the
    endpoint refuses them."""

    def __init__(self, pool: JudgePool) -> None:
        super().__init__(PAIRWISE, pool)

    def read_config(self, metric: EvalMetric) -> JudgeConfig:
        """The trpc judge configuration with token logprobs switched on."""
        config = super().read_config(metric)
        generation = {**config.generation_config, LOGPROBS_ENVELOPE: True}
        return dataclasses.replace(config, generation_config=generation)

    async def sample(self, prompt: Prompt, config: JudgeConfig, client: JudgeClient, k: int) -> Sample:
        """One graded answer; an HTTP 400/422 names logprobs as the likely unsupported feature."""
        try:
            return await super().sample(prompt, config, client, k)
        except JudgeParseError:
            raise
        except JudgeError as exc:
            if exc.status in (400, 422):
                raise JudgeError(
                    f"{exc} (llm_verifier_pairwise asks for logprobs; the endpoint may not support them)",
                    status=exc.status,
                ) from None
            raise
