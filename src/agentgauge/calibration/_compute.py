"""Matching people's labels with a judge metric's verdicts, and counting how often they agree.

A verdict is a judge metric's ``passed`` / ``failed`` status for a case (its overall result) or for one invocation;
errors and ``not_evaluated`` are no verdict. A label applies to the verdicts it names (case, metric, invocation, and
when given eval set, run and result). Labels stored with a result (its sidecar file or the store's table) apply to
that result, and also to any other result given that holds the very same conversation (same eval set, case and
invocation, same user turns, answers and tool calls) -- so results of one recorded conversation scored by several
judge models are all calibrated by the labels given on one of them.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..model import Criterion, EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus, HumanLabel, Invocation
from ._kappa import cohen_kappa, observed_agreement
from ._model import Calibration, CalibrationGroup, Disagreement, Level

__all__ = ["LabelledResult", "calibrate", "judge_model_of"]

NOT_RECORDED = "(not recorded)"
"""The judge model shown when the result's criterion does not name one (the run's default judge was used)."""


@dataclass
class LabelledResult:
    """A result and the labels stored with it (they apply to this result, see the module's docstring)."""

    result: EvalSetResult
    labels: list[HumanLabel] = field(default_factory=list)
    source: str = ""


@dataclass(frozen=True)
class _Verdict:
    result_index: int
    result_id: str
    eval_set_id: str
    eval_id: str
    run_id: int
    invocation: int | None
    metric_name: str
    judge_model: str
    passed: bool
    score: float | None
    reason: str
    fingerprint: str

    @property
    def level(self) -> Level:
        return "case" if self.invocation is None else "invocation"

    def anchor(self) -> tuple[str, str, int | None, str, str]:
        return (self.eval_set_id, self.eval_id, self.invocation, self.metric_name, self.fingerprint)


def _get(data: dict[str, Any] | None, *names: str) -> Any:
    for name in names:
        if isinstance(data, dict) and data.get(name) not in (None, ""):
            return data[name]
    return None


def judge_model_of(criterion: Criterion | None) -> str:
    """The judge model a metric's criterion names (trpc ``llmJudge.judgeModel.modelName``, ADK
    ``judge_model_options.judge_model``), else :data:`NOT_RECORDED`."""
    if criterion is None:
        return NOT_RECORDED
    native = criterion.llm_judge
    if native is None and criterion.adk is not None:
        native = _get(criterion.adk, "llmJudge", "llm_judge")
    model = _get(_get(native, "judgeModel", "judge_model"), "modelName", "model_name")
    if model is None and criterion.adk is not None:
        options = _get(criterion.adk, "judge_model_options", "judgeModelOptions")
        model = _get(options, "judge_model", "judgeModel")
    return str(model) if model is not None else NOT_RECORDED


def _fingerprint(invocations: Sequence[Invocation]) -> str:
    """A digest of what the judge saw: user turns, answers and tool calls (not ids, times or usage)."""
    keep = {"user_content", "final_response", "intermediate_responses", "context_messages"}
    data = [
        {**inv.model_dump(mode="json", include=keep), "calls": [(t.name, t.arguments, t.result) for t in inv.tools]}
        for inv in invocations
    ]
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)).hexdigest()


def _case_verdicts(index: int, result_id: str, case: EvalCaseResult, wanted: set[str]) -> Iterable[_Verdict]:
    actual = [p.actual_invocation for p in case.eval_metric_result_per_invocation]

    def verdict(metric: EvalMetricResult, invocation: int | None, seen: Sequence[Invocation]) -> _Verdict | None:
        if metric.metric_name not in wanted or metric.eval_status not in (EvalStatus.PASSED, EvalStatus.FAILED):
            return None
        reason = metric.details.reason if metric.details is not None and metric.details.reason else ""
        return _Verdict(
            index,
            result_id,
            case.eval_set_id,
            case.eval_id,
            case.run_id,
            invocation,
            metric.metric_name,
            judge_model_of(metric.criterion),
            metric.eval_status is EvalStatus.PASSED,
            metric.score,
            reason,
            _fingerprint(seen),
        )

    # The overall result's criterion names the judge; per-invocation results usually carry none.
    models = {m.metric_name: m.criterion for m in case.overall_eval_metric_results}
    for metric in case.overall_eval_metric_results:
        found = verdict(metric, None, actual)
        if found is not None:
            yield found
    for number, per_invocation in enumerate(case.eval_metric_result_per_invocation, start=1):
        for metric in per_invocation.eval_metric_results:
            if metric.criterion is None and models.get(metric.metric_name) is not None:
                metric = metric.model_copy(update={"criterion": models[metric.metric_name]})
            found = verdict(metric, number, actual[:number])
            if found is not None:
                yield found


