"""A person's verdict on a judge metric's verdict: the ground truth ``agentgauge calibrate`` measures judges with."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, model_validator

from ._base import GaugeModel, omit_empty

__all__ = ["HumanLabel", "LabelKey", "LabelVerdict"]


class LabelVerdict(StrEnum):
    """What a person said: ``agree`` / ``disagree`` with the judge's verdict they saw, or the verdict itself."""

    AGREE = "agree"
    DISAGREE = "disagree"
    PASS = "pass"
    FAIL = "fail"


LabelKey = tuple[str, str, str, int | None, int | None, str]
"""What a label is about: (result id, eval set id, case id, run, invocation, metric); one label per key is kept."""

_Name = Annotated[str, StringConstraints(min_length=1, max_length=255)]


class HumanLabel(GaugeModel):
    """A person's verdict on a judge metric for one case (``invocation`` unset) or one invocation (1-based).

    ``verdict`` ``pass`` / ``fail`` states what the metric should have said; ``agree`` / ``disagree`` is relative to
    the judge verdict the person saw, kept in ``judge_verdict`` (the web UI always records it). A label without
    ``judge_verdict`` must name the result it was given on (``eval_set_result_id``): it is resolved against that
    result's verdict. Empty ``eval_set_id`` / ``eval_set_result_id`` and unset ``run_id`` match any.
    """

    eval_id: _Name
    metric_name: _Name
    verdict: LabelVerdict
    eval_set_id: str = omit_empty("")
    eval_set_result_id: str = omit_empty("")
    run_id: Annotated[int, Field(ge=1)] | None = omit_empty()
    invocation: Annotated[int, Field(ge=1)] | None = omit_empty()
    judge_verdict: Literal["pass", "fail"] | None = omit_empty()
    judge_model: str = omit_empty("")
    note: Annotated[str, StringConstraints(max_length=4000)] = omit_empty("")
    author: Annotated[str, StringConstraints(max_length=200)] = omit_empty("")
    labelled_at: float | None = omit_empty()
    """When the label was given (seconds since the epoch)."""

    @model_validator(mode="after")
    def _relative_needs_a_reference(self) -> HumanLabel:
        relative = self.verdict in (LabelVerdict.AGREE, LabelVerdict.DISAGREE)
        if relative and self.judge_verdict is None and not self.eval_set_result_id:
            raise ValueError(
                f"verdict {self.verdict.value!r} needs judgeVerdict (the judge's 'pass' or 'fail' that was labelled) "
                "or evalSetResultId (the result whose verdict it is about)"
            )
        return self

    @property
    def key(self) -> LabelKey:
        """What this label is about; a newer label with the same key replaces it."""
        return (
            self.eval_set_result_id,
            self.eval_set_id,
            self.eval_id,
            self.run_id,
            self.invocation,
            self.metric_name,
        )

    def human_passes(self, judge_passed: bool | None = None) -> bool | None:
        """The person's verdict as pass (``True``) / fail (``False``); ``agree`` / ``disagree`` are read against
        ``judge_verdict``, else against ``judge_passed`` (the verdict of the result the label names). ``None``
        when neither is known."""
        if self.verdict is LabelVerdict.PASS:
            return True
        if self.verdict is LabelVerdict.FAIL:
            return False
        seen = judge_passed if self.judge_verdict is None else self.judge_verdict == "pass"
        if seen is None:
            return None
        return seen if self.verdict is LabelVerdict.AGREE else not seen
