"""Measures of the command line itself: ``agentgauge eval`` end to end against the FIFO ideal, and at scale.

- **cli**: ``agentgauge eval replay_agent.py <set> --parallelism P`` in a fresh process (N = ``--n-e2e`` cases,
  ``--latency`` per turn, both metrics), minus the start-up of ``agentgauge --help`` measured in the same run; the
  ratio to the FIFO ideal is what the SPEC's end-to-end targets ask of the API, now asked of the CLI.
- **scale**: a trace-mode set of ``--n-scale`` cases (``gen_trace.py``) through ``agentgauge eval`` and then
  ``agentgauge show``: wall time, peak RSS, result file size.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import gen_trace
from _harness import BENCH_DIR, Config, MeasureError, dataset
from _measure import fifo_ideal, median, run_child

_BIN = Path(sys.executable).with_name("agentgauge")


def _native_metrics(folder: Path) -> Path:
    path = folder / "bench.metrics.json"
    path.write_text(json.dumps(gen_trace.NATIVE_METRICS, indent=2) + "\n", encoding="utf-8")
    return path


def _replay_script(actual_native: Path, out: Path) -> Path:
    doc = json.loads(actual_native.read_text(encoding="utf-8"))
    script = {
        inv["userContent"]["content"]: {"answer": inv["finalResponse"]["content"], "tools": inv.get("tools", [])}
        for case in doc["evalCases"]
        for inv in case["conversation"]
    }
    out.write_text(json.dumps(script), encoding="utf-8")
    return out


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def cli_commands(cfg: Config) -> dict[str, Any]:
    """The data files and the exact commands of the cli measure (also printed for reruns)."""
    m = dataset(cfg, cfg.n_e2e, cfg.turns)
    folder = Path(m["files"]["expected.native"]["path"]).parent
    replay = _replay_script(Path(m["files"]["actual.native"]["path"]), folder / "replay.json")
    return {"manifest": m, "metrics": _native_metrics(folder), "replay": replay}


def measure_cli(cfg: Config) -> dict[str, Any]:
    """Median wall of ``agentgauge eval`` minus median ``agentgauge --help``, against the FIFO ideal, per P."""
    setup = cli_commands(cfg)
    m = setup["manifest"]
    durations = [k * cfg.latency for k in m["invocations_per_case"]]
    env = _env(BENCH_REPLAY=str(setup["replay"]), BENCH_LATENCY=str(cfg.latency))
    rows = []
    for p in cfg.parallelism:
        out = Path(tempfile.mkdtemp(prefix="agentgauge-cli-bench-"))
        cmd = [str(_BIN), "eval", str(BENCH_DIR / "replay_agent.py"), m["files"]["expected.native"]["path"],
               "--metrics", str(setup["metrics"]), "--parallelism", str(p), "--output-dir", str(out)]  # fmt: skip
        try:
            run_child(cmd, env=env)  # warm the file cache; not counted
            helps, evals, rss, cpu = [], [], [], []
            for _ in range(cfg.repeats):
                helps.append(run_child([str(_BIN), "--help"]).wall_s)
                run = run_child(cmd, env=env)
                if run.returncode not in (0, 1):
                    raise MeasureError(f"agentgauge eval exited {run.returncode}: {' '.join(cmd)}")
                evals.append(run.wall_s)
                rss.append(run.peak_rss_mb)
                cpu.append(run.cpu_s)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        ideal = fifo_ideal(durations, p)
        wall, startup = median(evals), median(helps)
        rows.append({
            "parallelism": p, "ideal_s": ideal, "eval_wall_s": wall, "help_wall_s": startup,
            "net_s": wall - startup, "net_over_ideal": (wall - startup) / ideal, "wall_over_ideal": wall / ideal,
            "peak_rss_mb": median(rss), "eval_walls_s": evals, "help_walls_s": helps, "eval_cpu_s": median(cpu),
            "client_cpu_ms_per_turn": 1000 * median(cpu) / m["n_invocations"],
        })  # fmt: skip
    return {"n_cases": m["n_cases"], "n_invocations": m["n_invocations"], "latency_s": cfg.latency, "runs": rows}


def measure_scale(cfg: Config) -> dict[str, Any]:
    """``agentgauge eval`` of a large trace-mode set, then ``show`` of its result: wall, peak RSS, file size."""
    folder = cfg.data_dir / "trace"
    evalset, metrics = gen_trace.write(folder, cfg.n_scale, cfg.seed)
    out = Path(tempfile.mkdtemp(prefix="agentgauge-scale-bench-"))
    try:
        eval_cmd = [str(_BIN), "eval", str(evalset), "--metrics", str(metrics), "--parallelism", "16",
                    "--output-dir", str(out)]  # fmt: skip
        ran = run_child(eval_cmd)
        if ran.returncode not in (0, 1):
            raise MeasureError(f"agentgauge eval exited {ran.returncode}: {' '.join(eval_cmd)}")
        (result,) = out.rglob("*.evalset_result.json")
        show = run_child([str(_BIN), "show", str(result)])
        size = result.stat().st_size
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return {
        "n_cases": cfg.n_scale,
        "evalset_mb": evalset.stat().st_size / 1e6,
        "result_mb": size / 1e6,
        "eval": {"wall_s": ran.wall_s, "peak_rss_mb": ran.peak_rss_mb, "exit": ran.returncode},
        "show": {"wall_s": show.wall_s, "peak_rss_mb": show.peak_rss_mb, "exit": show.returncode},
    }
