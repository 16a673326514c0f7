"""compare_results: case changes, metric deltas, pass@k, significance; the exact tests against known values."""

from __future__ import annotations

import math

import pytest

from agentgauge.compare import ChangeKind, compare_results, fisher_exact, mcnemar_exact, render_html, render_markdown
from agentgauge.compare._significance import min_runs_for_significance
from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalMetricResultDetails, EvalSetResult, EvalStatus


def _run(
    eval_id: str, passed: bool, run_id: int = 1, score: float | None = None, error: str | None = None
) -> EvalCaseResult:
    status = EvalStatus.PASSED if passed else EvalStatus.FAILED
    metric = EvalMetricResult(
        metric_name="final_response_avg_score",
        score=(1.0 if passed else 0.0) if score is None else score,
        threshold=1.0,
        eval_status=status,
        details=None if passed else EvalMetricResultDetails(reason="expected 42, got 13"),
    )
    return EvalCaseResult(
        eval_set_id="calc",
        eval_id=eval_id,
        run_id=run_id,
        final_eval_status=status,
        error_message=error,
        overall_eval_metric_results=[] if error else [metric],
    )


def _result(*runs: EvalCaseResult, set_id: str = "calc", interrupted: bool = False) -> EvalSetResult:
    return EvalSetResult(
        eval_set_result_id="r", eval_set_id=set_id, eval_case_results=list(runs), interrupted=interrupted
    )


def test_every_kind_of_change_and_the_regression_flag() -> None:
    base = _result(_run("a", True), _run("b", False), _run("c", True), _run("d", False), _run("gone", True))
    new = _result(_run("a", True), _run("b", True), _run("c", False), _run("d", False), _run("added", False))
    comparison = compare_results(base, new)
    kinds = {c.eval_id: c.change for c in comparison.cases}
    assert kinds == {
        "a": ChangeKind.STILL_PASSING,
        "b": ChangeKind.FIXED,
        "c": ChangeKind.BROKEN,
        "d": ChangeKind.STILL_FAILING,
        "gone": ChangeKind.REMOVED,
        "added": ChangeKind.NEW,
    }
    assert [c.eval_id for c in comparison.cases] == ["a", "b", "c", "d", "gone", "added"]
    assert comparison.regressed
    broken = next(c for c in comparison.cases if c.eval_id == "c")
    assert broken.reason == "final_response_avg_score: score 0 < threshold 1: expected 42, got 13"  # as every report
    assert broken.base_status is EvalStatus.PASSED and broken.new_status is EvalStatus.FAILED
    removed = next(c for c in comparison.cases if c.eval_id == "gone")
    assert removed.new_status is None and removed.reason is None
    # Metric means over the 4 cases on both sides only: base 2/4, new 2/4.
    (metric,) = comparison.metrics
    assert (metric.base_mean, metric.new_mean, metric.delta) == (0.5, 0.5, 0.0)
    assert comparison.significance is not None and comparison.significance.test == "mcnemar_exact"
    assert comparison.significance.p_value == 1.0  # one fixed, one broken


def test_no_regression_when_only_fixes_and_errors_are_reasons() -> None:
    base = _result(_run("a", False, error="agent failed on invocation 1 of 1: boom\nmore"), _run("b", True))
    new = _result(_run("a", True), _run("b", True))
    comparison = compare_results(base, new)
    assert not comparison.regressed
    assert comparison.count(ChangeKind.FIXED) == 1
    back = compare_results(new, base)
    assert back.regressed
    assert back.cases[0].reason == "error: agent failed on invocation 1 of 1: boom more"
    assert any("ran once" in note for note in comparison.notes)


