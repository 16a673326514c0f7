"""What ``agentgauge calibrate`` finds: per judge metric and judge model, how often the judge agrees with people."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..model import GaugeModel
from ..model._base import empty_list, omit_empty

__all__ = ["Calibration", "CalibrationGroup", "Confusion", "Disagreement"]

Level = Literal["case", "invocation"]
"""What a verdict is about: a case's overall metric result, or one invocation's."""


class Confusion(GaugeModel):
    """The judge's verdicts against people's, counted (pass is the positive class)."""

    judge_pass_human_pass: int = 0
    judge_pass_human_fail: int = 0
    judge_fail_human_pass: int = 0
    judge_fail_human_fail: int = 0

    def matrix(self) -> list[list[int]]:
        """``[[pass/pass, pass/fail], [fail/pass, fail/fail]]``: rows the judge, columns the person."""
        return [
            [self.judge_pass_human_pass, self.judge_pass_human_fail],
            [self.judge_fail_human_pass, self.judge_fail_human_fail],
        ]

    def add(self, judge_passed: bool, human_passed: bool) -> None:
        """Count one labelled verdict."""
        if judge_passed:
            if human_passed:
                self.judge_pass_human_pass += 1
            else:
                self.judge_pass_human_fail += 1
        elif human_passed:
            self.judge_fail_human_pass += 1
        else:
            self.judge_fail_human_fail += 1


class Disagreement(GaugeModel):
    """A verdict the person labelled the other way: where it is, both verdicts, the judge's score and reason, and
    the person's note."""

    eval_set_result_id: str = ""
    eval_set_id: str = ""
    eval_id: str
    run_id: int = 1
    invocation: int | None = omit_empty()
    judge_passed: bool
    human_passed: bool
    score: float | None = None
    reason: str = omit_empty("")
    note: str = omit_empty("")
    author: str = omit_empty("")


class CalibrationGroup(GaugeModel):
    """One judge metric judged by one judge model at one level: counts, accuracy, Cohen's kappa (``None`` when
    undefined: every verdict, human and judge, in one class), the confusion matrix and the disagreements."""

    metric_name: str
    judge_model: str
    level: Level
    labelled: int = 0
    agreements: int = 0
    accuracy: float | None = None
    kappa: float | None = None
    confusion: Confusion = Field(default_factory=Confusion)
    results: list[str] = Field(default_factory=empty_list)
    disagreements: list[Disagreement] = Field(default_factory=empty_list)


class Calibration(GaugeModel):
    """Every group, with what was read: the results (by id), the labels, and the labels that matched no judge
    verdict (a case or metric not in the results, a verdict that is an error or not evaluated)."""

    results: list[str] = Field(default_factory=empty_list)
    labels: int = 0
    unmatched_labels: int = 0
    groups: list[CalibrationGroup] = Field(default_factory=empty_list)
