"""How many cases (and runs per case) a change needs before a test can see it: normal-approximation sample sizes.

Textbook formulas (two-sided level ``alpha``, power ``1 - beta``, ``z_q`` the standard normal quantile):

- two independent means: ``n = 2 (z_{1-alpha/2} + z_{1-beta})^2 sigma^2 / delta^2`` cases per side;
- paired means (the same cases on both sides): ``n = (z_{1-alpha/2} + z_{1-beta})^2 sigma_d^2 / delta^2``;
- two proportions (Fleiss, no continuity correction):
  ``n = (z_{1-alpha/2} sqrt(2 pbar qbar) + z_{1-beta} sqrt(p1 q1 + p2 q2))^2 / (p1 - p2)^2``.

With ``r`` runs per case, a case's mean has variance ``sigma_between^2 + sigma_within^2 / r``:
:func:`variance_components` estimates both from per-case run scores (one-way random effects, method of moments).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "VarianceComponents",
    "cases_for_means",
    "cases_for_paired_means",
    "cases_for_proportions",
    "runs_for_cases",
    "variance_components",
    "z_total",
]


def _check(alpha: float, power: float, delta: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1, got {power}")
    if not delta > 0.0 or not math.isfinite(delta):
        raise ValueError(f"the change to detect must be > 0, got {delta}")


def z_total(alpha: float = 0.05, power: float = 0.8) -> float:
    """``z_{1-alpha/2} + z_{power}`` (2.8016 at 0.05 and 0.8)."""
    normal = NormalDist()
    return normal.inv_cdf(1.0 - alpha / 2.0) + normal.inv_cdf(power)


def cases_for_means(variance: float, delta: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Cases per side for two independent samples to detect a change ``delta`` in a mean whose per-case values
    have ``variance`` (rounded up; at least 2)."""
    _check(alpha, power, delta)
    return max(2, math.ceil(2.0 * z_total(alpha, power) ** 2 * max(variance, 0.0) / delta**2 - 1e-9))


def cases_for_paired_means(difference_variance: float, delta: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Cases to detect a mean per-case difference ``delta`` when both sides run the same cases and the per-case
    differences have ``difference_variance`` (rounded up; at least 2)."""
    _check(alpha, power, delta)
    return max(2, math.ceil(z_total(alpha, power) ** 2 * max(difference_variance, 0.0) / delta**2 - 1e-9))


def cases_for_proportions(p1: float, p2: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Cases per side to tell a pass rate ``p1`` from ``p2`` (two independent samples, Fleiss without continuity
    correction; rounded up)."""
    if not (0.0 <= p1 <= 1.0 and 0.0 <= p2 <= 1.0):
        raise ValueError(f"pass rates must be between 0 and 1, got {p1} and {p2}")
    _check(alpha, power, abs(p1 - p2))
    normal = NormalDist()
    z_a, z_b = normal.inv_cdf(1.0 - alpha / 2.0), normal.inv_cdf(power)
    mean = (p1 + p2) / 2.0
    spread = z_a * math.sqrt(2.0 * mean * (1.0 - mean)) + z_b * math.sqrt(p1 * (1.0 - p1) + p2 * (1.0 - p2))
    return max(2, math.ceil(spread**2 / (p1 - p2) ** 2 - 1e-9))


@dataclass(frozen=True)
class VarianceComponents:
    """How scores vary: ``between`` cases (how hard each case is) and ``within`` a case, run to run (``None`` when no
    case ran twice). ``runs`` is the mean number of scored runs per case."""

    between: float
    within: float | None
    runs: float
    cases: int
    mean: float

    def of_case_mean(self, runs: float) -> float:
        """The variance of one case's mean over ``runs`` runs."""
        return self.between + (self.within or 0.0) / runs


def variance_components(scores: Sequence[Sequence[float]]) -> VarianceComponents:
    """Between-case and within-case variance of per-case run scores (``scores[i]``: case ``i``'s scores, one per
    scored run); cases without a score are ignored. Raises ``ValueError`` with fewer than two scored cases."""
    cases = [list(s) for s in scores if len(s)]
    if len(cases) < 2:
        raise ValueError("need at least two scored cases to estimate a variance")
    means = [sum(s) / len(s) for s in cases]
    grand = sum(means) / len(means)
    total = sum((m - grand) ** 2 for m in means) / (len(means) - 1)  # variance of case means
    runs = sum(len(s) for s in cases) / len(cases)
    free = sum(len(s) - 1 for s in cases)
    if free == 0:
        return VarianceComponents(total, None, runs, len(cases), grand)
    within = sum((x - m) ** 2 for s, m in zip(cases, means, strict=True) for x in s) / free
    # Var(case mean) = between + within / runs: what is left once run-to-run noise is taken out (never negative).
    harmonic = len(cases) / sum(1.0 / len(s) for s in cases)
    return VarianceComponents(max(total - within / harmonic, 0.0), within, runs, len(cases), grand)


def runs_for_cases(
    components: VarianceComponents, cases: int, delta: float, *, alpha: float = 0.05, power: float = 0.8
) -> int | None:
    """Runs per case with which ``cases`` cases per side detect ``delta`` (two independent samples); ``None`` when
    no number of runs is enough (the differences between cases alone need more cases)."""
    _check(alpha, power, delta)
    allowed = cases * delta**2 / (2.0 * z_total(alpha, power) ** 2)  # the case-mean variance the cases can afford
    if not components.within:  # runs do not vary: one run is as good as many
        return 1 if allowed >= components.between else None
    if allowed <= components.between:
        return None
    return max(1, math.ceil(components.within / (allowed - components.between) - 1e-9))
