"""One multi-run result, one set of counts: the bundled six-case calculator set run five times with the
deterministic flaky agent (``examples/flaky/flaky_agent.py``) says the same case counts -- and, labelled apart, the
same case run counts -- in the terminal, JSON, JUnit, Markdown and HTML reports and in the web UI's answers (result
list, case list, history), with ADK's ``test_config.json`` criteria and with the native metrics file.

Each case is counted once, by its status over its five runs (the run's case status rule, named wherever a status
is shown); ``Did not pass (N)`` lists exactly the cases whose status is not passed.
"""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.server import ServerConfig, create_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENT = EXAMPLES / "flaky" / "flaky_agent.py"
EVALSET = EXAMPLES / "calculator" / "calculator.evalset.json"
TEST_CONFIG = EXAMPLES / "home_automation" / "test_config.json"
NATIVE = EXAMPLES / "calculator" / "calculator.metrics.json"

Counts = tuple[int, int, int, int]
"""(passed, failed, error, not evaluated)"""

# Runs passed per case (the agent's table): 5, 3, 3, 2, 4, 0 of five -> 17 of 30 case runs.
RUNS: Counts = (17, 13, 0, 0)
# test_config.json (trajectory 1.0, ROUGE 0.8): under the mean rule multiply (3/5) and divide (2/5) pass on their
# means; subtract (3/5) and the two-turn case (4/5) fail on the trajectory mean. The native file's exact checks
# fail every case with a failing run.
EXPECTED = {
    "test_config": {"mean": (3, 3, 0, 0), "all": (1, 5, 0, 0), "majority": (4, 2, 0, 0), "any": (5, 1, 0, 0)},
    "native": {"mean": (1, 5, 0, 0), "all": (1, 5, 0, 0), "majority": (4, 2, 0, 0), "any": (5, 1, 0, 0)},
}
CONFIGS = {"test_config": TEST_CONFIG, "native": NATIVE}


def _counts(
    found: dict[str, Any], keys: tuple[str, str, str, str] = ("passed", "failed", "error", "notEvaluated")
) -> Counts:
    return tuple(int(found.get(k, 0)) for k in keys)  # type: ignore[return-value]


def _terminal(output: str) -> tuple[Counts, Counts, int]:
    cases = re.search(r"Cases: (\d+) passed, (\d+) failed, (\d+) error, (\d+) not evaluated, 6 total", output)
    runs = re.search(r"Case runs: (\d+) passed, (\d+) failed, (\d+) error, (\d+) not evaluated, 30 total", output)
    listed = re.search(r"Did not pass \((\d+)\):", output)
    assert cases and runs, output
    listed_count = int(listed.group(1)) if listed else 0
    return tuple(map(int, cases.groups())), tuple(map(int, runs.groups())), listed_count  # type: ignore[return-value]


def _junit(path: Path) -> tuple[Counts, int]:
    suite = ET.parse(path).getroot().find("testsuite")
    assert suite is not None
    tests, failures, errors, skipped = (int(suite.get(k, "0")) for k in ("tests", "failures", "errors", "skipped"))
    runs_passed = sum(int(p.get("value", "0")) for p in suite.iter("property") if p.get("name") == "runs_passed")
    return (tests - failures - errors - skipped, failures, errors, skipped), runs_passed


def _markdown(text: str) -> tuple[Counts, Counts]:
    cases = re.search(r"^\| 6 \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| 5 \|$", text, re.M)
    runs = re.search(r"^\| 30 \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$", text, re.M)
    assert cases and runs, text[:2000]
    return tuple(map(int, cases.groups())), tuple(map(int, runs.groups()))  # type: ignore[return-value]


def _html(text: str) -> tuple[Counts, int]:
    def card(name: str) -> str:
        found = re.search(rf'<span class="muted">{name}</span><b[^>]*>([^<]*)</b>', text)
        assert found, name
        return found.group(1)

    cases = tuple(int(card(name)) for name in ("Passed", "Failed", "Error", "Not evaluated"))
    assert int(card("Cases")) == 6
    passed, total = card("Case runs passed").split(" / ")
    assert int(total) == 30
    return cases, int(passed)  # type: ignore[return-value]


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, Path]:
    """A server's data and eval sets folders holding the calculator set; results are written under the data."""
    evals = tmp_path / "evals" / "calculator"
    evals.mkdir(parents=True)
    shutil.copy(EVALSET, evals / EVALSET.name)
    return tmp_path / "data", tmp_path / "evals"


