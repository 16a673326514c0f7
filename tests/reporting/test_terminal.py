"""The rich terminal summary and detailed view."""

from __future__ import annotations

import io

from result_samples import failing_case, passing_case, usage_result
from rich.console import Console

from agentgauge.model import Criterion, EvalSetResult, EvalStatus
from agentgauge.reporting import build_view, print_summary


def _output(result: EvalSetResult, **kwargs: object) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=140, force_terminal=False, color_system=None)
    print_summary(result, console=console, **kwargs)  # type: ignore[arg-type]
    return buffer.getvalue()


def test_summary_counts_metrics_errors_and_duration(single_run: EvalSetResult) -> None:
    out = _output(single_run, duration=2.5)
    assert "Eval set calc  failed  (result calc_run_1)" in out
    assert "Cases: 1 passed, 1 failed, 1 error, 1 not evaluated, 4 total" in out
    assert "Metric                      Mean  Threshold  Status  Passed  Failed  Not eval." in out
    rows = {cells[0]: cells[1:] for cells in (line.split() for line in out.splitlines()) if len(cells) == 7}
    assert rows["tool_trajectory_avg_score"] == ["0.75", "1", "failed", "1", "1", "0"]
    assert rows["response_match_score"] == ["0.875", "0.8", "passed", "1", "1", "1"]
    # Every case that did not pass is named once, with its first reason.
    listed = out[out.index("  Did not pass (3):") :].splitlines()[1:4]
    assert listed == [
        "    multiply_pipe|<tag>: tool_trajectory_avg_score (invocation 2): score 0 < threshold 1: tool 0: arguments "
        "differ: b: 7 != 8",
        "    no_expected: not evaluated: no metric produced a score",
        # (a control character is shown escaped: see reporting/_escape.py)
        '    agent_crash: error: inference failed: ZeroDivisionError("division by zero") & <stop>\\x01',
    ]
    assert "Duration: 2.50 s" in out
    assert "Usage:" not in out  # nothing recorded, nothing shown
    assert "pass@" not in out
    assert "Expected:" not in out


def test_summary_shows_pass_at_k_for_several_runs(multi_run: EvalSetResult) -> None:
    out = _output(multi_run)
    assert "Cases: 1 passed, 1 failed, 0 error, 0 not evaluated, 2 total, 3 runs each" in out
    assert "pass@1: 0.6667   pass^1: 0.6667   (n=3, mean over 2 cases)" in out
    assert "pass@3: 1   pass^3: 0.5185   (n=3, mean over 2 cases)" in out


def test_detailed_view_shows_expected_and_actual(single_run: EvalSetResult) -> None:
    out = _output(single_run, detailed=True)
    assert "Case multiply_pipe|<tag>  failed" in out
    block = out[out.index("tool_trajectory_avg_score (invocation 2): score 0 < threshold 1") :]
    # One inline diff per invocation: the call and the answer written once, [-expected-]{+actual+}.
    assert block.splitlines()[1:8] == [
        "response_match_score (invocation 2): score 0.5 < threshold 0.8",
        '  User: "Multiply 6 by 7"',
        '  Tool calls: multiply({"a": 6, "b": [-7-]{+8+}})',
        '  Final response: "The answer is [-42-]{+48+}."',
        "  tool_trajectory_avg_score: tool 0: arguments differ: b: 7 != 8",
        "  response_match_score: judge: the number is wrong",
        "    rubric correct scored 0: 42 expected",
    ]
    assert "Expected:" not in out
    # A passing case lists its metrics but has no diff.
    passing = out[out.index("Case add_small") : out.index("Case multiply_pipe")]
    assert "overall       response_match_score         1        0.8          passed" in passing
    assert "Tool calls:" not in passing
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


def test_inline_diff_marks_only_what_the_failed_metric_compared() -> None:
    out = _output(usage_result(), detailed=True)
    block = out[out.index("tool_trajectory_avg_score (invocation 1)") :].splitlines()
    # The trajectory failed: the city is diffed. The response passed its "contains" check: shown, not diffed.
    assert block[2:4] == [
        '  Tool calls: get_weather({"city": "[-Paris-]{+Lyon+}"})',
        '  Final response: "Paris: sunny today, enjoy!"',
    ]


def test_usage_per_case_invocation_and_in_total() -> None:
    out = _output(usage_result(), detailed=True)
    assert (
        "Case weather  failed  1.50 s (model 0.75 s) · 150 tokens (120 in / 30 out) · 1 model call · cost 0.002" in out
    )
    assert "  Invocation 1: 2.00 s (model 1.00 s) · 60 tokens (50 in / 10 out) · 1 model call" in out
    assert "Case fine  passed\n" in out  # nothing recorded: nothing shown
    # The crash recorded tokens without a price: the total cost is a lower bound.
    total = "3.75 s (model 1.88 s) · 210 tokens (170 in / 40 out) · 2 model calls · cost ≥0.002"
    assert f"  Summed over invocations: {total}" in out


def test_repeated_runs_are_grouped_per_case(multi_run: EvalSetResult) -> None:
    out = _output(multi_run)
    assert "  Did not pass (1):" in out
    assert (
        "    multiply_pipe|<tag>  failed (1/3 runs passed; rule: mean of runs ≥ threshold); run 1: "
        "tool_trajectory_avg_score (invocation 2): score 0 < threshold 1: tool 0: arguments differ: b: 7 != 8"
    ) in out
    assert "add_small  passed" not in out


def test_a_failing_run_is_named_with_its_reason() -> None:
    runs = [passing_case(1), failing_case(2)]
    runs[1].eval_id = "add_small"
    summary_free = EvalSetResult(eval_set_id="s", eval_case_results=runs)
    out = _output(summary_free)
    assert (
        "    add_small  failed (1/2 runs passed; rule: mean of runs ≥ threshold); run 2: tool_trajectory_avg_score "
        "(invocation 2)"
    ) in out


def test_a_failed_contains_check_says_what_was_missing() -> None:
    case = failing_case()
    check = case.eval_metric_result_per_invocation[1].eval_metric_results[1]
    check.criterion = Criterion(final_response={"text": {"matchStrategy": "contains"}})
    out = _output(EvalSetResult(eval_set_id="s", eval_case_results=[case]), detailed=True)
    assert '  Final response: "The answer is 48." (must contain "[-The answer is 42.-]")' in out


def test_not_passing_list_is_capped_with_a_count_of_the_rest() -> None:
    from agentgauge.reporting._terminal import NOT_PASSING_SHOWN

    cases = []
    for index in range(NOT_PASSING_SHOWN + 5):
        case = failing_case()
        case.eval_id = f"case{index:04d}"
        cases.append(case)
    result = EvalSetResult(eval_set_result_id="big", eval_set_id="calc", eval_case_results=cases)
    out = _output(result)
    assert f"  Did not pass ({NOT_PASSING_SHOWN + 5}):" in out
    assert f"    case{NOT_PASSING_SHOWN - 1:04d}: " in out and f"case{NOT_PASSING_SHOWN:04d}" not in out
    assert "    ... and 5 more: all are in the saved result" in out
