"""Which label counts for which judge verdict, and what the table says."""

from __future__ import annotations

import pytest

from agentgauge.calibration import LabelledResult, calibrate, judge_model_of, render_calibration
from agentgauge.model import (
    Criterion,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalStatus,
    HumanLabel,
    Invocation,
)

METRIC = "llm_final_response"


def _metric(passed: bool | None, model: str | None = None, name: str = METRIC) -> EvalMetricResult:
    status = EvalStatus.ERROR if passed is None else EvalStatus.PASSED if passed else EvalStatus.FAILED
    criterion = Criterion(llm_judge={"judgeModel": {"modelName": model}}) if model else None
    score = None if passed is None else float(passed)
    return EvalMetricResult(metric_name=name, score=score, eval_status=status, threshold=1.0, criterion=criterion)


def _case(case_id: str, answers: list[tuple[str, bool | None]], model: str, run_id: int = 1) -> EvalCaseResult:
    """A case whose invocations answered ``text`` and were judged ``passed``; the case passes if all did."""
    turns = [
        EvalMetricResultPerInvocation(
            actual_invocation=Invocation.model_validate(
                {"userContent": {"content": f"q{i}"}, "finalResponse": {"content": text}}
            ),
            eval_metric_results=[_metric(passed)],
        )
        for i, (text, passed) in enumerate(answers)
    ]
    overall = all(p is True for _, p in answers)
    return EvalCaseResult(
        eval_set_id="s",
        eval_id=case_id,
        run_id=run_id,
        overall_eval_metric_results=[_metric(overall, model)],
        eval_metric_result_per_invocation=turns,
    )


def _result(
    result_id: str, model: str, verdicts: dict[str, bool], answers: dict[str, str] | None = None
) -> EvalSetResult:
    answers = answers or {}
    cases = [_case(cid, [(answers.get(cid, f"answer {cid}"), ok)], model) for cid, ok in verdicts.items()]
    return EvalSetResult(eval_set_result_id=result_id, eval_set_id="s", eval_case_results=cases)


def _label(case_id: str, verdict: str, **extra: object) -> HumanLabel:
    return HumanLabel.model_validate({"evalId": case_id, "metricName": METRIC, "verdict": verdict, **extra})


def test_pass_fail_labels_give_the_confusion_matrix_accuracy_and_kappa() -> None:
    result = _result("r1", "judge-a", {"a": True, "b": True, "c": False, "d": False, "e": True})
    labels = [_label("a", "pass"), _label("b", "fail", note="wrong city"), _label("c", "fail"), _label("d", "pass")]
    found = calibrate([LabelledResult(result)], labels)
    (group,) = found.groups
    assert (group.metric_name, group.judge_model, group.level) == (METRIC, "judge-a", "case")
    assert group.confusion.matrix() == [[1, 1], [1, 1]]
    assert (group.labelled, group.agreements, group.accuracy, group.kappa) == (4, 2, 0.5, 0.0)
    assert [(d.eval_id, d.judge_passed, d.human_passed, d.note) for d in group.disagreements] == [
        ("b", True, False, "wrong city"),
        ("d", False, True, ""),
    ]
    assert (found.labels, found.unmatched_labels) == (4, 0)


def test_agree_and_disagree_are_read_against_the_verdict_the_person_saw() -> None:
    result = _result("r1", "judge-a", {"a": True, "b": False})
    labels = [
        _label("a", "disagree", judgeVerdict="pass"),  # judge said pass, the person says fail
        _label("b", "agree", judgeVerdict="fail"),
    ]
    (group,) = calibrate([LabelledResult(result)], labels).groups
    assert group.confusion.matrix() == [[0, 1], [0, 1]]


def test_stored_labels_without_judge_verdict_are_read_against_their_own_result() -> None:
    result = _result("r1", "judge-a", {"a": True, "b": False})
    stored = [_label("a", "disagree", evalSetResultId="r1"), _label("b", "agree", evalSetResultId="r1")]
    (group,) = calibrate([LabelledResult(result, stored)]).groups
    assert group.confusion.matrix() == [[0, 1], [0, 1]]


def test_agree_without_a_reference_is_refused() -> None:
    with pytest.raises(ValueError, match="needs judgeVerdict"):
        _label("a", "agree")


def test_labels_on_one_result_count_for_another_judge_of_the_same_conversation() -> None:
    lenient = _result("r1", "judge-lenient", {"a": True, "b": True})
    strict = _result("r2", "judge-strict", {"a": True, "b": False})
    changed = _result("r3", "judge-other", {"a": True, "b": True}, answers={"b": "another answer"})
    stored = [_label("a", "agree", evalSetResultId="r1"), _label("b", "disagree", evalSetResultId="r1")]
    found = calibrate([LabelledResult(lenient, stored), LabelledResult(strict), LabelledResult(changed)])
    by_model = {g.judge_model: g for g in found.groups}
    assert by_model["judge-lenient"].confusion.matrix() == [[1, 1], [0, 0]]
    assert by_model["judge-strict"].confusion.matrix() == [[1, 0], [0, 1]]
    # r3 answered b differently: the label on r1's answer says nothing about it.
    assert by_model["judge-other"].labelled == 1
    assert [g.judge_model for g in found.groups] == ["judge-lenient", "judge-other", "judge-strict"]


