"""The MCP answers count and list cases by their case status (summary.CaseSummary, decided over the runs by the
result's rule), so they say what ``show`` and every report say: a flaky case that passes on the mean of its runs is
not listed, a failing one is listed once with the run its reason comes from."""

from __future__ import annotations

from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus
from agentgauge.server._mcp_answers import failures_answer, result_summary
from agentgauge.summary import result_summary as summarize

P, F = EvalStatus.PASSED, EvalStatus.FAILED


def _run(eval_id: str, run_id: int, score: float) -> EvalCaseResult:
    status = P if score >= 0.5 else F
    metric = EvalMetricResult(metric_name="m", score=score, eval_status=status, threshold=0.5)
    return EvalCaseResult(
        eval_set_id="set",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        overall_eval_metric_results=[metric],
    )


def _result() -> EvalSetResult:
    runs = [_run("flaky", 1, 1.0), _run("flaky", 2, 0.2), _run("bad", 1, 0.4), _run("bad", 2, 0.1)]
    return EvalSetResult(eval_set_result_id="r", eval_set_id="set", eval_case_results=runs)


def test_answers_count_cases_by_their_case_status_as_show_does() -> None:
    result = _result()
    shown = [c.eval_id for c in summarize(result).cases if not c.passed]
    assert shown == ["bad"]  # the flaky case's mean (0.6) passes; per run, three runs did not pass
    summary = result_summary(result, None, "r")
    assert [c["caseId"] for c in summary["notPassed"]] == shown
    assert summary["notPassed"][0] | {"reason": None} == {
        "caseId": "bad",
        "status": "failed",
        "runs": "0/2 runs passed",
        "run": 1,
        "reason": None,
    }
    why = failures_answer(result, "r", None, 10)
    assert (why["cases"], why["notPassed"], [f["caseId"] for f in why["failures"]]) == (2, 1, ["bad"])
    assert why["failures"][0]["failedMetrics"][0]["score"] == 0.4  # the run the reason comes from (run 1)
    assert failures_answer(result, "r", ["flaky"], 10)["notPassed"] == 0
