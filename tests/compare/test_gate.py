"""The gate of a comparison: the noise rule (a flip the exact test cannot tell from chance is ``within_noise``, never
broken), each ``--fail-on`` rule on the same comparisons, a rule of one's own, and the verdict in every rendering."""

from __future__ import annotations

import pytest

from agentgauge.compare import (
    ChangeKind,
    Comparison,
    FailOn,
    GateRule,
    check_alpha,
    compare_results,
    fail_on_rule,
    judge_gate,
    render_html,
    render_markdown,
)
from agentgauge.errors import InputError
from agentgauge.model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus


def _runs(eval_id: str, passed: int, runs: int, *, threshold: float = 1.0) -> list[EvalCaseResult]:
    """``runs`` runs of a case, the first ``passed`` of them passing (score 1, else 0; case status by the mean)."""
    out = []
    for run in range(runs):
        ok = run < passed
        metric = EvalMetricResult(
            metric_name="m",
            score=1.0 if ok else 0.0,
            threshold=threshold,
            eval_status=EvalStatus.PASSED if ok or threshold <= 0 else EvalStatus.FAILED,
        )
        status = EvalStatus.PASSED if ok else EvalStatus.FAILED
        out.append(
            EvalCaseResult(
                eval_set_id="s",
                eval_id=eval_id,
                run_id=run + 1,
                final_eval_status=status,
                overall_eval_metric_results=[metric],
            )
        )
    return out


def _result(cases: dict[str, tuple[int, int]], *, threshold: float = 1.0) -> EvalSetResult:
    runs = [r for eval_id, (p, n) in cases.items() for r in _runs(eval_id, p, n, threshold=threshold)]
    return EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=runs)


def _compare(
    base: dict[str, tuple[int, int]],
    new: dict[str, tuple[int, int]],
    *,
    threshold: float = 1.0,
    alpha: float = 0.05,
    fail_on: FailOn | GateRule | str | None = FailOn.BROKEN,
) -> Comparison:
    before, after = _result(base, threshold=threshold), _result(new, threshold=threshold)
    return compare_results(before, after, resamples=0, alpha=alpha, fail_on=fail_on)


@pytest.mark.parametrize(
    ("base", "new", "kind"),
    [
        ((5, 5), (3, 5), ChangeKind.WITHIN_NOISE),  # p = 0.44: a flaky case, not a regression
        ((5, 5), (4, 5), ChangeKind.WITHIN_NOISE),  # p = 1
        ((5, 5), (2, 5), ChangeKind.WITHIN_NOISE),  # p = 0.17
        ((5, 5), (1, 5), ChangeKind.BROKEN),  # p = 0.048
        ((5, 5), (0, 5), ChangeKind.BROKEN),  # p = 0.0079: a real regression
        ((3, 5), (5, 5), ChangeKind.WITHIN_NOISE),  # a fix within noise is not a fix either
        ((0, 5), (5, 5), ChangeKind.FIXED),
        ((2, 2), (0, 2), ChangeKind.WITHIN_NOISE),  # two runs can never be significant at 0.05
        ((1, 1), (0, 1), ChangeKind.BROKEN),  # one run: no test, today's rule
        ((1, 1), (0, 5), ChangeKind.BROKEN),  # one run on a side: no test either
        ((5, 5), (5, 5), ChangeKind.STILL_PASSING),
        ((4, 5), (0, 5), ChangeKind.STILL_FAILING),
    ],
)
def test_the_noise_rule(base: tuple[int, int], new: tuple[int, int], kind: ChangeKind) -> None:
    comparison = _compare({"a": base}, {"a": new})
    assert comparison.cases[0].change is kind
    assert comparison.regressed is (kind is ChangeKind.BROKEN)
    assert comparison.gate is not None and comparison.gate.failed is (kind is ChangeKind.BROKEN)


