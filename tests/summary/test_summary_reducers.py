"""Reducers in the multi-run summary: full results and compact rows agree, and the case status follows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.formats import load_metrics, save_metrics
from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalStatus
from agentgauge.summary import case_row, summarize_results, summarize_rows

P, F = EvalStatus.PASSED, EvalStatus.FAILED


def _runs(scores: list[float], reducer: str | None) -> list[EvalCaseResult]:
    return [
        EvalCaseResult(
            eval_set_id="set",
            eval_id="c",
            run_id=run_id,
            final_eval_status=P if score >= 1.0 else F,
            overall_eval_metric_results=[
                EvalMetricResult(
                    metric_name="m", score=score, eval_status=P if score >= 1.0 else F, threshold=1.0, reducer=reducer
                )
            ],
        )
        for run_id, score in enumerate(scores, start=1)
    ]


@pytest.mark.parametrize(
    ("reducer", "scores", "score", "status"),
    [
        (None, [1.0, 0.0, 1.0], 2 / 3, F),
        ("max", [1.0, 0.0, 0.0], 1.0, P),
        ("min", [1.0, 1.0, 0.5], 0.5, F),
        ("median", [1.0, 0.0, 1.0], 1.0, P),
        ("mode", [0.0, 1.0, 0.0], 0.0, F),
        ("at_least_2", [1.0, 0.0, 1.0], 1.0, P),
        ("at_least_2", [1.0, 0.0, 0.0], 0.0, F),
    ],
)
def test_case_score_and_status_follow_the_reducer(
    reducer: str | None, scores: list[float], score: float, status: EvalStatus
) -> None:
    runs = _runs(scores, reducer)
    case = summarize_results(runs, case_ids=["c"], num_runs=len(runs)).cases[0]
    assert case.metrics[0].average == pytest.approx(score)
    assert case.status is status and case.metrics[0].reducer == reducer
    rows = summarize_rows(map(case_row, runs), case_ids=["c"], num_runs=len(scores))
    assert rows.case_status["c"] is status  # the compact rows decide the same
    summary = next(rows.case_summaries())
    assert summary.metric_summaries[0].average_score == pytest.approx(score)
    # the row table keeps the reducer (a row read back equals the row added)
    assert [r.metrics[0].reducer for r in rows.table] == [reducer] * len(scores)


def test_metrics_file_reducer_key_loads_and_is_written_only_when_set(tmp_path: Path) -> None:
    path = tmp_path / "m.metrics.json"
    path.write_text('[{"metricName": "tool_trajectory_avg_score", "threshold": 1, "reducer": "at_least_2"}]')
    (metric,) = load_metrics(path)
    assert metric.reducer == "at_least_2"
    assert metric.model_dump(by_alias=True, exclude_none=True)["reducer"] == "at_least_2"
    path.write_text('[{"metricName": "tool_trajectory_avg_score", "threshold": 1}]')
    (plain,) = load_metrics(path)
    assert "reducer" not in plain.model_dump(by_alias=True, exclude_none=True)


@pytest.mark.parametrize("name", ["calculator/calculator.metrics.json", "calculator/adk_config.json"])
def test_metrics_files_without_reducers_are_written_back_unchanged(name: str, tmp_path: Path) -> None:
    # The native (trpc-agent-go) and ADK test_config.json dialects gain no "reducer" key when written back.
    source = Path(__file__).resolve().parents[2] / "examples" / name
    metrics = load_metrics(source)
    assert all(m.reducer is None for m in metrics)
    fmt = "adk" if name.endswith("adk_config.json") else "native"
    save_metrics(metrics, tmp_path / "out.json", fmt=fmt)
    assert "reducer" not in (tmp_path / "out.json").read_text()
    assert load_metrics(tmp_path / "out.json") == metrics


def test_a_reducer_is_written_back_in_the_native_format(tmp_path: Path) -> None:
    path = tmp_path / "m.metrics.json"
    path.write_text('[{"metricName": "tool_trajectory_avg_score", "threshold": 1, "reducer": "median"}]')
    save_metrics(load_metrics(path), tmp_path / "again.metrics.json")
    assert json.loads((tmp_path / "again.metrics.json").read_text())[0]["reducer"] == "median"
