"""Score reducers: how a case's scores over several runs become its one score (inspect-ai's epoch reducers).

``mean`` (the default), ``median``, ``mode`` (the most common score; the earliest of equally common ones), ``max``,
``min``, and ``at_least_K``: 1 when at least ``K`` runs reached the metric's threshold, else 0 (inspect-ai's
``at_least(k)`` with the threshold as the value a run must reach). pass@k and pass^k are separate and unchanged.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence

__all__ = ["REDUCERS", "at_least_k", "check_reducer", "reduce_scores"]

REDUCERS = ("mean", "median", "mode", "max", "min", "at_least_K")
"""The reducer names (``at_least_K`` with ``K`` a whole number >= 1, e.g. ``at_least_2``)."""

_AT_LEAST = re.compile(r"at_least_([1-9][0-9]*)")


def check_reducer(name: str) -> str:
    """``name`` when it is a reducer; else ``ValueError`` listing the valid names."""
    if name in REDUCERS[:-1] or _AT_LEAST.fullmatch(name):
        return name
    raise ValueError(f"unknown reducer {name!r}: expected one of {', '.join(REDUCERS)} (e.g. at_least_2)")


def at_least_k(name: str | None) -> int | None:
    """``K`` of an ``at_least_K`` reducer, else ``None``."""
    found = _AT_LEAST.fullmatch(name or "")
    return int(found.group(1)) if found else None


def reduce_scores(name: str | None, scores: Sequence[float], threshold: float) -> float | None:
    """The one score of ``scores`` (a case's runs) under reducer ``name`` (``None``: mean); ``None`` without
    scores."""
    if not scores:
        return None
    if name is None or name == "mean":
        return sum(scores) / len(scores)
    if name == "median":
        return float(statistics.median(scores))
    if name == "mode":
        return float(Counter(scores).most_common(1)[0][0])
    if name == "max":
        return float(max(scores))
    if name == "min":
        return float(min(scores))
    k = at_least_k(check_reducer(name))
    assert k is not None
    return 1.0 if sum(1 for s in scores if s >= threshold) >= k else 0.0
