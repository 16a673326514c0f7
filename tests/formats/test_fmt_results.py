"""Result files: native, ADK (snake/camel, int statuses), string-wrapped; the ADK writer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.formats import load_result, parse_result, save_result, to_adk_result
from agentgauge.model import EvalStatus

EXAMPLE = (
    Path(__file__).resolve().parents[2]
    / "examples/math_basic/math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
)

ADK_RESULT = {
    "eval_set_result_id": "app_set_1",
    "eval_set_result_name": None,
    "eval_set_id": "set",
    "eval_case_results": [
        {
            "eval_set_file": "set",
            "eval_set_id": "set",
            "eval_id": "case",
            "final_eval_status": 2,
            "eval_metric_results": [[{"metric_name": "x"}, {"metric_name": "x", "eval_status": 1}]],
            "overall_eval_metric_results": [
                {
                    "metric_name": "tool_trajectory_avg_score",
                    "threshold": None,
                    "criterion": {"threshold": 1.0, "match_type": 0},
                    "score": 0.5,
                    "eval_status": 2,
                    "details": {"rubric_scores": [{"rubric_id": "r", "rationale": "why", "score": 1.0}]},
                }
            ],
            "evalMetricResultPerInvocation": [
                {
                    "actualInvocation": {
                        "invocation_id": "i",
                        "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                        "final_response": {"role": "model", "parts": [{"text": "hello"}]},
                        "intermediate_data": {"tool_uses": [{"id": "t", "name": "f", "args": {}}]},
                    },
                    "expected_invocation": None,
                    "eval_metric_results": [{"metric_name": "m", "threshold": 0.5, "score": None, "eval_status": 3}],
                }
            ],
            "session_id": "s",
            "user_id": None,
        }
    ],
    "creation_timestamp": 5.0,
}


def _check_adk(result_path_or_doc: object) -> None:
    result = parse_result(json.dumps(result_path_or_doc))
    assert result.eval_set_result_name == ""
    case = result.eval_case_results[0]
    assert case.final_eval_status is EvalStatus.FAILED
    overall = case.overall_eval_metric_results[0]
    assert (overall.threshold, overall.score, overall.eval_status) == (1.0, 0.5, EvalStatus.FAILED)
    assert overall.criterion is not None and overall.criterion.adk == {"threshold": 1.0, "match_type": 0}
    assert overall.details is not None and overall.details.rubric_scores[0].reason == "why"
    per = case.eval_metric_result_per_invocation[0]
    assert per.actual_invocation.final_response is not None
    assert per.actual_invocation.final_response.content == "hello"
    assert per.actual_invocation.tools[0].name == "f"
    assert per.expected_invocation is None
    assert per.eval_metric_results[0].eval_status is EvalStatus.NOT_EVALUATED
    assert "eval_metric_results" not in (case.model_extra or {})


def test_adk_result() -> None:
    _check_adk(ADK_RESULT)


def test_legacy_string_wrapped_result(tmp_path: Path) -> None:
    wrapped = tmp_path / "old.evalset_result.json"
    wrapped.write_text(json.dumps(json.dumps(ADK_RESULT)))
    result = load_result(wrapped)
    assert result.eval_set_result_id == "app_set_1"
    assert result.eval_case_results[0].final_eval_status is EvalStatus.FAILED


def test_native_result_round_trip(tmp_path: Path) -> None:
    result = load_result(EXAMPLE)
    out = tmp_path / "r.json"
    save_result(result, out)
    assert load_result(out).model_dump(mode="json") == result.model_dump(mode="json")
    assert json.loads(out.read_text())["evalCaseResults"][0]["finalEvalStatus"] == "passed"


def test_adk_result_writer_is_accepted_by_adk(tmp_path: Path) -> None:
    adk = pytest.importorskip("google.adk.evaluation.eval_result")
    result = load_result(EXAMPLE)
    doc = to_adk_result(result)
    parsed = adk.EvalSetResult.model_validate_json(json.dumps(doc))
    case = parsed.eval_case_results[0]
    assert case.final_eval_status.value == 1
    assert case.overall_eval_metric_results[0].score == 1.0
    assert case.eval_metric_result_per_invocation[0].actual_invocation.final_response.parts[0].text == (
        "The result of 2 + 3 is **5**."
    )
    save_result(result, tmp_path / "adk.json", fmt="adk")
    again = load_result(tmp_path / "adk.json")
    assert again.eval_case_results[0].final_eval_status is EvalStatus.PASSED
    assert again.eval_case_results[0].overall_eval_metric_results[0].criterion is not None
