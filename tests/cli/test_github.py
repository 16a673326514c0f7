"""GitHub Actions: job summary (capped under 1 MiB, pointing at the full report) and ``::error`` annotations."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.cli._github import (
    MAX_ANNOTATIONS,
    STEP_SUMMARY_LIMIT,
    annotation_lines,
    capped_summary,
    escape_data,
    escape_property,
    publish,
)
from agentgauge.model import EvalCaseResult, EvalSetResult, EvalStatus
from agentgauge.reporting import build_view

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "examples" / "trace_mode" / "calculator_traces.evalset.json"
sys.path.insert(0, str(ROOT / "tests" / "reporting"))
from result_samples import failing_case, multi_run_result  # noqa: E402


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A GitHub Actions environment whose step summary is a file in ``tmp_path``."""
    summary = tmp_path / "step_summary.md"
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_WORKSPACE", str(ROOT))
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/agents")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    return summary


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("set: a,b%\n") == "set%3A a%2Cb%25%0A"


def test_eval_annotates_failed_cases_and_appends_the_summary(github: Path, tmp_path: Path) -> None:
    github.write_text("earlier step output\n", encoding="utf-8")
    html = tmp_path / "r.html"
    junit = tmp_path / "r.xml"
    args = ["eval", str(TRACES), "--output-dir", str(tmp_path / "out"), "--junit", str(junit), "--html", str(html)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1  # unchanged: two cases failed
    errors = [line for line in result.output.splitlines() if line.startswith("::error ")]
    text = TRACES.read_text(encoding="utf-8").splitlines()
    file = "examples/trace_mode/calculator_traces.evalset.json"
    line = next(i for i, t in enumerate(text, 1) if '"evalId": "multiply_wrong_operand"' in t)
    assert errors[0] == (
        f"::error file={file},line={line},title=calculator_traces%3A case multiply_wrong_operand failed::"
        "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1: tool trajectory mismatch: expected tool id "
        "multiply_wrong_operand-1-calc with name calculator mismatch: closest actual call id "
        "multiply_wrong_operand-1-calc with name calculator: arguments mismatch: actual 8 != expected 7 at $.b "
        "(tolerance 1e-06)"
    )
    assert errors[1].startswith(f"::error file={file},line=")
    assert errors[1].endswith("::error: missing turn 2: expected user message 'Now multiply that by 4' has no "
                              "recorded turn (the recording has 1 turn(s), the expected conversation 2)")  # fmt: skip
    assert len(errors) == 2
    summary = github.read_text(encoding="utf-8")
    assert summary.startswith("earlier step output\n## agentgauge: `calculator_traces` ❌ failed")
    assert "| `multiply_wrong_operand` | ❌ failed |" in summary
    # The HTML report is the full one, though the JUnit file was written first.
    assert f"Full report: `{html}` · [workflow run](https://github.com/acme/agents/actions/runs/42)" in summary


def test_nothing_is_published_outside_github_actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "s.md"
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = CliRunner().invoke(app, ["eval", str(TRACES), "--output-dir", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "::error" not in result.output and not summary.exists()


def test_passing_run_publishes_a_summary_without_annotations(github: Path, tmp_path: Path) -> None:
    args = ["eval", f"{TRACES}:add_recorded", "--output-dir", str(tmp_path / "out")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0
    assert "::error" not in result.output
    summary = github.read_text(encoding="utf-8")
    assert "✅ passed" in summary and "Full report: `" in summary  # the saved result is the full report


def test_show_annotates_at_the_case_in_the_result_file(github: Path, tmp_path: Path) -> None:
    path = tmp_path / "r.evalset_result.json"
    path.write_text(EvalSetResult(eval_set_id="s", eval_case_results=[failing_case()]).model_dump_json(indent=2))
    result = CliRunner().invoke(app, ["show", str(path)])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("::error ")]
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if '"evalId": "multiply_pipe|<tag>"' in t)
    assert len(errors) == 1 and f"file={escape_property(str(path))},line={line}," in errors[0]
    assert "title=s%3A case multiply_pipe|<tag> failed::" in errors[0]
    assert "## agentgauge: `s` ❌ failed" in github.read_text(encoding="utf-8")


def test_summary_stays_under_the_limit_and_points_to_the_full_report(github: Path) -> None:
    cases = []
    for i in range(3000):
        case = failing_case()
        case.eval_id = f"case_{i:04d}"
        case.eval_metric_result_per_invocation[1].eval_metric_results[0].details.reason = "x" * 600  # type: ignore[union-attr]
        cases.append(case)
    result = EvalSetResult(eval_set_id="big", eval_set_result_id="big_1", eval_case_results=cases)
    out = io.StringIO()
    publish(build_view(result), cases, Console(file=out), sources=[], full_report="reports/big.html")
    data = github.read_bytes()
    assert len(data) < STEP_SUMMARY_LIMIT
    text = data.decode("utf-8")
    assert "**Truncated:**" in text and "did not fit GitHub's 1 MiB step summary limit" in text
    assert text.rstrip().endswith(
        "Full report: `reports/big.html` · [workflow run](https://github.com/acme/agents/actions/runs/42) (artifacts)"
    )
    errors = out.getvalue().splitlines()
    assert len(errors) == MAX_ANNOTATIONS + 1
    assert errors[-1] == "::warning title=agentgauge::2950 more case(s) of big did not pass"


def test_capped_summary_keeps_whole_blocks_and_the_tail() -> None:
    head, tail = "# head\n| a |\n", "tail\n"
    blocks = ["block one\n", "", "block two is longer\n", "three\n"]
    assert capped_summary(head, blocks, tail, 10_000) == head + "block one\nblock two is longer\nthree\n" + tail
    cut = capped_summary(head, blocks, tail, 240)
    assert cut.startswith(head + "block one\n") and "block two" not in cut and "three" not in cut
    assert "**Truncated:** 2 case blocks did not fit" in cut and cut.endswith(tail)
    assert len(cut.encode()) <= 240 + 200  # the note's reserve


def test_annotations_escape_ids_and_reasons_and_group_runs() -> None:
    case = failing_case()
    case.eval_id = "a:b,c"
    case.error_message = "line one\nline two 100%"
    view = build_view(EvalSetResult(eval_set_id="s", eval_case_results=[case]))
    (line,) = annotation_lines(view, [])
    assert line == "::error title=s%3A case a%3Ab%2Cc failed::error: line one line two 100%25"
    (multi,) = annotation_lines(build_view(multi_run_result()), [])
    assert (
        "title=calc%3A case multiply_pipe|<tag> failed (1/3 runs passed; rule%3A mean of runs ≥ threshold)::run 1: "
        in multi
    )


def test_not_evaluated_cases_are_annotated_too() -> None:
    case = EvalCaseResult(eval_set_id="s", eval_id="n", final_eval_status=EvalStatus.NOT_EVALUATED)
    (line,) = annotation_lines(build_view(EvalSetResult(eval_set_id="s", eval_case_results=[case])), [])
    assert line == "::error title=s%3A case n not evaluated::not evaluated: no metric produced a score"


def test_trace_run_warns_of_the_cases_without_a_trace(github: Path, tmp_path: Path) -> None:
    examples = ROOT / "examples" / "traces"
    args = ["eval", "--traces", str(examples / "adk_weather.otlp.jsonl"), "--eval-set"]
    result = CliRunner().invoke(app, [*args, str(examples / "weather.evalset.json"), "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output  # not a failure: --require-all-cases makes it one
    assert (
        "::warning title=weather%3A cases not run::1 case of the eval set not run: no trace (weather_oslo_lisbon)"
        in (result.output)
    )
    assert "*1 case of the eval set not run: no trace (weather_oslo_lisbon).*" in github.read_text(encoding="utf-8")
