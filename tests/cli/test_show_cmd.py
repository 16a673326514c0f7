"""``agentgauge show``: native and ADK result files, report files, exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalStatus,
    Invocation,
    Message,
    Tool,
)


def _case(eval_id: str, passed: bool) -> EvalCaseResult:
    status = EvalStatus.PASSED if passed else EvalStatus.FAILED
    expected = Invocation(
        user_content=Message(role="user", content="weather in Paris?"),
        final_response=Message(role="assistant", content="Sunny"),
        tools=[Tool(id="1", name="get_weather", arguments={"city": "Paris"})],
    )
    actual = (
        expected
        if passed
        else expected.model_copy(update={"tools": [Tool(id="2", name="get_weather", arguments={"city": "Rome"})]})
    )
    metric = EvalMetricResult(
        metric_name="tool_trajectory_avg_score", score=1.0 if passed else 0.0, threshold=1.0, eval_status=status
    )
    return EvalCaseResult(
        eval_set_id="weather",
        eval_id=eval_id,
        final_eval_status=status,
        overall_eval_metric_results=[metric],
        eval_metric_result_per_invocation=[
            EvalMetricResultPerInvocation(
                actual_invocation=actual, expected_invocation=expected, eval_metric_results=[metric]
            )
        ],
    )


def _write(tmp_path: Path, *cases: EvalCaseResult) -> Path:
    result = EvalSetResult(eval_set_result_id="weather_r1", eval_set_id="weather", eval_case_results=list(cases))
    path = tmp_path / "weather_r1.evalset_result.json"
    path.write_text(result.model_dump_json(indent=2), encoding="utf-8")
    return path


def _adk_result(tmp_path: Path, status: int) -> Path:
    """An ADK result file as ADK < 1.22 wrote it: snake_case, int statuses, genai contents, JSON-string wrapped."""
    content = {"role": "user", "parts": [{"text": "weather in Paris?"}]}
    answer = {"role": "model", "parts": [{"text": "Sunny"}]}
    call = {"name": "get_weather", "args": {"city": "Paris"}}
    invocation = {
        "invocation_id": "e-1",
        "user_content": content,
        "final_response": answer,
        "intermediate_data": {"tool_uses": [call], "tool_responses": [], "intermediate_responses": []},
        "creation_timestamp": 0.0,
    }
    metric = {
        "metric_name": "response_match_score",
        "threshold": 0.8,
        "criterion": None,
        "score": 0.9 if status == 1 else 0.2,
        "eval_status": status,
        "details": None,
    }
    data = {
        "eval_set_result_id": "app_weather_1",
        "eval_set_result_name": "app_weather_1",
        "eval_set_id": "weather",
        "eval_case_results": [
            {
                "eval_set_file": "weather",
                "eval_set_id": "weather",
                "eval_id": "adk_case",
                "final_eval_status": status,
                "eval_metric_results": None,
                "overall_eval_metric_results": [metric],
                "eval_metric_result_per_invocation": [
                    {
                        "actual_invocation": invocation,
                        "expected_invocation": invocation,
                        "eval_metric_results": [metric],
                    }
                ],
                "session_id": "adk-eval-session-1",
                "session_details": None,
                "user_id": "test_user_id",
            }
        ],
        "creation_timestamp": 1700000000.0,
    }
    path = tmp_path / "app_weather_1.evalset_result.json"
    path.write_text(json.dumps(json.dumps(data)), encoding="utf-8")
    return path


def test_show_passing_result_exits_0(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["show", str(_write(tmp_path, _case("paris", True)))])
    assert result.exit_code == 0, result.output
    assert "Cases: 1 passed, 0 failed, 0 error, 0 not evaluated, 1 total" in result.output


def test_show_failing_result_exits_1_and_writes_reports(tmp_path: Path) -> None:
    path = _write(tmp_path, _case("paris", True), _case("rome", False))
    html, junit, md = tmp_path / "r.html", tmp_path / "out" / "r.junit.xml", tmp_path / "r.md"
    args = [
        "show",
        str(path),
        "--print-detailed-results",
        "--html",
        str(html),
        "--junit",
        str(junit),
        "--markdown",
        str(md),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    # The detailed view writes the call once, the expected word struck and the actual one added.
    assert '  Tool calls: get_weather({"city": "[-Paris-]{+Rome+}"})' in result.output
    assert "rome: tool_trajectory_avg_score (invocation 1): score 0 < threshold 1" in result.output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    assert 'data-case-id="rome"' in html.read_text(encoding="utf-8")
    assert "#### `rome` ❌ failed" in md.read_text(encoding="utf-8")
    assert f"JUnit report written to {junit}" in result.output


def test_show_json_prints_only_the_result_on_stdout(tmp_path: Path) -> None:
    path = _write(tmp_path, _case("paris", True))
    result = CliRunner().invoke(app, ["show", str(path), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["evalSetResultId"] == "weather_r1"
    assert "Cases: 1 passed" in result.stderr


@pytest.mark.parametrize(("status", "code"), [(1, 0), (2, 1)])
def test_show_reads_adk_result_files(tmp_path: Path, status: int, code: int) -> None:
    result = CliRunner().invoke(app, ["show", str(_adk_result(tmp_path, status)), "--print-detailed-results"])
    assert result.exit_code == code, result.output
    assert "Eval set weather" in result.output
    assert "Case adk_case" in result.output
    assert "response_match_score" in result.output
    if status == 2:
        assert 'Tool calls: get_weather({"city": "Paris"})' in result.output
        assert 'Final response: "Sunny"' in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "missing.json"),
        ("{not json", "bad.evalset_result.json"),
        ('{"evalSetId": "x", "evalCaseResults": [{"finalEvalStatus": "great"}]}', "bad.evalset_result.json"),
    ],
)
def test_show_invalid_input_exits_2(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / ("missing.json" if content is None else "bad.evalset_result.json")
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(app, ["show", str(path)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_a_score_beyond_floating_point_is_shown_without_an_interval(tmp_path: Path) -> None:
    # `1e999` is valid JSON; it reads as infinity, which no bootstrap can resample.
    cases = [
        {
            "evalSetId": "s",
            "evalId": eval_id,
            "runId": 1,
            "finalEvalStatus": "passed",
            "overallEvalMetricResults": [{"metricName": "m", "score": score, "evalStatus": "passed", "threshold": 0.5}],
            "evalMetricResultPerInvocation": [],
            "sessionId": "x",
            "userId": "u",
        }
        for eval_id, score in (("c1", "SCORE"), ("c2", 0.5))
    ]
    document = {"evalSetResultId": "a_s_1", "evalSetId": "s", "evalCaseResults": cases, "creationTimestamp": 1}
    path = tmp_path / "r.evalset_result.json"
    path.write_text(json.dumps(document).replace('"SCORE"', "1e999"))
    shown = CliRunner().invoke(app, ["show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "pass rate (runs)" in shown.output and "inf" in shown.output
    compared = CliRunner().invoke(app, ["compare", str(path), str(path)])
    assert compared.exit_code == 0, compared.output
