"""A judge answer in a bad format fails its metric, not the case's other scores (the trace-basic report).

Before: the saved case had ``overallEvalMetricResults: []`` -- its passing tool-trajectory score was gone -- and it
counted as failed. Now the judge metric is ``error`` with the judge's message, the trajectory score stays, the
case is ``error``, and every output counts passed + failed + error = cases.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from judged_sets import JUDGE, TRAJECTORY, judge_metric, judge_refusing, trace_case, write_set
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result, save_result


def _run(chat_server: ChatServer, tmp_path: Path) -> tuple[Any, dict[str, Any], Path]:
    chat_server.responder = judge_refusing("garbled")
    cases = [
        trace_case("sunny", "weather in Paris?"),
        trace_case("garbled", "garbled weather in Rome?"),  # the judge answers without JSON
        trace_case("wrong_tool", "time in Oslo?", tool="clock", actual_tool="calendar"),
    ]
    evalset = write_set(
        tmp_path, cases, [{"metricName": TRAJECTORY, "threshold": 1.0}, judge_metric(chat_server.base_url)]
    )
    done = CliRunner().invoke(
        app,
        [
            *("eval", str(evalset), "--output-dir", str(tmp_path / "out"), "--no-cache", "--json"),
            *("--html", str(tmp_path / "r.html"), "--markdown", str(tmp_path / "r.md")),
            *("--junit", str(tmp_path / "r.xml")),
        ],
    )
    [saved] = sorted((tmp_path / "out").rglob("*.evalset_result.json"))
    return done, json.loads(saved.read_text(encoding="utf-8")), saved


def test_a_bad_judge_answer_errors_its_metric_and_keeps_the_others(chat_server: ChatServer, tmp_path: Path) -> None:
    done, saved, _ = _run(chat_server, tmp_path)
    assert done.exit_code == 1, done.output
    assert "Traceback" not in done.output
    cases = {c["evalId"]: c for c in saved["evalCaseResults"]}
    garbled = cases["garbled"]
    assert garbled["finalEvalStatus"] == "error"
    metrics = {m["metricName"]: m for m in garbled["overallEvalMetricResults"]}
    assert (metrics[TRAJECTORY]["score"], metrics[TRAJECTORY]["evalStatus"]) == (1.0, "passed")  # kept
    assert (metrics[JUDGE]["score"], metrics[JUDGE]["evalStatus"]) == (None, "error")
    reason = metrics[JUDGE]["details"]["reason"]
    assert reason.startswith(f"run evaluation for metric {JUDGE}: ") and "judge answer" in reason
    assert garbled["errorMessage"] == reason
    [turn] = garbled["evalMetricResultPerInvocation"]
    assert [(m["metricName"], m["evalStatus"]) for m in turn["evalMetricResults"]] == [
        (TRAJECTORY, "passed"),
        (JUDGE, "error"),
    ]
    assert cases["sunny"]["finalEvalStatus"] == "passed"
    assert cases["wrong_tool"]["finalEvalStatus"] == "failed"  # the judge passed it: the trajectory decides


def test_every_output_of_the_run_counts_the_same(chat_server: ChatServer, tmp_path: Path) -> None:
    done, saved, path = _run(chat_server, tmp_path)
    expected = {"passed": 1, "failed": 1, "error": 1}
    assert saved["summary"]["caseStatusCounts"] == expected
    assert json.loads(done.stdout)["summary"]["caseStatusCounts"] == expected  # --json
    assert "Cases: 1 passed, 1 failed, 1 error, 0 not evaluated, 3 total" in done.stderr
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert suite is not None
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "3",
        "failures": "1",
        "errors": "1",
        "skipped": "0",
    }
    assert "| 3 | 1 | 1 | 1 | 0 | 1 |" in (tmp_path / "r.md").read_text(encoding="utf-8")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    cards = dict(re.findall(r'<div class="card"><span class="muted">([^<]+)</span><b[^>]*>([^<]+)</b>', page))
    assert [cards[k] for k in ("Cases", "Passed", "Failed", "Error", "Not evaluated")] == ["3", "1", "1", "1", "0"]
    shown = CliRunner().invoke(app, ["show", str(path)])
    assert shown.exit_code == 1
    assert "Cases: 1 passed, 1 failed, 1 error, 0 not evaluated, 3 total" in shown.output


def test_the_result_in_adk_format_is_read_by_google_adk(chat_server: ChatServer, tmp_path: Path) -> None:
    eval_result = pytest.importorskip("google.adk.evaluation.eval_result")
    _, _, path = _run(chat_server, tmp_path)
    adk_file = tmp_path / "adk.evalset_result.json"
    save_result(load_result(path), adk_file, fmt="adk")
    adk = eval_result.EvalSetResult.model_validate_json(adk_file.read_text(encoding="utf-8"))
    garbled = next(c for c in adk.eval_case_results if c.eval_id == "garbled")
    assert garbled.final_eval_status.name == "FAILED"  # ADK has no error status: an undecided case did not pass
    statuses = {m.metric_name: (m.score, m.eval_status.name) for m in garbled.overall_eval_metric_results}
    assert statuses == {TRAJECTORY: (1.0, "PASSED"), JUDGE: (None, "FAILED")}
    # Read back by agentgauge, the case counts survive (the summary travels with the file).
    shown = CliRunner().invoke(app, ["show", str(adk_file)])
    assert "Cases: 1 passed, 1 failed, 1 error, 0 not evaluated, 3 total" in shown.output
