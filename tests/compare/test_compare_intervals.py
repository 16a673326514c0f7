"""compare's paired bootstrap intervals, the cases-needed line and flaky against broken cases, from the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _result(passes: dict[str, list[bool]]) -> EvalSetResult:
    cases = []
    for eval_id, runs in passes.items():
        for run_id, ok in enumerate(runs, start=1):
            status = EvalStatus.PASSED if ok else EvalStatus.FAILED
            metric = EvalMetricResult(metric_name="m", score=1.0 if ok else 0.0, eval_status=status, threshold=1.0)
            cases.append(
                EvalCaseResult(eval_id=eval_id, run_id=run_id, final_eval_status=status,
                               overall_eval_metric_results=[metric])
            )  # fmt: skip
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=cases)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_compare_json_has_intervals_cases_needed_and_runs_states(tmp_path: Path) -> None:
    base = _result({f"c{i}": [True] * 5 for i in range(8)})
    new = _result(
        {**{f"c{i}": [True] * 5 for i in range(6)}, "c6": [True, False, True, True, False], "c7": [False] * 5}
    )
    (tmp_path / "base.json").write_text(base.model_dump_json())
    (tmp_path / "new.json").write_text(new.model_dump_json())
    done = _run("compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--json")
    assert done.returncode == 1, done.stderr
    comparison = json.loads(done.stdout)
    rate = next(e for e in comparison["estimates"] if e["name"] == "pass rate (runs)")
    assert rate["base"] == 1.0 and rate["new"] == pytest.approx(33 / 40) and rate["delta"] == pytest.approx(-7 / 40)
    assert rate["low"] <= rate["delta"] <= rate["high"] <= 0.0 and rate["resamples"] == 10_000
    assert rate["significant"] is False and rate["casesNeeded"] > 8
    cases = {c["evalId"]: c for c in comparison["cases"]}
    assert cases["c6"]["newRunsState"] == "flaky (3/5 passed)"
    assert cases["c7"]["newRunsState"] == "broken (0/5 passed)"
    assert "baseRunsState" not in cases["c7"]
    assert f"cases needed to detect a change of {abs(rate['delta']):.2f}" in done.stderr
    assert "(flaky in new)" in done.stderr and "(broken in new)" in done.stderr
    again = _run("compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--json")
    assert json.loads(again.stdout)["estimates"] == comparison["estimates"]  # seeded: the same every time
    off = _run(
        "compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "--json", "--bootstrap-resamples", "0"
    )
    assert "low" not in json.loads(off.stdout)["estimates"][0]


def test_compare_markdown_and_html_show_the_intervals(tmp_path: Path) -> None:
    done = _run(
        "compare", str(EXAMPLES / "compare/base.evalset_result.json"),
        str(EXAMPLES / "compare/new.evalset_result.json"),
        "--markdown", str(tmp_path / "c.md"), "--html", str(tmp_path / "c.html"),
    )  # fmt: skip
    assert done.returncode == 1
    markdown = (tmp_path / "c.md").read_text()
    assert "paired bootstrap over 6 cases" in markdown
    line = next(ln for ln in markdown.splitlines() if ln.startswith("- pass rate (runs)"))
    assert "1.000 -> 0.667  -0.33 [" in line and "cases needed to detect a change of 0.33" in line
    assert '<li class="estimate">tool_trajectory_avg_score' in (tmp_path / "c.html").read_text()