def test_labels_name_what_they_are_about() -> None:
    r1 = _result("r1", "judge-a", {"a": True}, answers={"a": "not the answer r2 holds"})
    r2 = _result("r2", "judge-b", {"a": True})
    labels = [
        _label("a", "fail", evalSetResultId="r2"),  # only r2
        _label("a", "pass", evalSetId="other"),  # another eval set: matches nothing
        _label("missing", "pass"),
    ]
    found = calibrate([LabelledResult(r1), LabelledResult(r2)], labels)
    assert [(g.judge_model, g.confusion.matrix()) for g in found.groups] == [("judge-b", [[0, 1], [0, 0]])]
    assert found.unmatched_labels == 2


def test_a_label_given_on_the_command_line_wins_over_a_stored_one() -> None:
    result = _result("r1", "judge-a", {"a": True})
    stored = [_label("a", "agree", evalSetResultId="r1")]
    (group,) = calibrate([LabelledResult(result, stored)], [_label("a", "fail", evalSetResultId="r1")]).groups
    assert group.confusion.matrix() == [[0, 1], [0, 0]]


def test_invocation_labels_are_compared_with_invocation_verdicts() -> None:
    case = _case("a", [("first", True), ("second", False)], "judge-a")
    result = EvalSetResult(eval_set_result_id="r1", eval_set_id="s", eval_case_results=[case])
    labels = [_label("a", "pass", invocation=1), _label("a", "pass", invocation=2), _label("a", "pass", invocation=3)]
    found = calibrate([LabelledResult(result)], labels)
    (group,) = found.groups
    assert (group.level, group.judge_model) == ("invocation", "judge-a")  # the model comes from the case's result
    assert group.confusion.matrix() == [[1, 0], [1, 0]]
    assert [d.invocation for d in group.disagreements] == [2]
    assert found.unmatched_labels == 1


def test_errors_and_unlabelled_runs_are_no_verdict() -> None:
    case = _case("a", [("x", None)], "judge-a")
    case.overall_eval_metric_results = [_metric(None, "judge-a")]
    runs = [case, _case("a", [("x", True)], "judge-a", run_id=2)]
    result = EvalSetResult(eval_set_result_id="r1", eval_set_id="s", eval_case_results=runs)
    (group,) = calibrate([LabelledResult(result)], [_label("a", "pass")]).groups
    assert group.labelled == 1
    assert calibrate([LabelledResult(result)], [_label("a", "pass", runId=1)]).groups == []


@pytest.mark.parametrize(
    ("criterion", "model"),
    [
        ({"llmJudge": {"judgeModel": {"modelName": "gpt-4o-mini"}}}, "gpt-4o-mini"),
        ({"llm_judge": {"judge_model": {"model_name": "m"}}}, "m"),
        ({"adk": {"threshold": 0.8, "judge_model_options": {"judge_model": "gemini-2.5-flash"}}}, "gemini-2.5-flash"),
        ({"adk": {"llmJudge": {"judgeModel": {"modelName": "native"}}}}, "native"),
        ({"adk": {"threshold": 0.8}}, "(not recorded)"),
        (None, "(not recorded)"),
    ],
)
def test_judge_model_of(criterion: dict[str, object] | None, model: str) -> None:
    assert judge_model_of(None if criterion is None else Criterion.model_validate(criterion)) == model


def test_the_table_fits_80_columns_with_long_names() -> None:
    long_metric = "rubric_based_final_response_quality_v1"
    long_model = "accounts/fireworks/models/llama-v3p1-405b-instruct"
    case = EvalCaseResult(
        eval_set_id="s",
        eval_id="a" * 90,
        overall_eval_metric_results=[_metric(True, long_model, name=long_metric)],
    )
    result = EvalSetResult(eval_set_result_id="r", eval_set_id="s", eval_case_results=[case])
    label = HumanLabel(eval_id="a" * 90, metric_name=long_metric, verdict="fail", note="n" * 200)
    text = render_calibration(calibrate([LabelledResult(result)], [label]))
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "rubric_based_fin" in text and "accounts/firewor" in text and "…" in text
    assert "0.000" in text  # accuracy and kappa 0: the judge passed what the person failed


def test_markdown_and_json() -> None:
    result = _result("r1", "judge-a", {"a": True, "b": False})
    found = calibrate([LabelledResult(result)], [_label("a", "pass"), _label("b", "pass", note="a | b")])
    markdown = render_calibration(found, "markdown")
    assert "| `llm_final_response` | judge-a | case | 2 | 0.500 | 0.000 | 1 | 0 | 1 | 0 |" in markdown
    assert "- s/b run 1: judge fail (score 0), human pass: a \\| b" in markdown
    data = found.model_validate_json(render_calibration(found, "json"))
    assert data == found
    with pytest.raises(ValueError, match="unknown calibration format"):
        render_calibration(found, "html")