def _ui(data: Path, evals: Path) -> tuple[Counts, Counts, Counts, Counts]:
    """What the web UI's answers count: the result list (cases, case runs), the set's case list and its history."""
    with TestClient(create_app(ServerConfig(data_dir=data, evals_dir=evals))) as client:
        (row,) = client.get("/api/apps/calculator/results").json()
        listed = client.get("/api/apps/calculator/eval-sets/calculator/case-list").json()["cases"]
        (run,) = client.get("/api/apps/calculator/eval-sets/calculator/history").json()["runs"]
    keys = ("passed", "failed", "error", "not_evaluated")
    by_status = [sum(1 for c in listed if c["status"] == status) for status in keys]
    assert run["cases"] == 6 and run["total"] == 30
    history = (run["passedCases"], run["failedCases"], 0, 0)
    return _counts(row["counts"], keys), _counts(row["caseRuns"], keys), tuple(by_status), history  # type: ignore[return-value]


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("rule", ["mean", "all", "majority", "any"])
def test_every_surface_counts_the_same_cases_and_case_runs(
    config: str, rule: str, served: tuple[Path, Path], tmp_path: Path
) -> None:
    data, evals = served
    reports = {"junit": tmp_path / "r.xml", "markdown": tmp_path / "r.md", "html": tmp_path / "r.html"}
    args = [str(AGENT), str(EVALSET), "--config", str(CONFIGS[config]), "--num-runs", "5", "--case-status", rule]
    args += ["--output-dir", str(data / "results"), "--json"]
    args += [item for fmt, path in reports.items() for item in (f"--{fmt}", str(path))]
    ran = CliRunner().invoke(app, ["eval", *args])
    assert ran.exit_code == 1, ran.output  # some case did not pass
    cases = EXPECTED[config][rule]

    terminal_cases, terminal_runs, did_not_pass = _terminal(ran.stderr)
    summary = json.loads(ran.stdout)["summary"]
    junit_cases, junit_runs = _junit(reports["junit"])
    markdown_cases, markdown_runs = _markdown(reports["markdown"].read_text(encoding="utf-8"))
    html_cases, html_runs = _html(reports["html"].read_text(encoding="utf-8"))
    ui_cases, ui_runs, case_list, history = _ui(data, evals)

    assert terminal_cases == _counts(summary["caseStatusCounts"]) == junit_cases == markdown_cases == cases
    assert html_cases == ui_cases == case_list == cases
    assert (history[0], history[1]) == (cases[0], cases[1] + cases[2])
    assert terminal_runs == _counts(summary["caseRunStatusCounts"]) == markdown_runs == ui_runs == RUNS
    assert junit_runs == html_runs == RUNS[0]
    assert did_not_pass == 6 - cases[0]  # exactly the cases whose status is not passed
    assert summary["caseStatusRule"] == rule
    # The rule is named where a status over runs is shown.
    phrase = {"mean": "mean of runs ≥ threshold", "all": "all runs pass", "majority": "most runs pass"}
    assert f"Case status rule: {phrase.get(rule, 'any run passes')}" in ran.stderr
    assert f"; rule: {phrase.get(rule, 'any run passes')})" in reports["junit"].read_text(encoding="utf-8")


def test_measurements_are_apart_from_the_scores(tmp_path: Path) -> None:
    """ADK's efficiency metrics, appended to the test_config.json criteria: a block of their own, no threshold,
    no pass/fail counts, no interval."""
    args = [str(AGENT), str(EVALSET), "--config", str(TEST_CONFIG), "--num-runs", "5", "--output-dir", str(tmp_path)]
    args += ["--markdown", str(tmp_path / "r.md"), "--html", str(tmp_path / "r.html")]
    ran = CliRunner().invoke(app, ["eval", *args])
    output = ran.output
    metrics = output[output.index("Metrics (over 30 case runs)") : output.index("Measurements (informational)")]
    assert "response_match_score" in metrics and "invocation_duration_v1" not in metrics
    measurements = output[output.index("Measurements (informational)") : output.index("pass@1")]
    assert re.search(r"tool_call_count_v1\s+1\s+30\n", measurements), measurements
    intervals = output[output.index("95% intervals") : output.index("Flaky")]
    assert "tool_call_count_v1" not in intervals and "invocation_duration_v1" not in intervals
    markdown = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "| Measurement (informational) | Mean | Measured |" in markdown
    assert "| tool_call_count_v1 | 1 | 30 |" in markdown
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<h2>Measurements</h2>" in html and html.index("<h2>Measurements</h2>") > html.index("<h2>Metrics")
    # No change of a measurement is to be detected: plan leaves them out; compare shows their deltas, no verdict.
    saved = re.search(r"Results saved to (\S+\.evalset_result\.json)", output)
    assert saved, output
    plan = CliRunner().invoke(app, ["plan", saved.group(1), "--delta", "0.1"])
    assert plan.exit_code == 0 and "response_match_score" in plan.output and "_v1" not in plan.output, plan.output
    compared = CliRunner().invoke(app, ["compare", saved.group(1), saved.group(1), "--json"])
    comparison = json.loads(compared.stdout)
    measured = {m["metricName"] for m in comparison["metrics"] if m.get("measurement")}
    assert measured == {"tool_call_count_v1", "inference_call_count_v1", "token_usage_v1", "invocation_duration_v1"}
    verdicts = {e["name"]: e.get("significant") for e in comparison["estimates"]}
    assert verdicts["invocation_duration_v1"] is None and verdicts["response_match_score"] is False
