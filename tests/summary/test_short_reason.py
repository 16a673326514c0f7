"""short_reason: a long reason on one line keeps its metric headline and the clause that says what differs."""

from __future__ import annotations

import pytest

from agentgauge.criteria._show import first_difference
from agentgauge.summary import first_reason, short_reason

_TRAJECTORY = (
    "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1: tool trajectory mismatch: expected tool id "
    "tool_calc_natural_multiply-1 with name calculator mismatch: closest actual call id calc_1 with name calculator: "
    "result mismatch: actual 'add' != expected 'mul' at $.operation"
)
_LONG_A = "The capital of France is Paris, a city on the Seine known for its museums, its cafes and its long history."
_LONG_E = "The capital of France is Lyon, a city on the Rhone known for its museums, its cafes and its long history."
_RESPONSE = (
    "final_response_avg_score (invocation 2): score 0 < threshold 1: final response mismatch: text mismatch: "
    + first_difference(_LONG_A, _LONG_E)
)
_ADK_ARGS = (
    "tool_trajectory_avg_score (invocation 3): score 0 < threshold 1: tool trajectory mismatch: call 0 "
    "(get_weather): arguments: actual {'city': 'Lyon', 'unit': 'celsius', 'days': 3} != expected {'city': 'Paris', "
    "'unit': 'celsius', 'days': 3}"
)
_MISSING = (
    "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1: tool trajectory mismatch: expected tool id "
    "tool_lookup_customer_record-1 with name lookup_customer_record mismatch: no actual call left to match"
)
_JUDGE = (
    "final_response_match_v2 (invocation 1): score 0 < threshold 0.5: The response does not answer the question: it "
    "talks about the weather in general terms and never names the city the user asked about, so it is not valid."
)
_ERROR = (
    "error: agent call failed: ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded "
    "with url: /run (Caused by NewConnectionError: Failed to establish a new connection: [Errno 111] refused)"
)


@pytest.mark.parametrize(
    ("reason", "starts", "keeps"),
    [
        (
            _TRAJECTORY,
            "tool_trajectory_avg_score (invocation 1): … ",
            "… actual 'add' != expected 'mul' at $.operation",
        ),
        (
            _RESPONSE,
            "final_response_avg_score (invocation 2): … ",
            "actual 'apital of France is Paris, a city on the Seine",
        ),
        (_ADK_ARGS, "tool_trajectory_avg_score (invocation 3): … ", "… actual {'city': 'Lyon'"),
        (_MISSING, "tool_trajectory_avg_score (invocation 1): … ", "no actual call left to match"),
        (_JUDGE, "final_response_match_v2 (invocation 1): score 0 < threshold 0.5: The response", "The response does"),
        (_ERROR, "error: agent call failed: ConnectionError", "ConnectionError"),
    ],
    ids=["tool-trajectory", "response-match", "adk-arguments", "missing-call", "judge", "error"],
)
def test_short_reason_keeps_the_headline_and_the_difference(reason: str, starts: str, keeps: str) -> None:
    short = short_reason(reason)
    assert len(reason) > 120
    assert short.startswith(starts)
    assert keeps in short
    assert len(short) <= 2 * 120  # the headline plus at most one cut clause


def test_a_comparison_without_sides_keeps_its_label() -> None:
    reason = "tool_trajectory_avg_score (invocation 2): score 0 < threshold 1: " + "x" * 100 + ": tool 0: b: 7 != 8"
    assert short_reason(reason) == "tool_trajectory_avg_score (invocation 2): … b: 7 != 8"


def test_a_reason_that_fits_and_whitespace() -> None:
    fits = "response_match_score (invocation 2): score 0.25 < threshold 0.8: actual 'no' != expected 'yes'"
    assert short_reason(fits) == fits
    assert short_reason("failed\n  twice") == "failed twice"
    assert short_reason(_TRAJECTORY, limit=len(_TRAJECTORY)) == _TRAJECTORY


def test_judge_and_error_reasons_are_cut_at_their_end() -> None:
    assert short_reason(_JUDGE).endswith("…")
    assert short_reason(_ERROR) == short_reason(_ERROR, 120)
    assert len(short_reason(_ERROR)) == 120


def test_the_first_reason_of_a_real_case(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalMetricResultDetails, EvalStatus

    detail = _TRAJECTORY.split("threshold 1: ", 1)[1]
    metric = EvalMetricResult(
        metric_name="tool_trajectory_avg_score",
        threshold=1.0,
        score=0.0,
        eval_status=EvalStatus.FAILED,
        details=EvalMetricResultDetails(reason=detail),
    )
    case = EvalCaseResult(
        eval_set_file="s.json",
        eval_id="c",
        final_eval_status=EvalStatus.FAILED,
        overall_eval_metric_results=[metric],
        eval_metric_result_per_invocation=[],
        session_id="s",
    )
    reason = first_reason(case)
    assert reason is not None
    assert short_reason(reason).endswith("actual 'add' != expected 'mul' at $.operation")
