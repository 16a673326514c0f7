"""The persisted shape of a first divergence between two runs of a case (``compare --json``, ``diff --json``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import Field

from ..model import GaugeModel, omit_empty

__all__ = ["Divergence", "DivergenceKind", "Step", "StepKind", "StepRef"]

StepKind = Literal["tool", "answer"]


class DivergenceKind(StrEnum):
    """How the runs first differ."""

    DIFFERENT_TOOL = "different_tool"
    """Both runs call a tool there, not the same one."""
    DIFFERENT_ARGUMENTS = "different_arguments"
    """The same tool with other arguments."""
    DIFFERENT_RESULT = "different_result"
    """The same call (tool and arguments) got another result."""
    EXTRA_CALL = "extra_call"
    """The new run makes a call the base run does not."""
    MISSING_CALL = "missing_call"
    """The base run makes a call the new run does not."""
    DIFFERENT_ANSWER = "different_answer"
    """The turn's final answer differs."""
    EXTRA_TURN = "extra_turn"
    """The new run has a turn the base run does not (a simulated conversation that went on)."""
    MISSING_TURN = "missing_turn"
    """The base run has a turn the new run does not."""


class Step(GaugeModel):
    """One step of a run: a tool call (name, arguments, result) or a turn's final answer, at ``turn`` (1-based)
    and ``step`` (1-based within the turn; the answer is the turn's last step)."""

    turn: int
    step: int
    kind: StepKind
    name: str = omit_empty("")
    arguments: Any = Field(default=None, exclude_if=lambda v: v is None)
    result: Any = Field(default=None, exclude_if=lambda v: v is None)
    text: str | None = omit_empty()

    def label(self) -> str:
        """``turn 2, step 1``."""
        return f"turn {self.turn}, step {self.step}"


class StepRef(GaugeModel):
    """A place in each run: ``base`` and ``new`` (``turn``, ``step``)."""

    base_turn: int
    base_step: int
    new_turn: int
    new_step: int


class Divergence(GaugeModel):
    """Where two runs of a case first part, how, both sides of it, and where they meet again.

    ``index`` is the 1-based position in the base run's step sequence where the runs first differ (the steps
    before it are the same in both); ``turn``/``step`` name that place (on the new run's side for an extra step).
    ``reconverges`` is the first later place where the runs take the same step again (``None``: they never do).
    ``distance`` is the edit distance of the two step sequences; ``stretches`` how many separate stretches differ.
    """

    kind: DivergenceKind
    index: int
    turn: int
    step: int
    base: Step | None = None
    new: Step | None = None
    detail: str = omit_empty("")
    """What differs within the step: ``actual 8 != expected 42 at $.a`` for arguments or results."""
    reconverges: StepRef | None = omit_empty()
    distance: int = 0
    stretches: int = 1
    base_steps: int = 0
    new_steps: int = 0
    aligned: bool = True
    """False when the runs were too long to align: only the first difference is reported."""
