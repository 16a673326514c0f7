"""Intervals of a comparison's deltas (paired bootstrap over the cases both results have), how many cases a change
not yet significant would need, and whether a case that moved is flaky or broken."""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Sequence

from ..stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    bootstrap_weighted_sums,
    cases_for_paired_means,
    percentile_interval,
)
from ..summary import CaseSummary
from ._model import EstimateDelta

__all__ = ["PASS_RATE", "delta_estimates", "runs_state"]

PASS_RATE = "pass rate (runs)"
"""The name of the pass-rate row: the share of a side's case runs that passed."""


Side = list[tuple[float, float]]
"""Per common case: (its total, what the total is divided by) on one side."""


def _passed(case: CaseSummary) -> tuple[float, float]:
    return float(case.runs_passed), float(case.runs)


def _metric(case: CaseSummary, name: str) -> tuple[float, float]:
    """The sum of the case's scored runs of metric ``name`` and how many there are."""
    for tally in case.metrics:
        if tally.name == name:
            return float(sum(tally.scores)), float(len(tally.scores))
    return 0.0, 0.0


def _needed(base: Side, new: Side, delta: float) -> int | None:
    """Cases (the same on both sides) to detect ``delta`` from the spread of the per-case differences."""
    differences = [n[0] / n[1] - b[0] / b[1] for b, n in zip(base, new, strict=True) if b[1] and n[1]]
    if len(differences) < 2 or delta == 0:
        return None
    variance = statistics.variance(differences)
    if variance == 0:
        return None
    return cases_for_paired_means(variance, abs(delta))


def _estimate(name: str, base: Side, new: Side) -> EstimateDelta:
    b_count, n_count = sum(b[1] for b in base), sum(n[1] for n in new)
    estimate = EstimateDelta(name=name, cases=len(base))
    if b_count:
        estimate.base = sum(b[0] for b in base) / b_count
    if n_count:
        estimate.new = sum(n[0] for n in new) / n_count
    if estimate.base is not None and estimate.new is not None:
        estimate.delta = estimate.new - estimate.base
    return estimate


def _with_interval(estimate: EstimateDelta, sums: list[list[float]], resamples: int, base: Side, new: Side) -> None:
    """Add the paired interval (from the resampled ``sums``: base total, base count, new total, new count) and, when
    it holds 0, the cases needed."""
    b_sums, b_counts, n_sums, n_counts = sums
    changes = [
        ns / nc - bs / bc
        for bs, bc, ns, nc in zip(b_sums, b_counts, n_sums, n_counts, strict=True)
        if bc > 0 and nc > 0
    ]
    interval = percentile_interval(changes, 0.95, resamples)
    if interval is None or estimate.delta is None:
        return
    estimate.low, estimate.high, estimate.resamples = interval.low, interval.high, resamples
    if estimate.measurement:
        return  # a measurement's change has no verdict
    estimate.significant = not interval.contains(0.0)
    if not estimate.significant:
        estimate.cases_needed = _needed(base, new, estimate.delta)


def delta_estimates(
    pairs: Sequence[tuple[CaseSummary, CaseSummary]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    measurements: Collection[str] = (),
) -> list[EstimateDelta]:
    """The pass rate's and every metric's change over ``pairs`` with its paired bootstrap interval (a resample draws
    cases, the same on both sides, each with all its runs); every interval comes from the same resamples. The
    metrics named in ``measurements`` get their interval but no verdict (``measurement`` set, ``significant``
    never)."""
    if not pairs:
        return []
    sides = [(PASS_RATE, [_passed(b) for b, _ in pairs], [_passed(n) for _, n in pairs])]
    names: dict[str, None] = {}
    for before, after in pairs:
        names.update(dict.fromkeys(t.name for t in before.metrics))
        names.update(dict.fromkeys(t.name for t in after.metrics))
    sides += [(name, [_metric(b, name) for b, _ in pairs], [_metric(n, name) for _, n in pairs]) for name in names]
    estimates = [_estimate(name, base, new) for name, base, new in sides]
    for estimate in estimates:
        estimate.measurement = estimate.name in measurements
    # A score beyond floating point (``1e999`` in a file reads as infinity) has no interval: its delta is shown alone.
    drawn = [
        (e, base, new)
        for e, (_, base, new) in zip(estimates, sides, strict=True)
        if e.delta is not None and _finite(base) and _finite(new)
    ]
    if resamples > 0 and len(pairs) >= 2 and drawn:
        columns = [[v[i] for v in side] for _, base, new in drawn for side in (base, new) for i in (0, 1)]
        sums = bootstrap_weighted_sums(columns, resamples=resamples, seed=seed)
        for position, (estimate, base, new) in enumerate(drawn):
            _with_interval(estimate, sums[4 * position : 4 * position + 4], resamples, base, new)
    return estimates


def _finite(side: list[tuple[float, float]]) -> bool:
    return all(math.isfinite(total) for total, _ in side)


def runs_state(case: CaseSummary) -> str | None:
    """``flaky (3/5 passed)`` when some runs passed and some did not, ``broken (0/5 passed)`` when none passed,
    ``None`` for a single run or every run passed."""
    runs, passed = case.runs, case.runs_passed
    if runs < 2 or passed == runs:
        return None
    return f"{'flaky' if passed else 'broken'} ({passed}/{runs} passed)"
