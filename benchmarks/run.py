"""Benchmark agentgauge against Google ADK and pydantic-evals on the same generated data, in one run.

    python benchmarks/run.py                   # full run; peers too if benchmarks/.peers/venv exists
    python benchmarks/run.py --install-peers   # create the peer virtualenv first (a few minutes)
    python benchmarks/run.py --quick --no-peers

Scores are cross-checked per invocation before any speed is reported. Results go to
``benchmarks/results/<timestamp>.json`` and ``benchmarks/results/latest.json``; a summary table is printed.
See benchmarks/README.md for what each measure means.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from _cli import measure_cli, measure_scale
from _harness import Config, MeasureError, PartialMeasure, measure_e2e, measure_load, measure_scoring, measure_startup
from _judge import measure_judge
from _machine import describe
from _peers import install_peers, peer_python, peer_versions, peers_available
from _reference import SHARED_GENERATOR, reference_check
from _remote import measure_remote
from _report import render_markdown, render_text, targets
from _serve import measure_serve
from _traces import measure_traces

BENCH_DIR = Path(__file__).resolve().parent
MEASURES = ("scoring", "load", "e2e", "startup", "cli", "scale", "serve", "judge", "traces", "remote")
EXIT_REFUSED = 3


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one repeat (a smoke run, not a measurement)")
    peers = p.add_mutually_exclusive_group()
    peers.add_argument("--peers", dest="peers", action="store_true", default=None, help="require the peers")
    peers.add_argument("--no-peers", dest="peers", action="store_false", help="measure agentgauge only")
    p.add_argument("--install-peers", action="store_true", help="install the peers into benchmarks/.peers/venv first")
    p.add_argument("--n", type=int, help="cases for the scoring measure (default 1000; quick 40)")
    p.add_argument("--n-load", type=int, help="cases for the load measure (default 20000; quick 300)")
    p.add_argument("--n-e2e", type=int, help="cases for the end-to-end and cli measures (default 200; quick 24)")
    p.add_argument("--n-scale", type=int, help="cases for the scale measure (default 100000; quick 500)")
    p.add_argument("--n-traces", help="comma list of trace counts for the traces measure (default 1000,10000,100000)")
    p.add_argument("--repeats", type=int, help="repeats per measure, the median is reported (default 3; quick 1)")
    p.add_argument("--startup-repeats", type=int, help="fresh processes per start-up target (default 7; quick 2)")
    p.add_argument("--turns", type=int, help="turns in every case of the cli and remote measures (default 1-3)")
    p.add_argument(
        "--remote-modes", help="comma list of remote_server.py modes for the remote measure (default: all four)"
    )
    p.add_argument("--latency", type=float, help="simulated agent latency per invocation, s (default 0.05)")
    p.add_argument("--parallelism", help="comma list (default 4,16,200; quick 4,16)")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--only", help=f"comma list of measures to run: {','.join(MEASURES)}")
    p.add_argument("--reference-check", action="store_true", help=f"also score the data of {SHARED_GENERATOR}")
    p.add_argument(
        "--projections", action="store_true", help="also time benchmark-only variants of proposed fixes (labelled)"
    )
    p.add_argument("--profile", action="store_true", help="cProfile agentgauge's side; summaries go in the results")
    p.add_argument("--markdown", type=Path, metavar="RESULTS_JSON", help="print a results file as Markdown and exit")
    p.add_argument("--data-dir", type=Path, default=BENCH_DIR / ".data")
    p.add_argument("--results-dir", type=Path, default=BENCH_DIR / "results")
    return p


def _config(args: argparse.Namespace) -> Config:
    q = args.quick

    def pick(value: Any, full: Any, quick: Any) -> Any:
        return value if value is not None else (quick if q else full)

    only = frozenset(s.strip() for s in args.only.split(",")) if args.only else frozenset(MEASURES)
    unknown = only - set(MEASURES)
    if unknown:
        raise SystemExit(f"error: unknown measure(s) {sorted(unknown)}; choose from {', '.join(MEASURES)}")
    parallelism = tuple(int(x) for x in pick(args.parallelism, "4,16,200", "4,16").split(","))
    return Config(
        quick=q,
        peers=bool(args.peers),
        repeats=pick(args.repeats, 3, 1),
        startup_repeats=pick(args.startup_repeats, 7, 2),
        n_score=pick(args.n, 1000, 40),
        n_load=pick(args.n_load, 20000, 300),
        n_e2e=pick(args.n_e2e, 200, 24),
        n_scale=pick(args.n_scale, 100_000, 500),
        n_traces=tuple(int(x) for x in pick(args.n_traces, "1000,10000,100000", "20,80").split(",")),
        seed=args.seed,
        latency=pick(args.latency, 0.05, 0.01),
        parallelism=parallelism,
        data_dir=args.data_dir.resolve(),
        results_dir=args.results_dir.resolve(),
        only=only,
        turns=args.turns,
        remote_modes=tuple(args.remote_modes.split(",")) if args.remote_modes else Config.remote_modes,
        projections=args.projections,
        profile=args.profile,
    )


def _write(doc: dict[str, Any], results_dir: Path) -> Path:
    results_dir.mkdir(parents=True, exist_ok=True)
    raw = (json.dumps(doc, indent=2) + "\n").encode()
    path = results_dir / f"{doc['timestamp'].replace(':', '').replace('-', '')}.json"
    for target in (path, results_dir / "latest.json"):
        tmp = target.with_suffix(".json.tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, target)
    return path


def main(argv: list[str] | None = None) -> int:
    """Run the selected measures, print the summary and write the results files."""
    args = _parser().parse_args(argv)
    if args.markdown:
        print(render_markdown(json.loads(args.markdown.read_text())), end="")
        return 0
    if args.install_peers:
        print(f"installing peers into {peer_python().parent.parent} ...", flush=True)
        install_peers()
    if args.peers is None:
        args.peers = peers_available()
    elif args.peers and not peers_available():
        print("error: the peer virtualenv is missing or broken; run with --install-peers", file=sys.stderr)
        return 2
    cfg = _config(args)
    started = time.perf_counter()
    doc: dict[str, Any] = {
        "schema": 1,
        "timestamp": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H-%M-%SZ"),
        "machine": describe(peer_versions() if cfg.peers else {}),
        "config": {
            "quick": cfg.quick,
            "peers": cfg.peers,
            "repeats": cfg.repeats,
            "startup_repeats": cfg.startup_repeats,
            "n_score": cfg.n_score,
            "n_load": cfg.n_load,
            "n_e2e": cfg.n_e2e,
            "turns": cfg.turns,
            "n_scale": cfg.n_scale,
            "n_traces": list(cfg.n_traces),
            "seed": cfg.seed,
            "latency_s": cfg.latency,
            "parallelism": list(cfg.parallelism),
            "measures": sorted(cfg.only),
            "projections": cfg.projections,
        },
        "measures": {},
        "errors": {},
    }
    steps = [
        ("scoring", measure_scoring),
        ("load", measure_load),
        ("e2e", measure_e2e),
        ("startup", measure_startup),
        ("cli", measure_cli),
        ("scale", measure_scale),
        ("serve", measure_serve),
        ("judge", measure_judge),
        ("traces", measure_traces),
        ("remote", measure_remote),
    ]
    refused = False
    for name, fn in steps:
        if name not in cfg.only or refused:
            continue
        print(f"[bench] {name} ...", flush=True)
        try:
            doc["measures"][name] = fn(cfg)
        except MeasureError as exc:
            if isinstance(exc, PartialMeasure):
                doc["measures"][name] = exc.partial
            doc["errors"][name] = str(exc)
            print(f"[bench] {name} failed: {exc}", file=sys.stderr)
            continue
        if name == "scoring" and doc["measures"][name].get("refused"):
            refused = True
    if args.reference_check:
        print("[bench] reference check ...", flush=True)
        doc["reference_check"] = reference_check(cfg)
    if cfg.profiles:
        doc["profiles"] = cfg.profiles
    doc["targets"] = targets(doc)
    doc["elapsed_s"] = round(time.perf_counter() - started, 1)
    path = _write(doc, cfg.results_dir)
    print()
    print(render_text(doc))
    print(f"results: {path} (and {cfg.results_dir / 'latest.json'})")
    if refused:
        print("error: scores differ from ADK's, speed not reported", file=sys.stderr)
        return EXIT_REFUSED
    return 1 if doc["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