def _matches(label: HumanLabel, verdict: _Verdict, *, check_result: bool) -> bool:
    return (
        label.eval_set_id in ("", verdict.eval_set_id)
        and label.run_id in (None, verdict.run_id)
        and (not check_result or label.eval_set_result_id in ("", verdict.result_id))
    )


@dataclass
class _Truth:
    """The person's verdict chosen for one judge verdict: the most specific label wins, then the latest."""

    priority: int
    order: int
    human_passed: bool
    label: HumanLabel


class _Matcher:
    def __init__(self, verdicts: list[_Verdict]) -> None:
        self.by_key: dict[tuple[str, str, int | None], list[int]] = defaultdict(list)
        for i, v in enumerate(verdicts):
            self.by_key[(v.eval_id, v.metric_name, v.invocation)].append(i)
        self.verdicts = verdicts
        self.truth: dict[int, _Truth] = {}
        self.anchors: dict[tuple[str, str, int | None, str, str], _Truth] = {}
        self.matched: set[int] = set()  # ids of the labels that matched a verdict directly

    def apply(self, label: HumanLabel, order: int, priority: int, only_result: int | None) -> None:
        for i in self.by_key.get((label.eval_id, label.metric_name, label.invocation), []):
            verdict = self.verdicts[i]
            if only_result is not None and verdict.result_index != only_result:
                continue
            if not _matches(label, verdict, check_result=only_result is None):
                continue
            named = only_result is not None or bool(label.eval_set_result_id)
            human = label.human_passes(verdict.passed if named else None)
            if human is None:
                continue
            self.matched.add(id(label))
            truth = _Truth(priority, order, human, label)
            old = self.truth.get(i)
            if old is None or (old.priority, old.order) <= (priority, order):
                self.truth[i] = truth
            if named:
                self.anchors[verdict.anchor()] = truth

    def transfer(self) -> None:
        """Labels given on one result apply to the same conversation in the other results."""
        for i, verdict in enumerate(self.verdicts):
            if i not in self.truth:
                found = self.anchors.get(verdict.anchor())
                if found is not None:
                    self.truth[i] = found


def calibrate(results: Sequence[LabelledResult], labels: Sequence[HumanLabel] = ()) -> Calibration:
    """Compare the judge verdicts of ``results`` with people's labels: those stored with each result and
    ``labels`` (a ``LABELS.jsonl``; they win over stored labels of the same verdict)."""
    every = [label for r in results for label in r.labels] + list(labels)
    wanted = {label.metric_name for label in every}
    verdicts: list[_Verdict] = []
    for index, labelled in enumerate(results):
        result_id = labelled.result.eval_set_result_id
        for case in labelled.result.eval_case_results:
            verdicts.extend(_case_verdicts(index, result_id, case, wanted))
    matcher = _Matcher(verdicts)
    for index, labelled in enumerate(results):
        for order, label in enumerate(labelled.labels):
            matcher.apply(label, order, 2, index)
    for order, label in enumerate(labels):
        matcher.apply(label, order, 3 if label.eval_set_result_id else 1, None)
    matcher.transfer()
    groups = _groups(verdicts, matcher.truth)
    return Calibration(
        results=[r.result.eval_set_result_id or r.source for r in results],
        labels=len(every),
        unmatched_labels=sum(1 for label in every if id(label) not in matcher.matched),
        groups=groups,
    )


def _groups(verdicts: list[_Verdict], truth: dict[int, _Truth]) -> list[CalibrationGroup]:
    groups: dict[tuple[str, str, str], CalibrationGroup] = {}
    for i, verdict in enumerate(verdicts):
        found = truth.get(i)
        if found is None:
            continue
        key = (verdict.metric_name, verdict.level, verdict.judge_model)
        group = groups.get(key)
        if group is None:
            group = groups[key] = CalibrationGroup(
                metric_name=verdict.metric_name, judge_model=verdict.judge_model, level=verdict.level
            )
        if verdict.result_id not in group.results:
            group.results.append(verdict.result_id)
        group.labelled += 1
        group.confusion.add(verdict.passed, found.human_passed)
        if verdict.passed == found.human_passed:
            group.agreements += 1
        else:
            group.disagreements.append(_disagreement(verdict, found))
    for group in groups.values():
        group.accuracy = observed_agreement(group.confusion.matrix())
        group.kappa = cohen_kappa(group.confusion.matrix())
    return [groups[key] for key in sorted(groups, key=lambda k: (k[0], k[1] == "invocation", k[2]))]


def _disagreement(verdict: _Verdict, truth: _Truth) -> Disagreement:
    return Disagreement(
        eval_set_result_id=verdict.result_id,
        eval_set_id=verdict.eval_set_id,
        eval_id=verdict.eval_id,
        run_id=verdict.run_id,
        invocation=verdict.invocation,
        judge_passed=verdict.passed,
        human_passed=truth.human_passed,
        score=verdict.score,
        reason=verdict.reason,
        note=truth.label.note,
        author=truth.label.author,
    )
