"""Every output format counts the same cases the same way: passed + failed + error + not evaluated = cases.

One result holds a passing case, a failing case, a case whose agent crashed, a case whose judge answered in a bad
format (its other metric kept), and a case no metric scored. Before the ``error`` status, the terminal said
"2 failed" while the HTML report showed an "Errors" card counting the crash apart from (and also inside) the
failures, and the judge error erased the case's other metric.
"""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from result_samples import errored_case, failing_case, metric, not_evaluated_case, passing_case
from rich.console import Console
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import save_result
from agentgauge.model import EvalCaseResult, EvalMetricResultDetails, EvalSetResult, EvalStatus
from agentgauge.reporting import print_summary, render
from agentgauge.summary import summarize_results

Counts = tuple[int, int, int, int, int]
"""(passed, failed, error, not evaluated, cases)"""

EXPECTED: Counts = (1, 1, 2, 1, 5)


def _judge_error_case() -> EvalCaseResult:
    """The trajectory passed; the judge's answer had no JSON: that metric is ``error``, so is the case."""
    message = "run evaluation for metric llm_final_response: no JSON object found in the judge answer"
    judged = metric("llm_final_response", None, 0.5, EvalStatus.ERROR)
    judged.details = EvalMetricResultDetails(reason=message)
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id="judge_garbage",
        final_eval_status=EvalStatus.ERROR,
        error_message=message,
        overall_eval_metric_results=[metric("tool_trajectory_avg_score", 1.0, 1.0, EvalStatus.PASSED), judged],
    )


def _result() -> EvalSetResult:
    cases = [passing_case(), failing_case(), errored_case(), _judge_error_case(), not_evaluated_case()]
    summary = summarize_results(cases, case_ids=[c.eval_id for c in cases], num_runs=1).full()
    return EvalSetResult(
        eval_set_result_id="calc_counts",
        eval_set_id="calc",
        eval_case_results=cases,
        summary=summary,
        creation_timestamp=1_700_000_000.0,
    )


_TERMINAL = re.compile(r"Cases: (\d+) passed, (\d+) failed, (\d+) error, (\d+) not evaluated, (\d+) total")


def _terminal(text: str) -> Counts:
    found = _TERMINAL.search(text)
    assert found is not None, text
    return tuple(int(n) for n in found.groups())  # type: ignore[return-value]


def _terminal_summary(result: EvalSetResult, tmp_path: Path) -> Counts:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    print_summary(result, console=console)
    return _terminal(console.file.getvalue())  # type: ignore[attr-defined]


def _json(result: EvalSetResult, tmp_path: Path) -> Counts:
    summary = json.loads(render(result, "json"))["summary"]
    counts = summary["caseStatusCounts"]
    per_case = [c["overallStatus"] for c in summary["evalCaseSummaries"]]
    assert [per_case.count(s) for s in ("passed", "failed", "error", "not_evaluated")] == [
        counts.get(k, 0) for k in ("passed", "failed", "error", "notEvaluated")
    ]
    keys = ("passed", "failed", "error", "notEvaluated")
    return (*(counts.get(k, 0) for k in keys), len(per_case))  # type: ignore[return-value]


def _html(result: EvalSetResult, tmp_path: Path) -> Counts:
    page = render(result, "html")
    cards = dict(re.findall(r'<div class="card"><span class="muted">([^<]+)</span><b[^>]*>([^<]+)</b>', page))
    assert "Errors" not in cards  # no second count of errors beside the statuses
    names = ("Passed", "Failed", "Error", "Not evaluated", "Cases")
    return tuple(int(cards[name]) for name in names)  # type: ignore[return-value]


def _markdown(result: EvalSetResult, tmp_path: Path) -> Counts:
    lines = render(result, "markdown").splitlines()
    head = lines.index("| Cases | Passed | Failed | Error | Not evaluated | Runs |")
    cases, passed, failed, error, not_evaluated, _ = (int(c) for c in lines[head + 2].strip("|").split("|"))
    return passed, failed, error, not_evaluated, cases


def _junit(result: EvalSetResult, tmp_path: Path) -> Counts:
    suite = ET.fromstring(render(result, "junit")).find("testsuite")
    assert suite is not None
    tests, failures, errors, skipped = (int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped"))
    return tests - failures - errors - skipped, failures, errors, skipped, tests


def _show(result: EvalSetResult, tmp_path: Path) -> Counts:
    path = tmp_path / "calc.evalset_result.json"
    save_result(result, path)
    done = CliRunner().invoke(app, ["show", str(path)])
    assert done.exit_code == 1, done.output
    return _terminal(done.output)


def _show_json(result: EvalSetResult, tmp_path: Path) -> Counts:
    path = tmp_path / "calc.evalset_result.json"
    save_result(result, path)
    done = CliRunner().invoke(app, ["show", str(path), "--json"])
    assert done.exit_code == 1, done.output
    loaded = EvalSetResult.model_validate_json(done.stdout)
    return _json(loaded, tmp_path)


def _adk_file_shown(result: EvalSetResult, tmp_path: Path) -> Counts:
    # An ADK-format file has no error status (written as FAILED); its summary keeps the case counts.
    path = tmp_path / "calc.evalset_result.json"
    save_result(result, path, fmt="adk")
    done = CliRunner().invoke(app, ["show", str(path)])
    assert done.exit_code == 1, done.output
    return _terminal(done.output)


FORMATS: dict[str, Callable[[EvalSetResult, Path], Counts]] = {
    "terminal": _terminal_summary,
    "json": _json,
    "html": _html,
    "markdown": _markdown,
    "junit": _junit,
    "show": _show,
    "show --json": _show_json,
    "show of an ADK file": _adk_file_shown,
}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_format_gives_the_same_case_counts(fmt: str, tmp_path: Path) -> None:
    counts = FORMATS[fmt](_result(), tmp_path)
    assert counts == EXPECTED
    passed, failed, error, not_evaluated, cases = counts
    assert passed + failed + error + not_evaluated == cases


def test_the_metric_table_counts_the_judge_error_beside_the_kept_scores() -> None:
    console = Console(file=io.StringIO(), width=120, color_system=None)
    print_summary(_result(), console=console)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert re.search(r"Metric +Mean +Threshold +Status +Passed +Failed +Error +Not eval\.", out), out
    # The judge-error case still counts its passed trajectory; its judge metric is one error.
    assert re.search(r"tool_trajectory_avg_score +0\.8333 +1 +failed +2 +1 +0 +0", out), out
    assert re.search(r"llm_final_response +- +0\.5 +error +0 +0 +1 +0", out), out
    markdown = render(_result(), "markdown")
    assert "| Metric | Mean score | Threshold | Status | Passed | Failed | Error | Not evaluated |" in markdown
    assert "| llm_final_response | - | 0.5 | ⚠️ error | 0 | 0 | 1 | 0 |" in markdown
