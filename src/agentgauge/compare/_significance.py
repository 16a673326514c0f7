"""Exact tests for "did the pass rate really change?": Fisher's exact test for one case's runs and the exact
McNemar (sign) test for cases that changed status. Pure Python, exact for the small counts evaluations produce."""

from __future__ import annotations

import math

__all__ = ["ALPHA", "fisher_exact", "mcnemar_exact", "min_runs_for_significance"]

ALPHA = 0.05
"""The significance level notes are stated at."""


def _hypergeometric(k: int, rows: tuple[int, int], column: int) -> float:
    """P(X = k) for X ~ Hypergeometric: ``column`` draws from ``rows[0]`` successes and ``rows[1]`` failures."""
    good, bad = rows
    return math.comb(good, k) * math.comb(bad, column - k) / math.comb(good + bad, column)


def fisher_exact(passed_a: int, runs_a: int, passed_b: int, runs_b: int) -> float:
    """Two-sided p-value of Fisher's exact test on ``passed_a / runs_a`` against ``passed_b / runs_b``.

    The p-value sums the probabilities of every table with the same margins that is no more likely than the one
    observed (the usual two-sided definition, as in R's ``fisher.test``). Raises ``ValueError`` for counts outside
    ``0 <= passed <= runs`` or an empty side.
    """
    for passed, runs in ((passed_a, runs_a), (passed_b, runs_b)):
        if runs <= 0 or not 0 <= passed <= runs:
            raise ValueError(f"fisher_exact: need 0 <= passed <= runs and runs > 0, got {passed}/{runs}")
    total_passed = passed_a + passed_b
    low, high = max(0, total_passed - runs_b), min(runs_a, total_passed)
    rows = (total_passed, runs_a + runs_b - total_passed)
    observed = _hypergeometric(passed_a, rows, runs_a)
    # Relative tolerance so tables exactly as likely as the observed one are not lost to rounding.
    limit = observed * (1 + 1e-7)
    p = sum(q for k in range(low, high + 1) if (q := _hypergeometric(k, rows, runs_a)) <= limit)
    return min(1.0, p)


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided p-value of the exact McNemar test: of ``fixed + broken`` cases that changed status, is the split
    compatible with chance (a fair coin)? 1.0 when nothing changed."""
    if fixed < 0 or broken < 0:
        raise ValueError(f"mcnemar_exact: counts must be >= 0, got {fixed}, {broken}")
    changed = fixed + broken
    if changed == 0:
        return 1.0
    tail: float = sum(math.comb(changed, i) for i in range(min(fixed, broken) + 1)) / 2**changed
    return min(1.0, 2 * tail)


def min_runs_for_significance(alpha: float = ALPHA) -> int:
    """The fewest runs per side for which an all-pass against all-fail case reaches ``p < alpha`` (4 at 0.05).

    That table and its mirror image are the two least likely of their margins: Fisher's p is ``2 / C(2n, n)``."""
    runs = 1
    while 2 / math.comb(2 * runs, runs) >= alpha:
        runs += 1
    return runs
