"""``eval --reducer`` and a metrics file's ``reducer``: how a case's runs combine, recorded in the result."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

TRACES = Path(__file__).resolve().parents[2] / "examples" / "trace_mode"


def _eval(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=300)


def _reducers(result: dict) -> dict[str, set[str | None]]:  # type: ignore[type-arg]
    found: dict[str, set[str | None]] = {}
    for case in result["evalCaseResults"]:
        for metric in case["overallEvalMetricResults"]:
            found.setdefault(metric["metricName"], set()).add(metric.get("reducer"))
    return found


def test_reducer_option_and_metrics_file_key(tmp_path: Path) -> None:
    evalset = str(TRACES / "calculator_traces.evalset.json")
    done = _eval(evalset, "--num-runs", "2", "--reducer", "at_least_2", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert _reducers(result) == {
        "tool_trajectory_avg_score": {"at_least_2"},
        "final_response_avg_score": {"at_least_2"},
    }
    summaries = {s["evalId"]: s for s in result["summary"]["evalCaseSummaries"]}
    # a case every run of which failed the trajectory: at_least_2 gives 0 and fails it
    wrong = {m["metricName"]: m for m in summaries["multiply_wrong_operand"]["metricSummaries"]}
    assert wrong["tool_trajectory_avg_score"]["averageScore"] == 0.0
    assert wrong["tool_trajectory_avg_score"]["evalStatus"] == "failed"

    metrics = json.loads((TRACES / "calculator_traces.metrics.json").read_text())
    metrics[0]["reducer"] = "max"  # the file's own reducer wins over --reducer
    (tmp_path / "m.metrics.json").write_text(json.dumps(metrics))
    done = _eval(evalset, "--metrics", "m.metrics.json", "--num-runs", "2", "--reducer", "min", "--json", cwd=tmp_path)
    reducers = _reducers(json.loads(done.stdout))
    assert reducers[metrics[0]["metricName"]] == {"max"} and reducers[metrics[1]["metricName"]] == {"min"}


def test_unknown_reducer_is_bad_input(tmp_path: Path) -> None:
    done = _eval(str(TRACES / "calculator_traces.evalset.json"), "--reducer", "avg", cwd=tmp_path)
    assert done.returncode == 2 and "--reducer: unknown reducer 'avg'" in done.stderr
    assert not (tmp_path / ".agentgauge").exists()  # nothing run or written
    (tmp_path / "bad.metrics.json").write_text('[{"metricName": "tool_trajectory_avg_score", "reducer": "top"}]')
    done = _eval(str(TRACES / "calculator_traces.evalset.json"), "--metrics", "bad.metrics.json", cwd=tmp_path)
    assert done.returncode == 2 and "bad.metrics.json: [0].reducer: unknown reducer 'top'" in done.stderr
