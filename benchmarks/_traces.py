"""The ``traces`` measure: ``agentgauge eval --traces`` over large Jaeger files, peak RSS and spans per CPU-second.

Input: ``gen_agentevals_traces.py`` (agentevals' four Jaeger samples, copied with new trace and session ids; ~120 KB
and ~92 spans per trace). For each size (``--n-traces``, default 1,000 / 10,000 / 100,000) one fresh process runs
``agentgauge eval --traces FILE --eval-set eval_set_helm.json:helm_list_releases --output-dir TMP`` (the two ADK
default metrics), started by a small launcher that reports the child's wall time, peak RSS and CPU time (user +
system, from ``wait4``). Spans per CPU-second = spans in the file / that CPU time (reading, matching, scoring and
writing the result: the whole command).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import gen_agentevals_traces
from _harness import Config, MeasureError

_BIN = Path(sys.executable).with_name("agentgauge")
_MARK = "@@BENCH-TRACES@@ "
_LAUNCHER = """
import os, sys, time
argv = sys.argv[1:]
start = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
sys.stderr.write("%s%r %r %r %d\\n" % (MARK, wall, usage.ru_maxrss / 1024.0, usage.ru_utime + usage.ru_stime,
                                      os.waitstatus_to_exitcode(status)))
"""


def _spans_per_trace() -> list[int]:
    return [
        len(json.loads((gen_agentevals_traces.SAMPLES_DIR / name).read_text(encoding="utf-8"))["data"][0]["spans"])
        for name in gen_agentevals_traces.SAMPLES
    ]


def run_traces_eval(traces: Path, evalset: Path, out: Path) -> dict[str, Any]:
    """One fresh ``agentgauge eval --traces`` (output discarded): wall s, peak RSS MB, CPU s and exit code."""
    cmd = [str(_BIN), "eval", "--traces", str(traces), "--eval-set", f"{evalset}:{gen_agentevals_traces.CASE}",
           "--output-dir", str(out)]  # fmt: skip
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    launcher = [sys.executable, "-S", "-c", f"MARK = {_MARK!r}\n" + _LAUNCHER, *cmd]
    done = subprocess.run(launcher, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    for line in reversed(done.stderr.splitlines()):
        if line.startswith(_MARK):
            wall, rss, cpu, code = line[len(_MARK) :].split()
            if int(code) not in (0, 1):
                raise MeasureError(f"agentgauge eval --traces exited {code}: {' '.join(cmd)}")
            return {"wall_s": float(wall), "peak_rss_mb": float(rss), "cpu_s": float(cpu), "exit": int(code)}
    raise MeasureError(f"launcher failed: {done.stderr.strip()[-300:]}")


def measure_traces(cfg: Config) -> dict[str, Any]:
    """Peak RSS and spans per CPU-second of ``eval --traces`` for each size of ``cfg.n_traces``."""
    folder = cfg.data_dir / "agentevals_traces"
    per_trace = _spans_per_trace()
    rows = []
    for n in cfg.n_traces:
        traces, evalset = gen_agentevals_traces.write(folder, n)
        spans = sum(per_trace[i % len(per_trace)] for i in range(n))
        out = Path(tempfile.mkdtemp(prefix="agentgauge-traces-bench-"))
        try:
            ran = run_traces_eval(traces, evalset, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        rows.append({
            "n_traces": n, "input_mb": traces.stat().st_size / 1e6, "spans": spans, **ran,
            "spans_per_cpu_s": spans / ran["cpu_s"] if ran["cpu_s"] else None,
        })  # fmt: skip
        print(f"[bench] traces n={n}: {rows[-1]}", flush=True)
    return {"runs": rows}
