from __future__ import annotations

import pytest

from agentgauge.evaluators import PerInvocationResult
from agentgauge.evaluators.llm import JudgeConfig, Sample
from agentgauge.evaluators.llm._aggregate import (
    average_invocations,
    majority_vote,
    mean_of_evaluated,
    mean_samples,
    pooled_rubric_mean,
    rubric_majority_vote,
)
from agentgauge.evaluators.llm._trpc import trpc_majority_vote
from agentgauge.model import EvalStatus, Invocation, Message, RubricScore


def s(score: float | None, reason: str = "") -> Sample:
    return Sample(score, reason or f"s{score}")


def config(threshold: float) -> JudgeConfig:
    return JudgeConfig("m", threshold, None, (), 1, 0, {})


@pytest.mark.parametrize(
    ("scores", "winner_index"),
    [
        ([1.0, 0.0, 1.0], 0),  # valid/invalid/valid → first valid
        ([0.0, 1.0, 1.0], 1),  # first positive sample, unchanged
        ([1.0, 0.0], 1),  # tie → failing side
        ([0.0, 1.0, 0.0, 1.0], 0),
        ([0.0, 0.0, 1.0], 0),
        ([None, 1.0], 1),  # unscored samples are skipped
        ([None, None], 0),  # nothing scored → first sample
        ([None, 0.0, 1.0, 1.0], 2),
    ],
)
def test_majority_vote(scores: list[float | None], winner_index: int) -> None:
    samples = [s(x, f"sample {i}") for i, x in enumerate(scores)]
    assert majority_vote(samples, lambda x: x.score is not None and x.score >= 0.5) is samples[winner_index]


def test_majority_vote_needs_samples() -> None:
    with pytest.raises(ValueError):
        majority_vote([], lambda x: True)


def test_trpc_vote_uses_threshold_and_keeps_sample_unchanged() -> None:
    samples = [s(0.6, "a"), s(0.4, "b"), s(0.7, "c")]
    assert trpc_majority_vote(samples, config(0.5)) is samples[0]
    # With threshold 0.65 only 0.7 is positive: 1 vs 2 → first negative.
    assert trpc_majority_vote(samples, config(0.65)) is samples[0]
    assert trpc_majority_vote([s(0.7, "x"), s(0.6, "y")], config(0.65)).reason == "y"


def rs(rid: str, score: float | None, reason: str = "") -> RubricScore:
    return RubricScore(id=rid, score=score, reason=reason or f"{rid}={score}")


def test_rubric_majority_vote_per_rubric() -> None:
    samples = [
        Sample(None, "", [rs("a", 1.0, "a1"), rs("b", 0.0, "b1"), rs("c", None)]),
        Sample(None, "", [rs("a", 0.0, "a2"), rs("b", 1.0, "b2"), rs("c", None)]),
        Sample(None, "", [rs("a", 1.0, "a3"), rs("b", None), rs("c", None)]),
    ]
    voted = rubric_majority_vote(samples)
    # a: 2 yes vs 1 no → first yes; b: 1 vs 1 tie → first no; c: no verdicts → unscored.
    assert [(r.id, r.score, r.reason) for r in voted.rubric_scores] == [
        ("a", 1.0, "a1"),
        ("b", 0.0, "b1"),
        ("c", None, "c=None"),
    ]
    assert voted.score == 0.5


def test_rubric_vote_without_any_verdict_is_unscored() -> None:
    voted = rubric_majority_vote([Sample(None, "unparseable"), Sample(None, "also")])
    assert voted.score is None and "unparseable" in voted.reason


def test_mean_samples() -> None:
    assert mean_samples([s(4.0), s(None), s(2.0)]).score == 3.0
    assert mean_samples([s(None, "x")]).score is None


def per_inv(
    score: float | None, status: EvalStatus | None = None, rubrics: list[RubricScore] | None = None
) -> PerInvocationResult:
    inv = Invocation(user_content=Message(content="q"))
    if status is None:
        status = (
            EvalStatus.NOT_EVALUATED if score is None else (EvalStatus.PASSED if score >= 0.5 else EvalStatus.FAILED)
        )
    return PerInvocationResult(inv, inv, score, status, f"r{score}", rubrics or [])


def test_trpc_average_skips_not_evaluated() -> None:
    result = average_invocations([per_inv(1.0), per_inv(None), per_inv(0.0)], 0.5)
    assert result.overall_score == 0.5 and result.overall_status is EvalStatus.PASSED
    assert len(result.per_invocation_results) == 3


def test_trpc_average_threshold_is_inclusive_and_none_evaluated_gives_zero() -> None:
    assert average_invocations([per_inv(1.0), per_inv(0.0)], 0.5).overall_status is EvalStatus.PASSED
    assert average_invocations([per_inv(1.0), per_inv(0.0)], 0.51).overall_status is EvalStatus.FAILED
    empty = average_invocations([per_inv(None)], 0.5)
    assert (empty.overall_score, empty.overall_status) == (0.0, EvalStatus.NOT_EVALUATED)


def test_adk_overall_is_valid_over_evaluated() -> None:
    result = mean_of_evaluated([per_inv(1.0), per_inv(None), per_inv(1.0), per_inv(0.0)], 0.6)
    assert result.overall_score == pytest.approx(2 / 3)
    assert result.overall_status is EvalStatus.PASSED
    nothing = mean_of_evaluated([per_inv(None), per_inv(None)], 0.5)
    assert (nothing.overall_score, nothing.overall_status) == (None, EvalStatus.NOT_EVALUATED)


def test_pooled_rubric_mean_is_not_mean_of_means() -> None:
    first = per_inv(1.0, rubrics=[rs("a", 1.0)])  # invocation mean 1.0
    second = per_inv(1 / 3, rubrics=[rs("a", 0.0), rs("b", 1.0), rs("c", 0.0)])  # invocation mean 1/3
    result = pooled_rubric_mean([first, second], 0.5)
    assert result.overall_score == 0.5  # (1 + 0 + 1 + 0) / 4, not (1 + 1/3) / 2
    assert [(r.id, r.score) for r in result.rubric_scores] == [("a", 0.5), ("b", 1.0), ("c", 0.0)]
    skipped = pooled_rubric_mean(
        [per_inv(None, EvalStatus.NOT_EVALUATED, [rs("a", 1.0)]), per_inv(0.0, rubrics=[rs("a", 0.0)])], 0.5
    )
    assert skipped.overall_score == 0.0
