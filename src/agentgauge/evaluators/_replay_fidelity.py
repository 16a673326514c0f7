"""``replay_fidelity``: how faithfully a replayed run reproduced its recording's tool calls.

A replayed turn (``toolMock.replay``) carries a :class:`~agentgauge.model.ReplayRecord` on its actual invocation:
the calls the recording answered with identical arguments, the calls whose arguments drifted, the calls the
recording had no result for and the recorded results nobody consumed. The score of a turn is the share of its
recorded calls consumed with identical arguments, where calls the recording does not have count against it too:
``answered / (recorded + unrecorded)``; the case's score pools every replayed turn the same way. Deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..model import EvalMetric, EvalStatus, Invocation, ReplayRecord, status_for_score
from ._base import EvaluateResult, NamedEvaluator, PerInvocationResult

__all__ = ["REPLAY_FIDELITY_DESCRIPTION", "REPLAY_FIDELITY_METRIC", "ReplayFidelityEvaluator", "replay_summary"]

REPLAY_FIDELITY_METRIC = "replay_fidelity"
REPLAY_FIDELITY_DESCRIPTION = (
    "Replay: share of recorded tool calls the replayed agent made again with identical arguments "
    "(calls the recording lacks count against it; per turn, pooled over the case)."
)
_NOT_REPLAYED = (
    "no turn of this case was replayed (its toolMock has no replay mode: build it with `agentgauge replay-set` or "
    "`agentgauge traces to-evalset --mocks`)"
)
_LISTED = 3  # calls named per kind in a reason; the record itself keeps them all


def _args(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _listed(items: list[str]) -> str:
    more = len(items) - _LISTED
    return "; ".join(items[:_LISTED]) + (f"; and {more} more" if more > 0 else "")


def replay_summary(record: ReplayRecord, turn: int | None = None) -> str:
    """One line saying what a replayed turn did with its recording; with ``turn``, only what went wrong, each item
    naming the turn (for a case's reason, after its overall count)."""
    where = f"turn {turn} " if turn is not None else ""
    parts = []
    if turn is None:
        parts.append(
            f"{record.faithful}/{record.recorded} recorded call(s) answered with identical arguments ({record.mode})"
        )
    if record.drift:
        drift = [
            f"{where}call {d.call} {d.name}: {d.difference}{'' if d.served else ' (answered with an error)'}"
            for d in record.drift
        ]
        parts.append(f"argument drift: {_listed(drift)}")
    if record.unrecorded:
        unrecorded = [f"{where}call {c.call} {c.name}({_args(c.arguments)}): {c.reason}" for c in record.unrecorded]
        parts.append(f"not in the recording: {_listed(unrecorded)}")
    drifted = {d.recorded_call for d in record.drift}  # an unserved drift leaves its recorded call: said above
    left = [c for c in record.unconsumed if c.call not in drifted]
    if left:
        unconsumed = [f"{where}recorded call {c.call} {c.name}({_args(c.arguments)})" for c in left]
        parts.append(f"never consumed: {_listed(unconsumed)}")
    return "; ".join(parts)


class ReplayFidelityEvaluator(NamedEvaluator):
    """``replay_fidelity`` (reference-free: it reads the replay record of each actual invocation)."""

    needs_expected = False
    needs_judge = False

    def __init__(self) -> None:
        super().__init__(REPLAY_FIDELITY_METRIC, REPLAY_FIDELITY_DESCRIPTION)

    async def evaluate(
        self, actuals: Sequence[Invocation], expecteds: Sequence[Invocation], metric: EvalMetric
    ) -> EvaluateResult:
        """Per replayed turn its fidelity and what drifted; overall the pooled share over the case's turns."""
        padded = [*expecteds, *([None] * (len(actuals) - len(expecteds)))]
        per: list[PerInvocationResult] = []
        faithful = denominator = 0
        reasons: list[str] = []
        for number, (actual, expected) in enumerate(zip(actuals, padded, strict=True), start=1):
            record = actual.replay
            if record is None:
                per.append(PerInvocationResult(actual, expected, None, EvalStatus.NOT_EVALUATED, "not replayed"))
                continue
            score = record.fidelity
            per.append(
                PerInvocationResult(
                    actual, expected, score, status_for_score(score, metric.threshold), replay_summary(record)
                )
            )
            faithful, denominator = faithful + record.faithful, denominator + record.denominator
            if record.drift or record.unrecorded or record.unconsumed:
                reasons.append(replay_summary(record, number))
        if not any(a.replay is not None for a in actuals):
            return EvaluateResult(None, EvalStatus.NOT_EVALUATED, per, _NOT_REPLAYED)
        overall = faithful / denominator if denominator else 1.0
        modes = "/".join(sorted({a.replay.mode for a in actuals if a.replay is not None}))
        head = f"{faithful}/{denominator} recorded call(s) reproduced with identical arguments ({modes})"
        reason = "; ".join([head, *reasons])
        return EvaluateResult(overall, status_for_score(overall, metric.threshold), per, reason)