def test_a_stricter_alpha_turns_a_drop_into_noise() -> None:
    assert _compare({"a": (5, 5)}, {"a": (1, 5)}).cases[0].change is ChangeKind.BROKEN
    strict = _compare({"a": (5, 5)}, {"a": (1, 5)}, alpha=0.01)
    assert strict.cases[0].change is ChangeKind.WITHIN_NOISE and not strict.regressed
    assert strict.gate is not None and strict.gate.alpha == 0.01 and "p < 0.01" in strict.gate.rule
    assert strict.cases[0].significance is not None and "not significant at 0.01" in strict.cases[0].significance.note


# base and new per case; the verdict of each rule (True: fails).
_TABLE = {
    "noise": ({"a": (5, 5), "b": (3, 5)}, {"a": (3, 5), "b": (5, 5)}, {"broken": 0, "significant": 0, "any": 1}),
    "regression": ({"a": (5, 5)}, {"a": (0, 5)}, {"broken": 1, "significant": 1, "any": 1}),
    # Seven cases each dropping within noise: no case broke, but the cases as a whole got worse (McNemar p = 0.016).
    "broad decline": (
        {f"c{i}": (5, 5) for i in range(7)},
        {f"c{i}": (3, 5) for i in range(7)},
        {"broken": 0, "significant": 1, "any": 1},
    ),
    # A case failing on both sides whose pass rate collapsed: no status flip, a significant drop.
    "still failing, dropped": ({"a": (4, 5)}, {"a": (0, 5)}, {"broken": 0, "significant": 1, "any": 1}),
    # One run: a flip is broken, but one flip is no evidence.
    "single run": ({"a": (1, 1), "b": (1, 1)}, {"a": (0, 1), "b": (1, 1)}, {"broken": 1, "significant": 0, "any": 1}),
    "same": ({"a": (5, 5), "b": (4, 5)}, {"a": (5, 5), "b": (4, 5)}, {"broken": 0, "significant": 0, "any": 0}),
    # Cases added or removed change the set; only any-change fails on them.
    "added": ({"a": (1, 1)}, {"a": (1, 1), "b": (0, 1)}, {"broken": 0, "significant": 0, "any": 1}),
}


@pytest.mark.parametrize("name", list(_TABLE))
@pytest.mark.parametrize("rule", ["broken", "significant", "any-change", "never"])
def test_each_rule_on_each_comparison(name: str, rule: str) -> None:
    base, new, verdicts = _TABLE[name]
    comparison = _compare(base, new, fail_on=rule)
    expected = {**verdicts, "any-change": verdicts["any"], "never": 0}[rule]
    assert comparison.gate is not None
    assert comparison.gate.fail_on == rule
    assert comparison.gate.failed is bool(expected), comparison.gate
    assert bool(comparison.gate.findings) is bool(expected)


def test_findings_say_what_failed() -> None:
    regression = _compare({"a": (5, 5)}, {"a": (0, 5)})
    assert regression.gate is not None
    assert regression.gate.findings == ["a: passed -> failed, 5/5 -> 0/5 runs passed (Fisher's exact test p = 0.00794)"]
    decline = _compare({f"c{i}": (5, 5) for i in range(7)}, {f"c{i}": (3, 5) for i in range(7)}, fail_on="significant")
    assert decline.gate is not None
    assert decline.gate.findings == ["cases: 7 stopped passing against 0 started (exact McNemar test p = 0.0156)"]
    assert decline.gate.within_noise == [f"c{i}" for i in range(7)]
    assert decline.significance is not None and "7 to not passed (within noise included)" in decline.significance.note
    # A still-passing case whose runs moved is a change (threshold 0.5: 4/5 runs still pass on the mean).
    moved = _compare({"a": (5, 5)}, {"a": (4, 5)}, threshold=0.5, fail_on=FailOn.ANY_CHANGE)
    assert moved.cases[0].change is ChangeKind.STILL_PASSING
    assert moved.gate is not None and moved.gate.findings == ["a: still passing, 5/5 -> 4/5 runs passed"]


