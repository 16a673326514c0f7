"""Percentile bootstrap intervals over cases (numpy).

A resample draws ``n`` cases with replacement from the ``n`` cases of a result; a case's runs go with it: a
statistic is a ratio of sums over the drawn cases (``sum of their scores / number of their scored runs``), so the
runs nested in a case are never resampled apart from it. The same draws serve every column of a call, so a paired
comparison (both sides of a drawn case counted alike) and all the estimates of a report cost one pass.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "BootstrapSettings",
    "Interval",
    "bootstrap_weighted_sums",
    "current_bootstrap",
    "percentile",
    "percentile_interval",
    "ratio_delta_interval",
    "ratio_interval",
    "use_bootstrap",
]

DEFAULT_RESAMPLES = 10_000
"""Resamples drawn for an interval unless told otherwise."""
DEFAULT_SEED = 0
"""The seed of the resampling unless told otherwise (the same inputs always give the same interval)."""

_WORK = 50_000_000  # cases x resamples: 10,000 resamples up to 5,000 cases, fewer (at least 1,000) beyond
_BLOCK_DRAWS = 1 << 18  # case indices drawn at once (int64: 2 MB; the draws do not depend on it, see below)


@dataclass(frozen=True)
class BootstrapSettings:
    """How intervals are computed: ``resamples`` (0: no intervals), the ``seed`` and the confidence ``level``."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    level: float = 0.95

    def resamples_for(self, cases: int) -> int:
        """The resamples used for ``cases`` cases: the setting, lowered (to no less than 1,000) for very large
        results so a report stays fast."""
        return min(self.resamples, max(1_000, _WORK // max(cases, 1)))


_SETTINGS: ContextVar[BootstrapSettings] = ContextVar("agentgauge_bootstrap", default=BootstrapSettings())  # noqa: B039


def current_bootstrap() -> BootstrapSettings:
    """The settings reports use now."""
    return _SETTINGS.get()


@contextmanager
def use_bootstrap(settings: BootstrapSettings) -> Iterator[None]:
    """Use ``settings`` for the reports rendered inside the block (the CLI's ``--bootstrap-resamples``, ``--seed``)."""
    token = _SETTINGS.set(settings)
    try:
        yield
    finally:
        _SETTINGS.reset(token)


@dataclass(frozen=True, slots=True)
class Interval:
    """A percentile bootstrap interval: ``low`` and ``high`` bound the middle ``level`` of the resampled values."""

    low: float
    high: float
    level: float = 0.95
    resamples: int = DEFAULT_RESAMPLES

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the interval (ends included)."""
        return self.low <= value <= self.high

    def text(self, digits: int = 2) -> str:
        """``[0.76, 0.88]``."""
        return f"[{self.low:.{digits}f}, {self.high:.{digits}f}]"


def percentile(ordered: Sequence[float], fraction: float) -> float:
    """The ``fraction`` quantile of sorted values, interpolated linearly between order statistics (numpy's default,
    Hyndman & Fan type 7). Raises ``ValueError`` for no values or a fraction outside [0, 1]."""
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be between 0 and 1, got {fraction}")
    position = fraction * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


def bootstrap_weighted_sums(
    columns: Sequence[Sequence[float]], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[list[float]]:
    """For each resample, ``sum_i w_i * column[i]`` of every column (columns are per-case values of equal length;
    ``w_i`` is how many times the resample drew case ``i`` among ``n`` draws with replacement, shared by all
    columns). Returns one list per column, ``resamples`` sums each.

    Deterministic for a given ``seed``. Non-finite values raise ``ValueError``.
    """
    import numpy as np

    if resamples <= 0:
        raise ValueError(f"resamples must be > 0, got {resamples}")
    cases = len(columns[0]) if columns else 0
    if any(len(column) != cases for column in columns):
        raise ValueError("every column needs one value per case")
    values = np.asarray(columns, dtype=np.float64).reshape(len(columns), cases)
    if not np.isfinite(values).all():
        raise ValueError("bootstrap values must be finite")
    if cases == 0:
        return [[0.0] * resamples for _ in columns]
    generator = np.random.default_rng(seed)
    sums = np.empty((len(columns), resamples), dtype=np.float64)
    # Drawn in blocks of resamples so the index matrix stays small (~2 MB, and cache-sized: larger blocks only
    # raised peak memory) whatever the number of cases; the generator yields the same indices in any block size.
    block = max(1, _BLOCK_DRAWS // cases)
    # A column of one integer (a case's runs, or scored runs, when every case has as many) sums to that integer
    # times the cases in every resample, exactly as adding up the drawn values would: it needs no gathering.
    constant = [
        bool((row == row[0]).all() and row[0] == math.floor(row[0]) and abs(row[0]) * cases < 2**53) for row in values
    ]
    for index in range(len(columns)):
        if constant[index]:
            sums[index] = values[index][0] * cases
    for first in range(0, resamples, block):
        count = min(block, resamples - first)
        drawn = generator.integers(0, cases, size=(count, cases))
        for index in range(len(columns)):
            if not constant[index]:
                sums[index, first : first + count] = values[index][drawn].sum(axis=1)
    return [row.tolist() for row in sums]


def percentile_interval(values: list[float], level: float, resamples: int) -> Interval | None:
    """The interval spanning the middle ``level`` of resampled ``values`` (sorted in place); ``None`` for none."""
    if not values:
        return None
    values.sort()
    tail = (1.0 - level) / 2
    return Interval(percentile(values, tail), percentile(values, 1.0 - tail), level, resamples)


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be between 0 and 1, got {level}")


def ratio_interval(
    sums: Sequence[float],
    counts: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval | None:
    """The percentile bootstrap interval of ``sum(sums) / sum(counts)`` with cases resampled: ``sums[i]`` is case
    ``i``'s total (its scores over its runs, or its runs passed) and ``counts[i]`` what it is divided by (its scored
    runs, or its runs). ``None`` without a case that counts. Resamples that draw no counting case are left out."""
    _check_level(level)
    if not any(counts):
        return None
    weighted_sums, weighted_counts = bootstrap_weighted_sums([sums, counts], resamples=resamples, seed=seed)
    values = [s / c for s, c in zip(weighted_sums, weighted_counts, strict=True) if c > 0]
    return percentile_interval(values, level, resamples)


def ratio_delta_interval(
    base: tuple[Sequence[float], Sequence[float]],
    new: tuple[Sequence[float], Sequence[float]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval | None:
    """The paired bootstrap interval of ``new ratio - base ratio`` over the same cases (each a ``(sums, counts)``
    pair, case ``i`` at index ``i`` on both sides): a resample weights a case alike on both sides, so what the cases
    have in common (how hard each is) cancels out. ``None`` when either side has no case that counts."""
    _check_level(level)
    if not any(base[1]) or not any(new[1]):
        return None
    b_sums, b_counts, n_sums, n_counts = bootstrap_weighted_sums(
        [base[0], base[1], new[0], new[1]], resamples=resamples, seed=seed
    )
    values = [
        ns / nc - bs / bc
        for bs, bc, ns, nc in zip(b_sums, b_counts, n_sums, n_counts, strict=True)
        if bc > 0 and nc > 0
    ]
    return percentile_interval(values, level, resamples)
