"""A person's label read as pass / fail, and the key one label per verdict is kept under."""

from __future__ import annotations

import pytest

from agentgauge.model import HumanLabel


@pytest.mark.parametrize(
    ("verdict", "judge_verdict", "judge_passed", "human"),
    [
        ("pass", None, None, True),
        ("fail", "pass", True, False),  # an absolute verdict ignores the judge's
        ("agree", "pass", None, True),
        ("agree", "fail", None, False),
        ("disagree", "pass", None, False),
        ("disagree", "fail", None, True),
        ("agree", "pass", False, True),  # the verdict the person saw wins over the one compared with
        ("disagree", None, True, False),  # no verdict recorded: read against the result's
        ("agree", None, None, None),  # nothing to read it against
    ],
)
def test_human_passes(verdict: str, judge_verdict: str | None, judge_passed: bool | None, human: bool | None) -> None:
    label = HumanLabel.model_validate(
        {"evalId": "c", "metricName": "m", "verdict": verdict, "judgeVerdict": judge_verdict, "evalSetResultId": "r"}
    )
    assert label.human_passes(judge_passed) is human


def test_key_and_camel_case_output() -> None:
    label = HumanLabel(eval_id="c", metric_name="m", verdict="pass", run_id=2, invocation=1, eval_set_id="s")
    assert label.key == ("", "s", "c", 2, 1, "m")
    assert label.model_dump(mode="json", by_alias=True) == {
        "evalId": "c",
        "metricName": "m",
        "verdict": "pass",
        "evalSetId": "s",
        "runId": 2,
        "invocation": 1,
    }
