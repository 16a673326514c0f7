"""The optimise benchmark, two measures in fresh processes (``optimize_world.py`` has both worlds):

- **adk**: ``agentgauge optimize`` and ``adk optimize`` side by side on one ADK app, one sampler config, one GEPA
  config and the same stub models (a scripted ``BaseLlm`` taking ``--latency`` seconds per call, and a loopback
  reflection model). Each repeat runs both commands alternately (so background load hits both), with the same
  command line; agentgauge also gets ``--parallelism`` (ADK's evaluation runs 4 cases at a time, its default).
  Reported: each side's median wall time and validation score (ADK: GEPA's best validation score; agentgauge: the
  candidate's pass rate on fresh validation runs, and the gate's verdict).
- **openai**: ``agentgauge optimize --optimizer gepa`` of an ``OpenAIAgent`` whose model is the loopback server
  (``--latency`` per call), at ``--parallelism``.

For each agentgauge run, its candidate evaluations against their ideal: per evaluation, ``ceil(case runs not
answered from the cache / P) x model calls per case run x latency``, summed over the search's and the gate's
evaluations (target <= 1.2x), with and without the first evaluation (which also pays the agent framework's one-time
imports: ADK loads ~700 modules on its first run). The machine's load average is recorded before and after: the
machine may be shared.

    .venv/bin/python benchmarks/optimize_bench.py [--cases 16] [--latency 0.2] [--parallelism 16] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from optimize_world import (
    ADK_HINT,
    REFLECTION,
    WorldServer,
    adk_command,
    adk_details,
    split_options,
    write_adk_world,
    write_openai_world,
)

BIN = Path(sys.executable).parent
RESULTS = Path(__file__).resolve().parent / "results"


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[0]} failed (exit {done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return seconds, done


def _adk_score(stdout: str) -> dict[str, Any]:
    details = adk_details(stdout)
    best = details["best_idx"]
    scores = details["val_aggregate_scores"]
    calls = details["total_metric_calls"]
    return {"baseline": scores[0], "best": scores[best], "metric_calls": calls, "hint_found": ADK_HINT in stdout}


def _calling(evaluations: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int, int]]:
    """The evaluations that made model calls, each with its fresh case runs (not answered from the cache) and the
    model calls of one such run."""
    found = []
    for e in evaluations:
        fresh = e["caseRuns"] - e.get("cachedRuns", 0)
        if fresh > 0 and e.get("modelCalls"):
            found.append((e, fresh, round(e["modelCalls"] / fresh)))
    return found


def _ideal(evaluations: list[dict[str, Any]], latency: float, parallelism: int) -> tuple[float, float]:
    """(measured, ideal) seconds of the evaluations that made model calls."""
    measured = ideal = 0.0
    for e, fresh, per_run in _calling(evaluations):
        measured += e["seconds"]
        ideal += math.ceil(fresh / parallelism) * per_run * latency
    return measured, ideal


def _floor(
    kind: str, evaluations: list[dict[str, Any]], args: argparse.Namespace, env: dict[str, str], agent: Path | None
) -> float:
    """The seconds ``optimize_floor.py`` takes for the same model calls, in the same shapes, without agentgauge."""
    shapes = [[fresh, per_run] for _, fresh, per_run in _calling(evaluations)]
    argv = [sys.executable, str(Path(__file__).resolve().parent / "optimize_floor.py"), kind, json.dumps(shapes)]
    argv += [str(args.parallelism), *([str(agent)] if agent is not None else [])]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800, check=True)
    return float(json.loads(done.stdout)["total"])


def _ours(
    seconds: float, work: Path, args: argparse.Namespace, env: dict[str, str], agent: Path | None = None
) -> dict[str, Any]:
    """What one agentgauge run reported, and its evaluations against their ideal and their floor (the first
    evaluation, which also pays the one-time imports, left out of the floor's)."""
    (audit,) = (work / ".agentgauge" / "optimize").glob("*/audit.json")
    report = json.loads(audit.read_text())
    evaluations = report["evaluations"]
    measured, ideal = _ideal(evaluations, args.latency, args.parallelism)
    later, later_ideal = _ideal(evaluations[1:], args.latency, args.parallelism)
    floor = _floor("openai" if agent is None else "adk", evaluations[1:], args, env, agent)
    validation = report["evidence"].get("validation", {})
    return {
        "seconds": seconds,
        "baseline": report["baseline"]["validation"]["passRate"],
        "candidate": validation.get("candidate", {}).get("passRate"),
        "accepted": report["accepted"],
        "metric_calls": report["spent"]["metricCalls"],
        "gate_case_runs": report["spent"]["gateCaseRuns"],
        "evaluations": len(evaluations),
        "evaluation_seconds": measured,
        "ideal_seconds": ideal,
        "ratio_to_ideal": measured / ideal if ideal else None,
        "ratio_to_ideal_after_first": later / later_ideal if later_ideal else None,
        "floor_seconds_after_first": floor,
        "floor_to_ideal": floor / later_ideal if later_ideal else None,
        "ratio_to_floor_after_first": later / floor if floor else None,
    }


def _environment(server: WorldServer, args: argparse.Namespace) -> dict[str, str]:
    urls = {"CAPITALS_MODEL_URL": server.base_url, "OPENAI_BASE_URL": server.base_url}
    env = {**os.environ, **urls, "CAPITALS_LATENCY": str(args.latency), "CAPITALS_KEY": "bench"}
    env.pop("OPENAI_API_KEY", None)
    return env


def _adk_repeat(args: argparse.Namespace, server: WorldServer, work: Path) -> dict[str, Any]:
    paths = write_adk_world(work, max_metric_calls=args.metric_calls, cases=args.cases)
    env = _environment(server, args)
    adk_seconds, adk = _run([str(BIN / "adk"), *adk_command(paths)], work, env)
    ours_argv = [str(BIN / "agentgauge"), *adk_command(paths), "--parallelism", str(args.parallelism)]
    ours_seconds, _ = _run(ours_argv, work, env)
    ours = _ours(ours_seconds, work, args, env, paths["agent"])
    return {"adk": {"seconds": adk_seconds, **_adk_score(adk.stdout)}, "agentgauge": ours}


def _openai_repeat(args: argparse.Namespace, server: WorldServer, work: Path) -> dict[str, Any]:
    paths = write_openai_world(work / "world", cases=args.cases)
    argv = [str(BIN / "agentgauge"), "optimize", str(paths["agent"]), *split_options(paths)]
    argv += ["--reflection-model", REFLECTION]
    argv += ["--budget", f"calls={args.metric_calls}", "--parallelism", str(args.parallelism)]
    env = _environment(server, args)
    seconds, _ = _run(argv, work, env)
    return {"agentgauge": _ours(seconds, work, args, env)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=16, help="cases per split (at most 16)")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per model call")
    parser.add_argument("--parallelism", type=int, default=16)
    parser.add_argument("--metric-calls", type=int, default=60, help="GEPA's max_metric_calls")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    load_before = os.getloadavg()
    runs: dict[str, list[dict[str, Any]]] = {"adk": [], "openai": []}
    with WorldServer(latency=args.latency) as server:
        for index in range(args.repeats):
            for name, repeat in (("adk", _adk_repeat), ("openai", _openai_repeat)):
                work = Path(tempfile.mkdtemp(prefix="agentgauge-optimize-bench-"))
                try:
                    runs[name].append(repeat(args, server, work))
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                print(f"{name} repeat {index + 1}: {json.dumps(runs[name][-1])}", file=sys.stderr)
    summary = _summary(runs)
    load = {"before": load_before, "after": os.getloadavg()}
    document = {"settings": vars(args), "load_average": load, "cpu_count": os.cpu_count(), "runs": runs}
    document["summary"] = summary
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"optimize-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    path.write_text(json.dumps(document, indent=2))
    print(json.dumps(document["summary"], indent=2))
    print(f"results: {path}")
    met = summary["adk"]["faster_than_adk"] and summary["openai"]["ratio_to_ideal"] <= 1.2
    return 0 if met else 1


def _median(runs: list[dict[str, Any]], side: str, key: str) -> float:
    return round(float(statistics.median(r[side][key] for r in runs)), 3)


def _summary(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    adk, ours = _median(runs["adk"], "adk", "seconds"), _median(runs["adk"], "agentgauge", "seconds")
    first = runs["adk"][0]
    summary: dict[str, Any] = {
        "adk": {
            "adk_seconds": adk,
            "agentgauge_seconds": ours,
            "faster_than_adk": ours < adk,
            "speedup": round(adk / ours, 2),
            "adk_validation": [first["adk"]["baseline"], first["adk"]["best"]],
            "agentgauge_validation": [first["agentgauge"]["baseline"], first["agentgauge"]["candidate"]],
            "agentgauge_accepted": all(r["agentgauge"]["accepted"] for r in runs["adk"]),
        }
    }
    for name in ("adk", "openai"):
        part = summary.setdefault(name, {})
        part["ratio_to_ideal"] = _median(runs[name], "agentgauge", "ratio_to_ideal")
        for key in ("ratio_to_ideal_after_first", "floor_to_ideal", "ratio_to_floor_after_first"):
            part[key] = _median(runs[name], "agentgauge", key)
    summary["openai"]["agentgauge_seconds"] = _median(runs["openai"], "agentgauge", "seconds")
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
