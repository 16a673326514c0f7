"""The measurements: each one runs agentgauge and (optionally) the peers as subprocesses on the same files."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _profile
import gen
from _measure import RESULT_MARK, fifo_ideal, launcher_cmd, median, run_child
from _peers import peer_python

BENCH_DIR = Path(__file__).resolve().parent
SCORE_TOLERANCE = 1e-12
# Means of means are summed in different orders by different frameworks; 1e-9 still catches any real difference.
MEAN_TOLERANCE = 1e-9
E2E_PROJECTIONS = ("nocopy-stores", "gc-freeze")
E2E_SIDES = ("agentgauge", "projection_nocopy_stores", "projection_gc_freeze", "adk", "pydantic-evals")
METRIC_SETS = {
    "traj": "tool_trajectory_avg_score",
    "traj+rouge": "tool_trajectory_avg_score,response_match_score",
}


class MeasureError(RuntimeError):
    """A measurement subprocess failed or printed no result line."""


class PartialMeasure(MeasureError):
    """Some configurations of a measure failed; ``partial`` holds what the others measured."""

    def __init__(self, message: str, partial: dict[str, Any]) -> None:
        super().__init__(message)
        self.partial = partial


@dataclass
class Config:
    """Everything a run needs; ``run.py`` builds it from the command line."""

    quick: bool
    peers: bool
    repeats: int
    startup_repeats: int
    n_score: int
    n_load: int
    n_e2e: int
    seed: int
    latency: float
    parallelism: tuple[int, ...]
    data_dir: Path
    results_dir: Path
    only: frozenset[str]
    n_scale: int = 100_000
    turns: int | None = None  # turns per case of the cli and remote measures (None: 1-3 at random)
    remote_modes: tuple[str, ...] = ("adk-lite", "a2a-lite", "a2a", "adk")
    n_traces: tuple[int, ...] = (1000, 10_000, 100_000)
    projections: bool = False
    profile: bool = False
    profiles: dict[str, str] = field(default_factory=dict)


def dataset(cfg: Config, n: int, turns: int | None = None) -> dict[str, Any]:
    """The generated files for ``n`` cases, ``turns`` turns each (default 1-3; reused when a matching manifest is
    already on disk)."""
    folder = cfg.data_dir / (f"n{n}_s{cfg.seed}" + (f"_t{turns}" if turns else ""))
    manifest_path = folder / f"gauge_n{n}_s{cfg.seed}.manifest.json"
    if manifest_path.exists():
        manifest: dict[str, Any] = json.loads(manifest_path.read_text())
        if all(Path(f["path"]).exists() for f in manifest["files"].values()):
            return manifest
    return gen.write(folder, n, cfg.seed, turns=turns)


def call(
    python: Path | str, script: str, args: list[str], *, timeout: float = 1800, profile: Path | None = None
) -> Any:
    """Run ``script`` (a file in this folder) under ``python`` and return the JSON it emitted."""
    cmd = [str(python), str(BENCH_DIR / script), *args]
    if profile is not None:
        cmd = _profile.wrap(cmd, profile)
    done = subprocess.run(launcher_cmd(cmd), capture_output=True, text=True, timeout=timeout, cwd=BENCH_DIR)
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_MARK):
            return json.loads(line[len(RESULT_MARK) :])
    tail = "\n".join(done.stderr.strip().splitlines()[-12:])
    raise MeasureError(f"{script} {args[0]} exited without a result:\n{tail}")


def _ours(cfg: Config, args: list[str], profile_name: str | None = None) -> Any:
    """One agentgauge measurement; with ``--profile``, first an extra, uncounted run under the profiler."""
    if cfg.profile and profile_name and profile_name not in cfg.profiles:
        out = cfg.results_dir / "profiles" / profile_name
        out.parent.mkdir(parents=True, exist_ok=True)
        call(sys.executable, "ours.py", args, profile=out)
        cfg.profiles[profile_name] = _profile.summarize(out, args[0])
    return call(sys.executable, "ours.py", args)


def _flatten(scores: dict[str, list[list[float | None]]]) -> dict[str, list[float | None]]:
    return {k: [s for case in v for s in case] for k, v in scores.items()}


def compare_scores(ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Per-invocation agreement of two score dumps: shapes, max abs difference, first mismatches."""
    mine, other = _flatten(ours), _flatten(theirs)
    report: dict[str, Any] = {"ok": True, "metrics": {}}
    for name in sorted(set(mine) | set(other)):
        a, b = mine.get(name, []), other.get(name, [])
        entry: dict[str, Any] = {"n": len(a), "n_peer": len(b)}
        if len(a) != len(b) or [len(c) for c in ours.get(name, [])] != [len(c) for c in theirs.get(name, [])]:
            entry.update(ok=False, reason="different numbers of per-invocation scores")
        else:
            diffs = [
                (i, x, y)
                for i, (x, y) in enumerate(zip(a, b, strict=True))
                if (x is None) != (y is None) or (x is not None and y is not None and abs(x - y) > SCORE_TOLERANCE)
            ]
            finite = [abs(x - y) for x, y in zip(a, b, strict=True) if x is not None and y is not None]
            entry.update(ok=not diffs, max_abs_diff=max(finite, default=0.0), mismatches=len(diffs))
            if diffs:
                entry["first_mismatches"] = [{"index": i, "agentgauge": x, "peer": y} for i, x, y in diffs[:5]]
        report["metrics"][name] = entry
        report["ok"] = report["ok"] and entry["ok"]
    return report


