"""Bootstrap intervals and flaky cases in every report of a result with several runs."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalSetResultSummary, EvalStatus
from agentgauge.reporting import build_view, print_summary, render
from agentgauge.reporting._intervals import view_intervals
from agentgauge.stats import BootstrapSettings, use_bootstrap


def _result() -> EvalSetResult:
    runs = {"steady": [1.0] * 3, "flaky": [1.0, 0.0, 1.0], "broken": [0.0] * 3, "half": [0.5] * 3}
    cases = []
    for eval_id, scores in runs.items():
        for run_id, score in enumerate(scores, start=1):
            status = EvalStatus.PASSED if score >= 1 else EvalStatus.FAILED
            metric = EvalMetricResult(metric_name="m", score=score, eval_status=status, threshold=1.0)
            cases.append(
                EvalCaseResult(eval_id=eval_id, run_id=run_id, final_eval_status=status,
                               overall_eval_metric_results=[metric])
            )  # fmt: skip
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=cases)


def test_intervals_flaky_cases_and_settings() -> None:
    result = _result()
    view = build_view(result)
    found = view_intervals(view)
    assert found.pass_rate == 5 / 12 and found.cases == 4 and found.resamples == 10_000
    assert found.pass_rate_interval is not None
    assert found.pass_rate_interval.low <= 5 / 12 <= found.pass_rate_interval.high
    mean, interval = found.metrics["m"]
    assert mean == (3 + 2 + 0 + 1.5) / 12 and interval is not None and interval.low < mean < interval.high
    assert view_intervals(view) is found  # computed once per view and settings
    assert [c.eval_id for c in view.flaky] == ["flaky"]
    with use_bootstrap(BootstrapSettings(resamples=0)):
        assert not view_intervals(view).shown


def test_every_report_shows_them() -> None:
    result = _result()
    out = io.StringIO()
    print_summary(result, console=Console(file=out, width=120))
    text = out.getvalue()
    assert "95% intervals (bootstrap over 4 cases, 10000 resamples, seed 0):" in text
    assert "pass rate (runs)  0.42 [" in text and "Flaky (1: runs disagree):" in text
    assert "flaky  failed (2/3 runs passed; rule: mean of runs ≥ threshold)" in text
    markdown = render(result, "markdown")
    assert "| pass rate (runs) | 0.42 [" in markdown and "### Flaky cases (runs disagree)" in markdown
    assert "| `flaky` | 2/3 | 0.67 | failed (2/3 runs passed; rule: mean of runs ≥ threshold) |" in markdown
    junit = render(result, "junit")
    assert junit.count('<property name="flaky" value="true" />') == 1  # the flaky case's one testcase
    assert '<property name="runs_passed" value="2" />' in junit
    per_run = render(result, "junit", junit_runs=True)
    assert per_run.count('<property name="flaky" value="true" />') == 3  # each run of the flaky case
    assert '<property name="runs_passed" value="2/3" />' in per_run
    html = render(result, "html")
    assert "<h2>Intervals</h2>" in html and "<h2>Flaky cases</h2>" in html
    result.summary = EvalSetResultSummary(num_runs=3)
    statistics = json.loads(render(result, "json"))["summary"]["statistics"]
    assert statistics["resamples"] == 10_000 and statistics["resamplingUnit"] == "case"
    assert statistics["passRate"]["value"] == 5 / 12 and statistics["passRate"]["low"] <= 5 / 12
    assert statistics["flakyCases"] == [
        {
            "evalId": "flaky",
            "runs": 3,
            "passedRuns": 2,
            "passRate": 2 / 3,
            "status": "failed",
            "statusText": "failed (2/3 runs passed; rule: mean of runs ≥ threshold)",
        }
    ]


def test_reports_of_one_result_share_one_resampling(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentgauge.reporting._intervals as intervals

    calls: list[int] = []
    compute = intervals._compute
    monkeypatch.setattr(intervals, "_compute", lambda view, settings: calls.append(1) or compute(view, settings))
    result = _result()
    for fmt in ("markdown", "html", "junit"):
        render(result, fmt)  # type: ignore[arg-type]
    print_summary(result, console=Console(file=io.StringIO()))
    assert len(calls) == 1
    with use_bootstrap(BootstrapSettings(resamples=500, seed=1)):
        render(result, "markdown")
    assert len(calls) == 2  # other settings: resampled again


def test_no_interval_beyond_the_case_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentgauge.reporting._intervals as intervals

    monkeypatch.setattr(intervals, "MAX_CASES", 3)
    found = view_intervals(build_view(_result()))  # four cases
    assert not found.shown and found.pass_rate == 5 / 12 and found.metrics["m"][1] is None