def test_runs_pass_at_k_and_fisher_per_case() -> None:
    base = _result(
        *[_run("a", True, run_id=i) for i in range(1, 6)], *[_run("b", i <= 2, run_id=i) for i in range(1, 6)]
    )
    new = _result(
        *[_run("a", False, run_id=i) for i in range(1, 6)], *[_run("b", i <= 2, run_id=i) for i in range(1, 6)]
    )
    comparison = compare_results(base, new)
    a, b = comparison.cases
    assert (a.base_passed_runs, a.base_runs, a.new_passed_runs, a.new_runs) == (5, 5, 0, 5)
    assert a.change is ChangeKind.BROKEN
    assert a.significance is not None and a.significance.significant
    assert math.isclose(a.significance.p_value, 2 / 252)  # 2 / C(10, 5)
    assert "5/5 runs passed before, 0/5 now" in a.significance.note
    assert b.significance is not None and not b.significance.significant and b.significance.p_value == pytest.approx(1)
    assert [p.k for p in comparison.pass_at_k] == [1, 5]
    k1, k5 = comparison.pass_at_k
    assert k1.base_pass_at_k == pytest.approx((1 + 0.4) / 2) and k1.new_pass_at_k == pytest.approx(0.2)
    assert k5.base_pass_at_k == pytest.approx(1.0) and k5.new_pass_at_k == pytest.approx(0.5)
    assert k5.base_pass_hat_k == pytest.approx((1 + 0.4**5) / 2)
    assert not any("ran once" in note for note in comparison.notes)


def test_notes_for_other_eval_set_interrupted_and_nothing_in_common() -> None:
    comparison = compare_results(_result(_run("a", True)), _result(_run("z", True), set_id="other", interrupted=True))
    assert comparison.significance is None and comparison.pass_at_k == [] and comparison.metrics == []
    assert any("different eval sets" in n for n in comparison.notes)
    assert any("new run was interrupted" in n for n in comparison.notes)
    assert any("no case is in both results" in n for n in comparison.notes)
    assert not comparison.regressed


def test_json_round_trip_and_reports_escape_values() -> None:
    base = _result(_run("<b>x</b>", True))
    new = _result(_run("<b>x</b>", False))
    comparison = compare_results(base, new, base_source="a|b.json", new_source="new.json")
    again = type(comparison).model_validate_json(comparison.model_dump_json())
    assert again == comparison
    assert '"evalId": "<b>x</b>"' in comparison.model_dump_json(indent=1).replace('"evalId":"', '"evalId": "')
    page = render_html(comparison)
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page and "<script" not in page
    assert 'class="broken"' in page and "REGRESSED: 1 broken" in page
    markdown = render_markdown(comparison)
    assert "`a\\|b.json`" in markdown and "| <b>x</b> | broken | passed | failed | 1/1 → 0/1 |" in markdown


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ((10, 10, 5, 10), 0.032507739938080496),  # R: fisher.test(matrix(c(10, 0, 5, 5), 2))
        ((7, 12, 2, 10), 0.09907120743034056),
        ((3, 5, 3, 5), 1.0),
        ((4, 4, 0, 4), 2 / 70),
    ],
)
def test_fisher_exact_known_values(table: tuple[int, int, int, int], expected: float) -> None:
    assert fisher_exact(*table) == pytest.approx(expected)
    a, n, b, m = table
    assert fisher_exact(b, m, a, n) == pytest.approx(expected)  # symmetric


def test_mcnemar_and_limits() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(0, 2) == 0.5
    assert mcnemar_exact(1, 9) == pytest.approx(2 * (1 + 10) / 1024)
    assert mcnemar_exact(0, 6) == pytest.approx(2 / 64)
    assert min_runs_for_significance() == 4
    with pytest.raises(ValueError, match="runs > 0"):
        fisher_exact(1, 0, 0, 1)
    with pytest.raises(ValueError, match=">= 0"):
        mcnemar_exact(-1, 0)


def test_significance_lines_only_for_cases_whose_pass_rate_moved() -> None:
    base = _result(*[_run("a", True, run_id=i) for i in range(1, 5)], *[_run("b", True, run_id=i) for i in range(1, 5)])
    new = _result(*[_run("a", False, run_id=i) for i in range(1, 5)], *[_run("b", True, run_id=i) for i in range(1, 5)])
    comparison = compare_results(base, new)
    same = comparison.cases[1].significance
    assert same is not None and same.note == "4/4 runs passed before, 4/4 now; the same pass rate"
    markdown = render_markdown(comparison)
    assert "a (Fisher exact test, runs): p = 0.0286, 4/4 runs passed before, 0/4 now; significant at 0.05" in markdown
    assert "b (Fisher exact test" not in markdown