def measure_scoring(cfg: Config) -> dict[str, Any]:
    """Scoring throughput of both metrics (ADK dialect), after checking per-invocation scores agree."""
    m = dataset(cfg, cfg.n_score)
    files = m["files"]
    args = [
        "score",
        "--expected",
        files["expected.adk"]["path"],
        "--actual",
        files["actual.adk"]["path"],
        "--config",
        m["test_config"],
    ]
    out: dict[str, Any] = {"n_cases": m["n_cases"], "n_invocations": m["n_invocations"]}
    ours_runs: list[dict[str, Any]] = []
    adk_runs: list[dict[str, Any]] = []
    # Alternate the sides so that load from other processes on a shared machine hits both alike.
    for i in range(cfg.repeats):
        ours_runs.append(_ours(cfg, args, "score" if i == 0 else None))
        if cfg.peers:
            adk_runs.append(call(peer_python(), "peer_adk.py", args))
    out["agentgauge"] = _speed(ours_runs)
    out["mean_case_scores"] = ours_runs[0]["mean_case_scores"]
    out["deterministic"] = all(r["scores"] == ours_runs[0]["scores"] for r in ours_runs)
    if cfg.peers:
        out["adk"] = _speed(adk_runs)
        out["verification"] = compare_scores(ours_runs[0]["scores"], adk_runs[0]["scores"])
        out["peer_mean_case_scores"] = adk_runs[0]["mean_case_scores"]
        if not out["verification"]["ok"]:
            out["refused"] = "agentgauge's per-invocation scores differ from ADK's; no speed is reported"
            for side in ("agentgauge", "adk"):
                out[side] = {"peak_rss_mb": out[side]["peak_rss_mb"]}
    else:
        out["verification"] = {"ok": None, "reason": "peers not run: scores not cross-checked"}
    return out


