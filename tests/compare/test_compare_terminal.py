"""compare's terminal layout: at 80 columns nothing is clipped and reasons wrap between words; wide, one table."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from agentgauge.compare import compare_results, print_comparison
from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus

REASON = "tool_trajectory_avg_score: score 0.00 < threshold 1 (0/1 invocations matched the expected tool trajectory)"


def _result(passes: dict[str, list[bool]]) -> EvalSetResult:
    cases = []
    for eval_id, runs in passes.items():
        for run_id, ok in enumerate(runs, start=1):
            status = EvalStatus.PASSED if ok else EvalStatus.FAILED
            metric = EvalMetricResult(
                metric_name="tool_trajectory_avg_score", score=1.0 if ok else 0.0, eval_status=status, threshold=1.0
            )
            cases.append(
                EvalCaseResult(eval_id=eval_id, run_id=run_id, final_eval_status=status,
                               overall_eval_metric_results=[metric], failure_reason=None if ok else REASON)
            )  # fmt: skip
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=cases)


def _printed(width: int) -> str:
    base = _result({"calc_natural_multiply_with_a_long_id": [True] * 5, "calc_add": [True] * 5, "flaky": [True] * 5})
    new = _result(
        {
            "calc_natural_multiply_with_a_long_id": [False] * 5,
            "calc_add": [True] * 5,
            "flaky": [True, False] * 2 + [True],
        }
    )
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=True, color_system=None)
    print_comparison(compare_results(base, new), console)
    return out.getvalue()


def test_at_80_columns_no_line_is_longer_and_no_word_is_cut() -> None:
    text = _printed(80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "Reasons (new):" in text and "Reason (new)" not in text  # the reasons left the table
    reasons = text[text.index("Reasons (new):") :]
    assert "\n  calc_natural_multiply_with_a_long_id\n" in reasons  # the id whole, above its reason
    assert "\n    tool_trajectory_avg_score: score 0 < threshold 1\n" in reasons
    assert "(broken in new)" in text and "(flaky in new)" in text
    assert re.search(r"^    not significant; cases needed to detect a change of", text, re.M)
    # long lines wrap between words, the rest of a line indented under its start
    assert re.search(
        r"^  calc_natural_multiply_with_a_long_id \(Fisher exact test, runs\): p = 0.00794,\n {6}\S", text, re.M
    )


@pytest.mark.parametrize("width", [140, 200])
def test_wide_terminals_keep_one_table_with_the_reasons(width: int) -> None:
    text = _printed(width)
    assert "Reason (new)" in text and "Reasons (new):" not in text
    assert re.search(r"^  pass rate \(runs\) .* not significant; cases needed", text, re.M)