def test_a_rule_of_ones_own_and_judging_again() -> None:
    class MoreThanOneNoisy:
        name = "noisy"

        def describe(self, alpha: float) -> str:
            return "fails when more than one case is within noise"

        def findings(self, comparison: Comparison) -> list[str]:
            noisy = [c.eval_id for c in comparison.cases if c.change is ChangeKind.WITHIN_NOISE]
            return [f"{len(noisy)} cases within noise"] if len(noisy) > 1 else []

    comparison = _compare({"a": (5, 5), "b": (3, 5)}, {"a": (3, 5), "b": (5, 5)}, fail_on=MoreThanOneNoisy())
    assert comparison.gate is not None and comparison.gate.failed and comparison.gate.fail_on == "noisy"
    assert comparison.gate.findings == ["2 cases within noise"]
    again = judge_gate(comparison, "never")
    assert not again.failed and again.within_noise == ["a", "b"]
    assert _compare({"a": (1, 1)}, {"a": (0, 1)}, fail_on=None).gate is None  # not judged


def test_bad_rule_and_alpha_name_where_they_came_from() -> None:
    with pytest.raises(
        InputError, match=r"^--fail-on: unknown rule 'brokn'; choose broken, significant, any-change, never$"
    ):
        fail_on_rule("brokn")
    with pytest.raises(InputError, match=r"^query parameter 'failOn': unknown rule"):
        fail_on_rule("x", given_as="query parameter 'failOn'")
    for bad in (0.0, 1.0, -0.1, 2.0, float("nan")):
        with pytest.raises(InputError, match="--alpha must be between 0 and 1"):
            check_alpha(bad)
    with pytest.raises(InputError, match="--alpha"):
        compare_results(_result({"a": (1, 1)}), _result({"a": (1, 1)}), alpha=1.5)


def test_notes_say_when_runs_are_too_few_to_break() -> None:
    notes = _compare({"a": (3, 3)}, {"a": (0, 3)}).notes
    expected = (
        "some cases ran 3 times: with fewer than 4 runs on a side no pass-rate change can be significant at 0.05, "
        "so no status flip of theirs counts as broken"
    )
    assert any(expected in n for n in notes), notes
    assert not any("ran 5 times" in n for n in _compare({"a": (5, 5)}, {"a": (0, 5)}).notes)
    assert any("fewer than 5 runs" in n for n in _compare({"a": (4, 4)}, {"a": (0, 4)}, alpha=0.01).notes)


def test_the_verdict_in_every_rendering() -> None:
    noisy = _compare({"a": (5, 5)}, {"a": (3, 5)})
    markdown = render_markdown(noisy)
    assert "**no regression: 1 within noise**" in markdown
    assert "**Gate: passed (--fail-on broken, alpha 0.05)**: fails when a case broke" in markdown
    noise = "the status flipped, but the pass rate's change may be chance at 0.05; never broken"
    assert f"- Within noise: 1 case ({noise}): a (passed -> failed, 5/5 -> 3/5)" in markdown
    assert "| a | within noise | passed | failed | 5/5 → 3/5 (flaky in new) |" in markdown
    page = render_html(_compare({"a": (5, 5)}, {"a": (0, 5)}))
    assert '<p class="gate regressed" data-failed="true">Gate: FAILED (--fail-on broken, alpha 0.05)' in page
    assert "<li>a: passed -&gt; failed, 5/5 -&gt; 0/5 runs passed (Fisher&#x27;s exact test p = 0.00794)</li>" in page
    again = Comparison.model_validate_json(noisy.model_dump_json())
    assert again == noisy and again.gate is not None and again.gate.within_noise == ["a"]
    assert '"failOn":"broken"' in noisy.model_dump_json() and '"change":"within_noise"' in noisy.model_dump_json()