def _speed(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median seconds per pass over fresh processes, and the cases/s they mean."""
    n = runs[0]["n_cases"]
    seconds = {k: median([r["seconds"][k] for r in runs]) for k in runs[0]["seconds"]}
    return {
        "seconds": seconds,
        "cases_per_s": {k: (n / v if v > 0 else math.inf) for k, v in seconds.items()},
        "peak_rss_mb": median([r["peak_rss_mb"] for r in runs]),
    }


def _load_summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = median([r["seconds"] for r in runs])
    size = runs[0]["bytes"]
    return {
        "bytes": size,
        "seconds": seconds,
        "mb_per_s": size / 1e6 / seconds,
        "peak_rss_mb": median([r["peak_rss_mb"] for r in runs]),
        "baseline_rss_mb": median([r["baseline_rss_mb"] for r in runs]),
        "n_cases": runs[0]["n_cases"],
        "n_invocations": runs[0]["n_invocations"],
    }


def measure_load(cfg: Config) -> dict[str, Any]:
    """Parse + validate speed and peak RSS of one large file, each load in a fresh process."""
    m = dataset(cfg, cfg.n_load)
    adk_file, native_file = m["files"]["expected.adk"]["path"], m["files"]["expected.native"]["path"]
    runs: dict[str, list[dict[str, Any]]] = {"agentgauge_adk_file": [], "agentgauge_native_file": [], "adk": []}
    for i in range(cfg.repeats):
        runs["agentgauge_adk_file"].append(_ours(cfg, ["load", "--path", adk_file], "load" if i == 0 else None))
        runs["agentgauge_native_file"].append(_ours(cfg, ["load", "--path", native_file]))
        if cfg.peers:
            runs["adk"].append(call(peer_python(), "peer_adk.py", ["load", "--path", adk_file]))
    out: dict[str, Any] = {"n_cases": m["n_cases"]}
    out.update({k: _load_summary(v) for k, v in runs.items() if v})
    return out


def measure_e2e(cfg: Config) -> dict[str, Any]:
    """Wall time of a full run (agent + scoring) against the FIFO ideal, per parallelism and metric set."""
    m = dataset(cfg, cfg.n_e2e)
    files = m["files"]
    durations = [k * cfg.latency for k in m["invocations_per_case"]]
    rows: list[dict[str, Any]] = []
    errors: list[str] = []
    for metrics_label, metrics in METRIC_SETS.items():
        for p in cfg.parallelism:
            base = ["e2e", "--latency", str(cfg.latency), "--parallelism", str(p), "--metrics", metrics]
            adk_files = ["--expected", files["expected.adk"]["path"], "--actual", files["actual.adk"]["path"]]
            native = ["--expected", files["expected.native"]["path"], "--actual", files["actual.native"]["path"]]
            config = ["--config", m["test_config"]]
            row: dict[str, Any] = {"metrics": metrics_label, "parallelism": p, "ideal_s": fifo_ideal(durations, p)}
            sides: list[tuple[str, Path | str, str, list[str]]] = [
                ("agentgauge", sys.executable, "ours.py", base + native + config)
            ]
            if cfg.projections:
                for projection in E2E_PROJECTIONS:
                    args = [*base, *native, *config, "--projection", projection]
                    sides.append((f"projection_{projection.replace('-', '_')}", sys.executable, "ours.py", args))
            if cfg.peers:
                sides.append(("adk", peer_python(), "peer_adk.py", base + adk_files + config))
                sides.append(("pydantic-evals", peer_python(), "peer_pydantic_evals.py", base + native))
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name, *_ in sides}
            profile = f"e2e_p{p}_{metrics_label}" if p == max(cfg.parallelism) else None
            try:
                for i in range(cfg.repeats):
                    for name, python, script, args in sides:
                        if name == "agentgauge":
                            runs[name].append(_ours(cfg, args, profile if i == 0 else None))
                        else:
                            runs[name].append(call(python, script, args))
            except MeasureError as exc:  # keep the other configurations; the run still exits non-zero
                row["error"] = str(exc)
                errors.append(f"{metrics_label} P={p}: {exc}")
                rows.append(row)
                continue
            for name, side_runs in runs.items():
                wall = median([r["wall_s"] for r in side_runs])
                row[name] = {
                    "wall_s": wall,
                    "wall_over_ideal": wall / row["ideal_s"],
                    "mean_case_scores": side_runs[-1]["mean_case_scores"],
                    "peak_rss_mb": median([r["peak_rss_mb"] for r in side_runs]),
                }
            row["scores_agree"] = _means_agree(row)
            rows.append(row)
    if errors:
        raise PartialMeasure(
            "; ".join(errors),
            {"n_cases": m["n_cases"], "n_invocations": m["n_invocations"], "latency_s": cfg.latency, "runs": rows},
        )
    return {"n_cases": m["n_cases"], "n_invocations": m["n_invocations"], "latency_s": cfg.latency, "runs": rows}


def _means_agree(row: dict[str, Any]) -> bool:
    sides = [row[k]["mean_case_scores"] for k in E2E_SIDES if k in row]
    return all(
        abs(a[k] - b[k]) <= MEAN_TOLERANCE
        for a in sides
        for b in sides
        for k in set(a) & set(b)
        if a[k] is not None and b[k] is not None
    )


def measure_startup(cfg: Config) -> dict[str, Any]:
    """Process wall time and peak RSS of CLI help and imports (median of several fresh processes)."""
    ours_bin = Path(sys.executable).with_name("agentgauge")
    targets: list[tuple[str, str, list[str]]] = [
        ("agentgauge --help", "agentgauge", [str(ours_bin), "--help"]),
        ("import agentgauge", "agentgauge", [sys.executable, "-c", "import agentgauge"]),
        (
            "import agentgauge eval stack",
            "agentgauge",
            [sys.executable, "-c", "import agentgauge.run._evaluator, agentgauge.evaluators, agentgauge.formats"],
        ),
    ]
    if cfg.peers:
        py = str(peer_python())
        targets += [
            ("import google.adk.evaluation", "adk", [py, "-c", "import google.adk.evaluation"]),
            (
                "import ADK eval stack",
                "adk",
                [py, "-c", "import google.adk.evaluation.local_eval_service, google.adk.runners"],
            ),
            ("import pydantic_evals", "pydantic-evals", [py, "-c", "import pydantic_evals"]),
        ]
    rows = []
    for label, framework, cmd in targets:
        try:
            run_child(cmd)  # warm the file cache; not counted
            runs = [run_child(cmd) for _ in range(cfg.startup_repeats)]
        except RuntimeError as exc:  # the command could not be started at all
            raise MeasureError(f"start-up {label!r}: {exc}") from None
        rows.append(
            {
                "target": label,
                "framework": framework,
                "wall_s": median([r.wall_s for r in runs]),
                "peak_rss_mb": median([r.peak_rss_mb for r in runs]),
                "ok": all(r.returncode == 0 for r in runs),
            }
        )
    return {"runs": rows}
