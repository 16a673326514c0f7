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
    """One finished child process: wall time, its peak RSS, its exit code and its CPU time (user + system)."""

    wall_s: float
    peak_rss_mb: float
    returncode: int
    cpu_s: float = 0.0


# Linux carries the RSS high-water mark of the exec'ing process into the new program's ru_maxrss, so a child started
# straight from the (possibly large) harness would report at least the harness's size. Every measured command is
# therefore started by this small launcher (``python -S``, ~10 MB): the reported peak is max(launcher, command),
# which is the command's own peak for any Python program.
LAUNCHER = """
import os, sys, time
argv = sys.argv[1:]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
report = (wall, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
sys.stderr.write("%s%r %r %d %r\\n" % (CHILD_MARK, *report))
"""
CHILD_MARK = "@@BENCH-CHILD@@ "


def launcher_cmd(cmd: Sequence[str]) -> list[str]:
    """``cmd`` wrapped in the launcher (see ``LAUNCHER``)."""
    return [sys.executable, "-S", "-c", f"CHILD_MARK = {CHILD_MARK!r}\n" + LAUNCHER, *cmd]


def parse_child(stderr: str) -> ChildRun | None:
    """The launcher's report from a captured stderr (``None`` when it is missing)."""
    for line in reversed(stderr.splitlines()):
        if line.startswith(CHILD_MARK):
            wall, rss, code, cpu = line[len(CHILD_MARK) :].split()
            return ChildRun(float(wall), float(rss), int(code), float(cpu))
    return None


def run_child(cmd: Sequence[str], *, env: dict[str, str] | None = None, cwd: str | None = None) -> ChildRun:
    """Run ``cmd`` with its output discarded and report its wall time and peak RSS (measured by the launcher).

    The child may write and use bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped from its environment), as an
    installed package's commands do: the untimed warm-up run writes them, the timed runs load them.
    """
    child_env = dict(os.environ if env is None else env)
    child_env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        launcher_cmd(cmd), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=child_env, cwd=cwd
    )
    child = parse_child(done.stderr)
    if child is None:
        raise RuntimeError(f"launcher failed for {list(cmd)}: {done.stderr.strip()[-300:]}")
    return child
