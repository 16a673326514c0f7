"""The runs of a case that a divergence compares, from saved results."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import EvalCaseResult, EvalStatus, Invocation
from ._align import run_divergence
from ._model import Divergence

__all__ = ["case_run_divergence", "golden_divergence", "pick_run", "run_invocations"]


def run_invocations(run: EvalCaseResult) -> list[Invocation]:
    """The actual turns of a case run, in order."""
    return [entry.actual_invocation for entry in run.eval_metric_result_per_invocation]


def pick_run(runs: Sequence[EvalCaseResult], *, failing: bool = False, run_id: int | None = None) -> EvalCaseResult:
    """The run of a case a divergence is read from: ``run_id`` when given (``ValueError`` if the case has no such
    run), else with ``failing`` the first run that did not pass, else the first run (lowest run id)."""
    ordered = sorted(runs, key=lambda r: r.run_id)
    if not ordered:
        raise ValueError("the case has no runs")
    if run_id is not None:
        for run in ordered:
            if run.run_id == run_id:
                return run
        raise ValueError(f"no run {run_id} (runs: {', '.join(str(r.run_id) for r in ordered)})")
    if failing:
        for run in ordered:
            if run.final_eval_status is not EvalStatus.PASSED:
                return run
    return ordered[0]


def case_run_divergence(base: Sequence[EvalCaseResult], new: Sequence[EvalCaseResult]) -> Divergence | None:
    """Where the new runs of a case first diverge from the base runs: the base's first run against the new side's
    first run that did not pass (else its first run)."""
    return run_divergence(run_invocations(pick_run(base)), run_invocations(pick_run(new, failing=True)))


def golden_divergence(run: EvalCaseResult) -> Divergence | None:
    """Where a case run first diverges from its expected conversation (the golden turns saved beside each actual
    turn); ``None`` also when the run has no expected turns to compare with (reference-free cases)."""
    entries = run.eval_metric_result_per_invocation
    expected = [e.expected_invocation for e in entries]
    if not entries or any(e is None for e in expected) or not any(e.tools or e.final_response for e in expected if e):
        return None
    return run_divergence([e for e in expected if e is not None], run_invocations(run))
