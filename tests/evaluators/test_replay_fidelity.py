"""``replay_fidelity``: per replayed turn the share of recorded calls reproduced, pooled over the case."""

from __future__ import annotations

from agentgauge.evaluators import REPLAY_FIDELITY_METRIC, Registry
from agentgauge.model import EvalMetric, EvalStatus, Invocation, ReplayRecord


def _turn(record: dict[str, object] | None) -> Invocation:
    invocation = Invocation.model_validate({"userContent": {"content": "q"}})
    invocation.replay = ReplayRecord.model_validate(record) if record is not None else None
    return invocation


async def test_fidelity_per_turn_and_pooled_over_the_case() -> None:
    registry = Registry()
    assert REPLAY_FIDELITY_METRIC in registry.names()
    assert not registry.info(REPLAY_FIDELITY_METRIC).needs_expected
    evaluator = registry.get(REPLAY_FIDELITY_METRIC)
    turns = [
        _turn({"mode": "strict", "recorded": 2, "answered": [{"call": 1, "name": "a"}, {"call": 2, "name": "b"}]}),
        _turn(
            {
                "mode": "strict",
                "recorded": 2,
                "answered": [{"call": 1, "name": "a"}],
                "drift": [
                    {
                        "call": 2,
                        "recordedCall": 2,
                        "name": "b",
                        "recorded": {"x": 1},
                        "arguments": {"x": 2},
                        "difference": "actual 2 != expected 1 at $.x",
                    }
                ],
                "unrecorded": [{"call": 3, "name": "c", "arguments": {}, "reason": "the recording never called it"}],
                "unconsumed": [{"call": 2, "name": "b", "arguments": {"x": 1}}],
            }
        ),
        _turn(None),
    ]
    result = await evaluator.evaluate(turns, turns, EvalMetric(metric_name=REPLAY_FIDELITY_METRIC, threshold=0.9))
    assert [p.score for p in result.per_invocation_results] == [1.0, 1 / 3, None]
    assert [p.status for p in result.per_invocation_results] == [
        EvalStatus.PASSED,
        EvalStatus.FAILED,
        EvalStatus.NOT_EVALUATED,
    ]
    assert result.overall_score == 3 / 5  # (2 + 1) answered of (2 + 2) recorded + 1 unrecorded
    assert result.overall_status is EvalStatus.FAILED
    assert result.reason == (
        "3/5 recorded call(s) reproduced with identical arguments (strict); argument drift: turn 2 call 2 b: actual 2 "
        "!= expected 1 at $.x (answered with an error); not in the recording: turn 2 call 3 c({}): the recording "
        "never called it"
    )  # the drifted call's recorded result is not named again as never consumed


async def test_a_case_that_was_not_replayed_is_not_evaluated() -> None:
    evaluator = Registry().get(REPLAY_FIDELITY_METRIC)
    result = await evaluator.evaluate([_turn(None)], [_turn(None)], EvalMetric(metric_name=REPLAY_FIDELITY_METRIC))
    assert (result.overall_score, result.overall_status) == (None, EvalStatus.NOT_EVALUATED)
    assert "replay-set" in result.reason
