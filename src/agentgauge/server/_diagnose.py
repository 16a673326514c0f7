"""``/api`` routes of the diagnosis views: where two runs of a case first diverge (two results, two runs of one, or a
run and its expected turns), the two runs' steps side by side, and a result's failures in clusters (triage)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Response

from ..errors import InputError, NotFoundError
from ..model import EvalCaseResult
from ._answers import json_answer
from ._deps import StateDep
from ._result_views import case_runs, load_result

__all__ = ["router"]

router = APIRouter()
"""``/apps/{app}/diff`` and ``/apps/{app}/results/{result_id}/triage`` (mounted under ``/api``)."""


def _run(runs: list[EvalCaseResult], case_id: str, run_id: int | None, *, failing: bool, side: str) -> EvalCaseResult:
    from ..divergence import pick_run

    if not runs:
        raise NotFoundError(f"{side}: case {case_id!r} is not in this result")
    try:
        return pick_run(runs, failing=failing, run_id=run_id)
    except ValueError as exc:
        raise InputError(f"{side}Run: case {case_id!r} has {exc}") from None


@router.get("/apps/{app}/diff")
def diff(
    app: str,
    new: Annotated[str, Query()],
    case: Annotated[str, Query()],
    state: StateDep,
    base: Annotated[str | None, Query()] = None,
    base_run: Annotated[int | None, Query(alias="baseRun", ge=1)] = None,
    new_run: Annotated[int | None, Query(alias="newRun", ge=1)] = None,
) -> Response:
    """The steps of case ``case`` in result ``base`` and in result ``new`` side by side, and where they first
    diverge (``agentgauge diff`` for two results). Without ``base``, the run of ``new`` is set against its own
    expected turns. ``baseRun`` / ``newRun`` pick runs (default: base's first run, new's first failing run); the
    same result on both sides with two runs compares two runs of one case."""
    from ..divergence import align_steps, alignment_divergence, invocation_steps, run_invocations

    state.check_app(app)
    new_case = _run(case_runs(load_result(state, app, new), case), case, new_run, failing=True, side="new")
    if base is None:
        expected = [e.expected_invocation for e in new_case.eval_metric_result_per_invocation]
        base_turns = [e for e in expected if e is not None]
        base_label = "expected turns"
    else:
        base_case = _run(case_runs(load_result(state, app, base), case), case, base_run, failing=False, side="base")
        base_turns, base_label = run_invocations(base_case), f"run {base_case.run_id}"
    alignment = align_steps(invocation_steps(base_turns), invocation_steps(run_invocations(new_case)))
    found = alignment_divergence(alignment)
    return json_answer(
        {
            "app": app,
            "evalId": case,
            "base": base_label,
            "new": f"run {new_case.run_id}",
            "firstDivergence": found.model_dump(mode="json") if found is not None else None,
            "aligned": alignment.aligned,
            "steps": alignment.steps_json(),
        }
    )


@router.get("/apps/{app}/results/{result_id}/triage")
def triage(
    app: str,
    result_id: str,
    state: StateDep,
    merge: Annotated[float | None, Query(ge=0.0, le=1.0)] = None,
) -> Response:
    """The result's failing case runs in clusters, heaviest first (``agentgauge triage --json``); ``merge`` also
    joins clusters whose reasons are at least that similar."""
    from ..triage import triage_result

    state.check_app(app)
    found = triage_result(load_result(state, app, result_id), source=result_id, merge=merge)
    return json_answer(found.model_dump(mode="json"))
