"""Latency percentiles of a result, computed as agentevals computes them: p50 is the median, p95 and p99 the
values at index ``int(n * 0.95)`` / ``int(n * 0.99)`` of the sorted durations (the only value when there is one)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from ._usage import format_duration

__all__ = ["LatencyPercentiles", "latency_percentiles", "latency_text"]


@dataclass(frozen=True, slots=True)
class LatencyPercentiles:
    """p50 / p95 / p99 of ``count`` durations, in seconds."""

    count: int
    p50: float
    p95: float
    p99: float

    @property
    def values(self) -> tuple[float, float, float]:
        """``(p50, p95, p99)``."""
        return (self.p50, self.p95, self.p99)


def latency_percentiles(durations: Iterable[float | None]) -> LatencyPercentiles | None:
    """The percentiles of the durations that were recorded (``None`` ones are left out); ``None`` when none was."""
    values = sorted(d for d in durations if d is not None)
    if not values:
        return None
    n = len(values)
    return LatencyPercentiles(n, statistics.median(values), values[int(n * 0.95)], values[int(n * 0.99)])


def latency_text(latency: LatencyPercentiles) -> str:
    """``p50 1.20 s · p95 3.40 s · p99 3.40 s (12 cases)``."""
    return (
        f"p50 {format_duration(latency.p50)} · p95 {format_duration(latency.p95)} · "
        f"p99 {format_duration(latency.p99)} ({latency.count} case{'s' if latency.count != 1 else ''})"
    )
