"""``eval --only-metrics / --skip-metrics / --no-judges`` and ``AgentEvaluator(metric_selection=...)``: the
deterministic part of a metrics file runs without a judge key (before: exit 2, "no API key for judge provider")."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer
from judged_sets import JUDGE, TRAJECTORY, judge_metric, trace_case, valid_verdict, write_set
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import InputError
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.service import MetricSelection
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


@pytest.fixture
def keyless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A trace set whose judge metric (OpenAI's hosted API) has no key anywhere: the judge cannot run."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    cases = [trace_case("ok", "weather in Paris?"), trace_case("bad", "time?", tool="clock", actual_tool="calendar")]
    cases[0]["rubrics"] = [{"id": "polite", "metricName": JUDGE, "content": {"text": "be polite"}}]
    metrics = [{"metricName": TRAJECTORY, "threshold": 1.0}, judge_metric(None, api_key=None)]
    return write_set(tmp_path, cases, metrics)


def _eval(evalset: Path, *options: str) -> Any:
    out = evalset.parent / "out"
    return CliRunner().invoke(app, ["eval", str(evalset), "--output-dir", str(out), "--json", *options])


def _scored(done: Any) -> dict[str, list[tuple[str, str]]]:
    result = json.loads(done.stdout)
    return {
        c["evalId"]: [(m["metricName"], m["evalStatus"]) for m in c["overallEvalMetricResults"]]
        for c in result["evalCaseResults"]
    }


def test_without_a_selection_the_missing_key_stops_the_run(keyless: Path) -> None:
    done = _eval(keyless)
    assert done.exit_code == 2
    assert "no API key for judge provider" in done.stderr


@pytest.mark.parametrize(
    "options",
    [
        ("--no-judges",),
        ("--only-metrics", TRAJECTORY),
        ("--skip-metrics", JUDGE),
        ("--only-metrics", f" {TRAJECTORY},"),
    ],
)
def test_the_deterministic_metrics_run_without_a_judge_key(keyless: Path, options: tuple[str, ...]) -> None:
    done = _eval(keyless, *options)
    assert done.exit_code == 1, done.output  # "bad" called the wrong tool
    # The case rubric of the skipped judge metric is ignored, not an error of its case.
    assert _scored(done) == {"ok": [(TRAJECTORY, "passed")], "bad": [(TRAJECTORY, "failed")]}
    assert f"metrics from {keyless.parent / 'basic.metrics.json'} (skipped: {JUDGE})" in done.stderr


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ("--only-metrics", "tool_trajectory_avg_scor"),
            "--only-metrics: unknown metric 'tool_trajectory_avg_scor' "
            f"(did you mean '{TRAJECTORY}'?); the metrics are: {TRAJECTORY}, {JUDGE}",
        ),
        (
            ("--skip-metrics", "llm_final_respons,rouge"),
            f"--skip-metrics: unknown metric 'llm_final_respons' (did you mean '{JUDGE}'?); "
            f"--skip-metrics: unknown metric 'rouge'; the metrics are: {TRAJECTORY}, {JUDGE}",
        ),
        (
            ("--only-metrics", JUDGE, "--no-judges"),
            f"--only-metrics / --no-judges leave no metric to run; the metrics are: {TRAJECTORY}, {JUDGE}",
        ),
        (
            ("--skip-metrics", f"{TRAJECTORY},{JUDGE}"),
            f"--skip-metrics leave no metric to run; the metrics are: {TRAJECTORY}, {JUDGE}",
        ),
    ],
)
def test_unknown_names_and_empty_selections_exit_2(keyless: Path, options: tuple[str, ...], message: str) -> None:
    done = _eval(keyless, *options)
    assert done.exit_code == 2
    assert done.stderr.strip() == f"error: {keyless.parent / 'basic.metrics.json'}: {message}"
    assert not (keyless.parent / "out").exists()  # refused before anything ran


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--only-metrics", ","), "--only-metrics needs at least one metric name"),
        (("--judge-parallelism", "0"), "--judge-parallelism must be at least 1, got 0"),
    ],
)
def test_empty_lists_and_bad_parallelism_exit_2(keyless: Path, options: tuple[str, ...], message: str) -> None:
    done = _eval(keyless, *options)
    assert done.exit_code == 2
    assert message in done.stderr


def test_skipping_a_deterministic_metric_still_runs_the_judge(tmp_path: Path, chat_server: ChatServer) -> None:
    chat_server.responder = lambda body: valid_verdict()
    evalset = write_set(
        tmp_path,
        [trace_case("ok", "weather in Paris?")],
        [{"metricName": TRAJECTORY, "threshold": 1.0}, judge_metric(chat_server.base_url)],
    )
    done = _eval(evalset, "--skip-metrics", TRAJECTORY, "--no-cache")
    assert done.exit_code == 0, done.output
    assert _scored(done) == {"ok": [(JUDGE, "passed")]}
    assert len(chat_server.requests) == 1


def _api_run(evalset: Path, selection: MetricSelection) -> Any:
    eval_set = load_eval_set(evalset)
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", eval_set)
    metrics.put_all("app", eval_set.eval_set_id, load_metrics(evalset.parent / "basic.metrics.json"))
    evaluator = AgentEvaluator(
        "app",
        eval_set_manager=sets,
        metric_manager=metrics,
        result_manager=InMemoryEvalResultManager(),
        metric_selection=selection,
    )
    return asyncio.run(evaluator.evaluate(eval_set.eval_set_id))


def test_the_python_api_takes_the_same_selection(keyless: Path) -> None:
    outcome = _api_run(keyless, MetricSelection(judges=False))
    scored = {
        c.eval_id: [m.metric_name for m in c.overall_eval_metric_results]
        for c in outcome.eval_set_result.eval_case_results
    }
    assert scored == {"ok": [TRAJECTORY], "bad": [TRAJECTORY]}
    assert _api_run(keyless, MetricSelection(only=[TRAJECTORY])).overall_status.value == "failed"
    with pytest.raises(InputError, match=r"only: unknown metric 'tool_trajectory' \(did you mean"):
        _api_run(keyless, MetricSelection(only="tool_trajectory"))
    with pytest.raises(InputError, match="skip leave no metric to run"):
        _api_run(keyless, MetricSelection(skip=[TRAJECTORY, JUDGE]))


def test_a_selection_of_everything_changes_nothing() -> None:
    assert MetricSelection().selects_all
    assert MetricSelection(only=" a, b ,a").only == ("a", "b")
    assert not MetricSelection(judges=False).selects_all


def test_recorded_traces_take_the_same_options(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples" / "traces"
    done = CliRunner().invoke(
        app,
        [
            *("eval", "--traces", str(examples), "--eval-set", str(examples / "weather.evalset.json")),
            *("--output-dir", str(tmp_path / "out"), "--json", "--only-metrics", "response_match_score"),
        ],
    )
    assert done.exit_code == 0, done.output
    assert {
        m["metricName"] for c in json.loads(done.stdout)["evalCaseResults"] for m in c["overallEvalMetricResults"]
    } == {"response_match_score"}
    assert "(skipped: tool_trajectory_avg_score, " in done.stderr
