"""How a case's runs combine: the request's reducer for every metric that names none, a metrics file's own
``reducer`` winning over it, recorded in the result; a bad one refused before anything runs (``eval --reducer`` end
to end: one ``error:`` line, exit 2, nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentgauge.errors import InputError
from agentgauge.launch import EvalRequest, MetricOptions, evaluate, prepare
from agentgauge.model import EvalSetResult

TRACES = Path(__file__).resolve().parents[2] / "examples" / "trace_mode"
SET = str(TRACES / "calculator_traces.evalset.json")


def _reducers(result: EvalSetResult) -> dict[str, set[str | None]]:
    found: dict[str, set[str | None]] = {}
    for case in result.eval_case_results:
        for metric in case.overall_eval_metric_results:
            found.setdefault(metric.metric_name, set()).add(metric.reducer)
    return found


async def test_the_requests_reducer_applies_to_every_metric_that_names_none(tmp_path: Path) -> None:
    request = EvalRequest(sets=(SET,), num_runs=2, metrics=MetricOptions(reducer="at_least_2"), output_dir=tmp_path)
    [outcome] = await evaluate(request)
    result = outcome.eval_set_result
    assert _reducers(result) == {
        "tool_trajectory_avg_score": {"at_least_2"},
        "final_response_avg_score": {"at_least_2"},
    }
    assert result.summary is not None
    summaries = {s.eval_id: s for s in result.summary.eval_case_summaries}
    # a case every run of which failed the trajectory: at_least_2 gives 0 and fails it
    wrong = {m.metric_name: m for m in summaries["multiply_wrong_operand"].metric_summaries}
    assert wrong["tool_trajectory_avg_score"].average_score == 0.0
    assert wrong["tool_trajectory_avg_score"].eval_status.value == "failed"


async def test_a_metrics_files_own_reducer_wins(tmp_path: Path) -> None:
    metrics = json.loads((TRACES / "calculator_traces.metrics.json").read_text())
    metrics[0]["reducer"] = "max"
    (tmp_path / "m.metrics.json").write_text(json.dumps(metrics))
    request = EvalRequest(
        sets=(SET,),
        config=tmp_path / "m.metrics.json",
        num_runs=2,
        metrics=MetricOptions(reducer="min"),
        output_dir=tmp_path / "out",
    )
    [outcome] = await evaluate(request)
    reducers = _reducers(outcome.eval_set_result)
    assert reducers[metrics[0]["metricName"]] == {"max"} and reducers[metrics[1]["metricName"]] == {"min"}


def test_an_unknown_reducer_in_a_metrics_file_names_the_file_and_json_path(tmp_path: Path) -> None:
    (tmp_path / "bad.metrics.json").write_text('[{"metricName": "tool_trajectory_avg_score", "reducer": "top"}]')
    with pytest.raises(InputError, match=r"bad.metrics.json: \[0\].reducer: unknown reducer 'top'"):
        prepare(EvalRequest(sets=(SET,), config=tmp_path / "bad.metrics.json", output_dir=tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_eval_refuses_an_unknown_reducer_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", SET, "--reducer", "avg"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 2 and done.stderr.startswith("error: --reducer: unknown reducer 'avg'"), done.stderr
    assert not (tmp_path / ".agentgauge").exists()  # nothing run or written
