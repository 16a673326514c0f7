"""``/api`` routes of people's labels on a stored result's judge verdicts (what ``agentgauge calibrate`` reads).

Labels are kept with the result: in ``<result id>.labels.jsonl`` beside a result file (the result file itself is
never rewritten), or in the store's ``evaluation_labels`` table for a result in a SQL store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, Field, StringConstraints

from ..errors import InputError, NotFoundError
from ..model import EvalCaseResult, EvalMetricResult, EvalSetResult, EvalStatus, HumanLabel, LabelVerdict
from ._deps import StateDep
from ._requests import _Body, _valid_text
from ._state import ServerState

__all__ = ["LabelBody", "router"]

router = APIRouter()
"""``/apps/{app}/results/{result_id}/labels`` and ``.../cases/{case_id}/labels`` (mounted under ``/api``)."""


class LabelBody(_Body):
    """``PUT .../cases/{case}/labels``: ``{metricName, verdict, note?, author?, runId?, invocation?,
    judgeVerdict?}``. ``verdict`` is ``agree`` / ``disagree`` (with the judge verdict shown, ``judgeVerdict``;
    the stored one when left out) or ``pass`` / ``fail``; ``invocation`` (1-based) labels one invocation's verdict
    instead of the case's; ``runId`` defaults to the case's first run."""

    metric_name: Annotated[str, StringConstraints(min_length=1, max_length=255), AfterValidator(_valid_text)]
    verdict: LabelVerdict
    note: Annotated[str, StringConstraints(max_length=4000), AfterValidator(_valid_text)] = ""
    author: Annotated[str, StringConstraints(max_length=200), AfterValidator(_valid_text)] = ""
    run_id: Annotated[int, Field(ge=1)] | None = None
    invocation: Annotated[int, Field(ge=1)] | None = None
    judge_verdict: Literal["pass", "fail"] | None = None


def _case(result: EvalSetResult, case_id: str, run_id: int | None) -> EvalCaseResult:
    runs = [c for c in result.eval_case_results if c.eval_id == case_id]
    if not runs:
        raise NotFoundError(f"case {case_id!r} is not in result {result.eval_set_result_id!r}")
    if run_id is None:
        return min(runs, key=lambda c: c.run_id)
    for case in runs:
        if case.run_id == run_id:
            return case
    raise InputError(f"runId: case {case_id!r} has no run {run_id} (runs: {sorted(c.run_id for c in runs)})")


def _metric(case: EvalCaseResult, body: LabelBody) -> EvalMetricResult:
    if body.invocation is None:
        found = case.overall_eval_metric_results
    else:
        turns = case.eval_metric_result_per_invocation
        if body.invocation > len(turns):
            raise InputError(f"invocation: case {case.eval_id!r} has {len(turns)} invocation(s), not {body.invocation}")
        found = turns[body.invocation - 1].eval_metric_results
    for metric in found:
        if metric.metric_name == body.metric_name:
            return metric
    names = ", ".join(sorted({m.metric_name for m in found})) or "none"
    raise InputError(f"metricName: case {case.eval_id!r} has no result for metric {body.metric_name!r} ({names})")


def _judge_verdict(metric: EvalMetricResult, body: LabelBody) -> Literal["pass", "fail"] | None:
    if body.judge_verdict is not None or body.verdict in (LabelVerdict.PASS, LabelVerdict.FAIL):
        return body.judge_verdict
    if metric.eval_status is EvalStatus.PASSED:
        return "pass"
    if metric.eval_status is EvalStatus.FAILED:
        return "fail"
    raise InputError(
        f"verdict: the judge gave no pass/fail verdict here ({metric.eval_status.value}); label 'pass' or 'fail'"
    )


class _ResultLabels:
    """The labels of one stored result, where they are kept: beside its file, or in its store."""

    def __init__(self, state: ServerState, app: str, result_id: str) -> None:
        from ..sqlstore import SqlLabelStore
        from ..storage import LabelFile

        self.app, self.result_id = app, result_id
        source = state.results.source_of(app, result_id)
        path = source.path_for(app, result_id)
        self._file = LabelFile(path) if path is not None else None
        # A source without files is the SQL store, whose result manager holds the store.
        self._table = None if path is not None else SqlLabelStore(source.manager.store)  # type: ignore[attr-defined]

    def all(self) -> list[HumanLabel]:
        """Every label of the result, oldest first."""
        if self._file is not None:
            return self._file.read()
        assert self._table is not None
        return self._table.list(self.app, self.result_id)

    def put(self, label: HumanLabel) -> list[HumanLabel]:
        """Store ``label`` (replacing the one with its key); every label of the result."""
        if self._file is not None:
            return self._file.put(label)
        assert self._table is not None
        self._table.put(self.app, label)
        return self.all()

    def delete(self, case_id: str, matches: Callable[[HumanLabel], bool]) -> int:
        """Remove the labels of ``case_id`` that ``matches`` accepts; how many were removed."""
        if self._file is not None:
            return self._file.delete(lambda label: label.eval_id == case_id and matches(label))
        assert self._table is not None
        return self._table.delete(self.app, self.result_id, case_id, matches)


def _json(labels: list[HumanLabel]) -> JSONResponse:
    return JSONResponse([label.model_dump(mode="json", by_alias=True) for label in labels])


@router.get("/apps/{app}/results/{result_id}/labels")
def result_labels(app: str, result_id: str, state: StateDep) -> JSONResponse:
    """Every label given on the result's judge verdicts, oldest first."""
    state.check_app(app)
    return _json(_ResultLabels(state, app, result_id).all())


