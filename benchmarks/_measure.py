"""Measurement plumbing shared by agentgauge's side and the peers' side (stdlib only).

Every measurement script prints exactly one line starting with ``RESULT_MARK`` followed by a JSON object; the harness
reads that line and ignores everything else the frameworks may print or log.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

RESULT_MARK = "@@BENCH-RESULT@@ "
METRICS = ("tool_trajectory_avg_score", "response_match_score")
# Scoring passes in the order each process runs them. The first pass is the one a real run makes (per-word caches
# cold); the later ones show the steady state and the per-metric split.
PASSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("both", METRICS),
    ("trajectory", METRICS[:1]),
    ("rouge", METRICS[1:]),
    ("both_warm", METRICS),
)
# Text for the untimed warm-up call: none of these words occur in generated data.
WARM_UP_TEXT = "zebra quixotic xylophone jubilant"


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def current_rss_mb() -> float:
    """Current resident set size of this process, in MB."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6 * (1e6 / 2**20)


def emit(payload: dict[str, Any]) -> None:
    """Print the result line the harness looks for."""
    sys.stdout.write(RESULT_MARK + json.dumps(payload) + "\n")
    sys.stdout.flush()


def median(values: Sequence[float]) -> float:
    """The median of a non-empty sequence."""
    return float(statistics.median(values))


def timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Run ``fn`` ``repeats`` times; return every wall time (s) and the last return value."""
    times: list[float] = []
    value: Any = None
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return times, value


def fifo_ideal(durations: Sequence[float], parallelism: int) -> float:
    """Makespan of dispatching jobs in order to the first free of ``parallelism`` workers, with zero overhead.

    This is the best any FIFO scheduler can do with these job lengths; at ``parallelism >= len(durations)`` it is the
    longest job, and for equal jobs it is ``ceil(n / parallelism) * length``.
    """
    if not durations:
        return 0.0
    workers = [0.0] * min(parallelism, len(durations))
    heapq.heapify(workers)
    for length in durations:
        heapq.heappush(workers, heapq.heappop(workers) + length)
    return max(workers)


def mean_case_scores(per_invocation: Sequence[Sequence[float | None]]) -> float | None:
    """Mean over cases of each case's mean invocation score (cases without scores are skipped)."""
    case_means = []
    for scores in per_invocation:
        real = [s for s in scores if s is not None]
        if real:
            case_means.append(math.fsum(real) / len(real))
    return math.fsum(case_means) / len(case_means) if case_means else None


@dataclass(frozen=True)
class ChildRun:
    """One finished child process: wall time, its peak RSS and its exit code."""

    wall_s: float
    peak_rss_mb: float
    returncode: int


def run_child(cmd: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> ChildRun:
    """Run ``cmd`` with output discarded and report its wall time and peak RSS (via ``wait4``)."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return ChildRun(wall, usage.ru_maxrss / 1024.0, proc.returncode)
