"""The rich terminal summary and detailed view."""

from __future__ import annotations

import io

from result_samples import passing_case
from rich.console import Console

from agentgauge.model import EvalSetResult, EvalStatus
from agentgauge.reporting import build_view, print_summary


def _output(result: EvalSetResult, **kwargs: object) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=140, force_terminal=False, color_system=None)
    print_summary(result, console=console, **kwargs)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_summary_counts_metrics_errors_and_duration(single_run: EvalSetResult) -> None:
    out = _output(single_run, duration=2.5)
    assert "Eval set calc  failed  (result calc_run_1)" in out
    assert "Cases: 1 passed, 2 failed, 1 not evaluated, 4 total" in out
    assert "Metric                      Mean  Threshold  Status  Passed  Failed  Not eval." in out
    rows = {cells[0]: cells[1:] for cells in (line.split() for line in out.splitlines()) if len(cells) == 7}
    assert rows["tool_trajectory_avg_score"] == ["0.75", "1", "failed", "1", "1", "0"]
    assert rows["response_match_score"] == ["0.875", "0.8", "passed", "1", "1", "1"]
    assert "Errors (1):" in out
    assert 'agent_crash run 1: inference failed: ZeroDivisionError("division by zero")' in out
    assert "Duration: 2.50 s" in out
    assert "pass@" not in out
    assert "Expected:" not in out


def test_summary_shows_pass_at_k_for_several_runs(multi_run: EvalSetResult) -> None:
    out = _output(multi_run)
    assert "Cases: 1 passed, 1 failed, 0 not evaluated, 2 total, 3 runs each" in out
    assert "pass@1: 0.6667   pass^1: 0.6667   (n=3, mean over 2 cases)" in out
    assert "pass@3: 1   pass^3: 0.5185   (n=3, mean over 2 cases)" in out


def test_detailed_view_shows_expected_and_actual(single_run: EvalSetResult) -> None:
    out = _output(single_run, detailed=True)
    assert "Case multiply_pipe|<tag>  failed" in out
    block = out[out.index("tool_trajectory_avg_score (invocation 2): score 0 < threshold 1") :]
    assert block.splitlines()[1:11] == [
        "response_match_score (invocation 2): score 0.5 < threshold 0.8",
        '  User: "Multiply 6 by 7"',
        "  Expected:",
        '    tool calls: multiply({"a": 6, "b": 7})',
        '    final response: "The answer is 42."',
        "  Actual:",
        '    tool calls: multiply({"a": 6, "b": 8})',
        '    final response: "The answer is 48."',
        "  tool_trajectory_avg_score: tool 0: arguments differ: b: 7 != 8",
        "  response_match_score: judge: the number is wrong",
    ]
    # A passing case lists its metrics but has no Expected / Actual block.
    passing = out[out.index("Case add_small") : out.index("Case multiply_pipe")]
    assert "overall       response_match_score         1        0.8          passed" in passing
    assert "Expected:" not in passing
    assert "Error: inference failed" in out


def test_rich_markup_in_agent_output_is_printed_verbatim() -> None:
    case = passing_case()
    case.eval_id = "[bold]not markup[/bold]"
    case.final_eval_status = EvalStatus.FAILED
    case.error_message = "[red]boom[/red]"
    out = _output(EvalSetResult(eval_set_id="s", eval_case_results=[case]), detailed=True)
    assert "Case [bold]not markup[/bold]  failed" in out
    assert "Error: [red]boom[/red]" in out


def test_view_counts_statuses_from_case_results_without_summary() -> None:
    runs = [passing_case(1), passing_case(2)]
    runs[1].final_eval_status = EvalStatus.FAILED
    view = build_view(EvalSetResult(eval_set_id="s", eval_case_results=runs))
    assert view.num_runs == 2
    assert [(c.eval_id, c.status, c.runs, c.runs_passed) for c in view.cases] == [
        ("add_small", EvalStatus.FAILED, 2, 1)
    ]
    assert [(p.k, round(p.pass_at_k, 4), round(p.pass_hat_k, 4)) for p in view.pass_k] == [
        (1, 0.5, 0.5),
        (2, 1.0, 0.25),
    ]


def test_result_id_is_never_broken_across_lines(single_run: EvalSetResult) -> None:
    long_id = "calculator_traces_calculator_traces_5c46e718-205f-432a-9057-bb1228fa9b08"
    buffer = io.StringIO()
    console = Console(file=buffer, width=60, force_terminal=False, color_system=None)
    print_summary(single_run.model_copy(update={"eval_set_result_id": long_id}), console=console)
    assert f"(result {long_id})" in buffer.getvalue().splitlines()[0]