@router.get("/apps/{app}/results/{result_id}/cases/{case_id}/labels")
def case_labels(app: str, result_id: str, case_id: str, state: StateDep) -> JSONResponse:
    """The labels of one case of the result."""
    state.check_app(app)
    return _json([label for label in _ResultLabels(state, app, result_id).all() if label.eval_id == case_id])


@router.put("/apps/{app}/results/{result_id}/cases/{case_id}/labels")
def put_case_label(app: str, result_id: str, case_id: str, body: LabelBody, state: StateDep) -> JSONResponse:
    """Label a judge verdict of the case: ``agree`` / ``disagree`` with it, or ``pass`` / ``fail``, with a note.
    A label for the same metric, run and invocation is replaced. Answers the case's labels."""
    from ..calibration import judge_model_of

    state.check_app(app)
    result = state.results.get(app, result_id)
    case = _case(result, case_id, body.run_id)
    metric = _metric(case, body)
    overall = {m.metric_name: m for m in case.overall_eval_metric_results}.get(body.metric_name, metric)
    label = HumanLabel(
        eval_set_result_id=result_id,
        eval_set_id=case.eval_set_id or result.eval_set_id,
        eval_id=case_id,
        metric_name=body.metric_name,
        verdict=body.verdict,
        run_id=case.run_id,
        invocation=body.invocation,
        judge_verdict=_judge_verdict(metric, body),
        judge_model=judge_model_of(metric.criterion or overall.criterion),
        note=body.note,
        author=body.author,
        labelled_at=time.time(),
    )
    labels = _ResultLabels(state, app, result_id).put(label)
    return _json([old for old in labels if old.eval_id == case_id])


@router.delete("/apps/{app}/results/{result_id}/cases/{case_id}/labels")
def delete_case_labels(
    app: str,
    result_id: str,
    case_id: str,
    state: StateDep,
    metric_name: Annotated[str | None, Query(alias="metricName")] = None,
    run_id: Annotated[int | None, Query(alias="runId", ge=1)] = None,
    invocation: Annotated[int | None, Query(ge=1)] = None,
) -> JSONResponse:
    """Remove the case's labels: all of them, or those of ``metricName`` (and ``runId``, ``invocation`` when
    given; without ``invocation`` only the case-level label of the metric). Answers ``{"removed": n}``."""
    state.check_app(app)
    state.results.get(app, result_id)  # 404 for a result that does not exist

    def matches(label: HumanLabel) -> bool:
        if metric_name is None:
            return True
        return (
            label.metric_name == metric_name
            and (run_id is None or label.run_id == run_id)
            and label.invocation == invocation
        )

    return JSONResponse({"removed": _ResultLabels(state, app, result_id).delete(case_id, matches)})
