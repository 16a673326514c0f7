"""agentgauge's side of the benchmarks; runs in agentgauge's own environment, one measurement per process.

    python ours.py score --expected E.adk.json --actual A.adk.json --config test_config.json
    python ours.py load --path E.adk.json
    python ours.py e2e --expected E.native.json --actual A.native.json --config test_config.json \
        --latency 0.05 --parallelism 16 --metrics tool_trajectory_avg_score,response_match_score
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from _measure import METRICS, PASSES, WARM_UP_TEXT, current_rss_mb, emit, mean_case_scores, peak_rss_mb


def _metrics(config: Path, names: tuple[str, ...] = METRICS) -> list[Any]:
    from agentgauge.formats import load_metrics

    return [m for m in load_metrics(config) if m.metric_name in names]


async def _warm_up(metrics: list[Any]) -> None:
    """Score one synthetic turn so that lazy imports (nltk, rouge-score) happen before any timer starts.

    The peers import these at module load, before their timers; the start-up benchmark measures import costs.
    The words never occur in generated data, so per-word caches stay cold for the timed work.
    """
    from agentgauge.evaluators import Registry
    from agentgauge.model import Invocation, Message

    registry = Registry()
    warm = [Invocation(user_content=Message(content="warm up"), final_response=Message(content=WARM_UP_TEXT))]
    for metric in metrics:
        await registry.resolve(metric).evaluate(warm, warm, metric)


async def _score(args: argparse.Namespace) -> dict[str, Any]:
    from agentgauge.evaluators import Registry
    from agentgauge.formats import load_eval_set

    expected, actual = load_eval_set(args.expected), load_eval_set(args.actual)
    metrics = {m.metric_name: m for m in _metrics(args.config)}
    registry = Registry()
    evaluators = {name: registry.resolve(m) for name, m in metrics.items()}
    pairs = [
        (a.conversation or [], e.conversation or [])
        for a, e in zip(actual.eval_cases, expected.eval_cases, strict=True)
    ]

    async def run(names: tuple[str, ...]) -> dict[str, list[list[float | None]]]:
        out: dict[str, list[list[float | None]]] = {n: [] for n in names}
        for act, exp in pairs:
            for name in names:
                res = await evaluators[name].evaluate(act, exp, metrics[name])
                out[name].append([r.score for r in res.per_invocation_results])
        return out

    await _warm_up(list(metrics.values()))
    timings: dict[str, float] = {}
    scores: dict[str, list[list[float | None]]] = {}
    for label, names in PASSES:
        start = time.perf_counter()
        value = await run(names)
        timings[label] = time.perf_counter() - start
        if label == "both":
            scores = value
    return {
        "framework": "agentgauge",
        "n_cases": len(pairs),
        "n_invocations": sum(len(a) for a, _ in pairs),
        "seconds": timings,
        "scores": scores,
        "mean_case_scores": {k: mean_case_scores(v) for k, v in scores.items()},
        "peak_rss_mb": peak_rss_mb(),
    }


def score(args: argparse.Namespace) -> None:
    """Per-invocation scores of both metrics (ADK dialect) and the time agentgauge's evaluators take."""
    emit(asyncio.run(_score(args)))


def load(args: argparse.Namespace) -> None:
    """Parse + validate one eval-set file with ``agentgauge.formats.load_eval_set`` (call in a fresh process)."""
    from agentgauge.formats import load_eval_set

    baseline = current_rss_mb()
    start = time.perf_counter()
    eval_set = load_eval_set(args.path)
    seconds = time.perf_counter() - start
    emit(
        {
            "framework": "agentgauge",
            "seconds": seconds,
            "bytes": args.path.stat().st_size,
            "n_cases": len(eval_set.eval_cases),
            "n_invocations": sum(len(c.conversation or []) for c in eval_set.eval_cases),
            "baseline_rss_mb": baseline,
            "peak_rss_mb": peak_rss_mb(),
        }
    )


class ReplayAgent:
    """Waits ``latency`` seconds per turn, then answers with the recorded calls and answer of that turn."""

    def __init__(self, actual: Any, latency: float) -> None:
        self.latency = latency
        self.script = {inv.user_content.content: inv for case in actual.eval_cases for inv in case.conversation or []}

    async def run(self, request: Any) -> Any:
        from agentgauge.agents import AgentOutput

        inv = self.script[request.user_content.content]
        await asyncio.sleep(self.latency)
        return AgentOutput(final_response=inv.final_response, tools=inv.tools)


async def _e2e(args: argparse.Namespace) -> dict[str, Any]:
    from agentgauge.formats import load_eval_set
    from agentgauge.run._evaluator import AgentEvaluator
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    expected, actual = load_eval_set(args.expected), load_eval_set(args.actual)
    metrics = _metrics(args.config, tuple(args.metrics.split(",")))
    app = "bench_app"
    sets, results = InMemoryEvalSetManager(), InMemoryEvalResultManager()
    if args.projection == "nocopy-stores":
        from _projections import nocopy_stores

        sets, results = nocopy_stores()
    metric_store = InMemoryMetricManager()
    sets.put(app, expected)
    metric_store.put_all(app, expected.eval_set_id, metrics)
    await _warm_up(metrics)
    if args.projection == "gc-freeze":
        import gc

        gc.freeze()  # the loaded sets become permanent: collections during the run no longer walk them
    evaluator = AgentEvaluator(
        app,
        ReplayAgent(actual, args.latency),
        eval_set_manager=sets,
        metric_manager=metric_store,
        result_manager=results,
        parallelism=args.parallelism,
    )
    start = time.perf_counter()
    result = await evaluator.evaluate(expected.eval_set_id)
    wall = time.perf_counter() - start
    cases = sorted(result.eval_set_result.eval_case_results, key=lambda c: c.eval_id)
    per_metric: dict[str, list[list[float | None]]] = {m.metric_name: [] for m in metrics}
    errors = 0
    for case in cases:
        errors += bool(case.error_message)
        for name, bucket in per_metric.items():
            bucket.append(
                [
                    next((m.score for m in inv.eval_metric_results if m.metric_name == name), None)
                    for inv in case.eval_metric_result_per_invocation
                ]
            )
    return {
        "framework": "agentgauge",
        "wall_s": wall,
        "n_cases": len(cases),
        "case_errors": errors,
        "mean_case_scores": {k: mean_case_scores(v) for k, v in per_metric.items()},
        "peak_rss_mb": peak_rss_mb(),
    }


def e2e(args: argparse.Namespace) -> None:
    """AgentEvaluator inference + scoring of a replaying agent, timed end to end."""
    emit(asyncio.run(_e2e(args)))


def main(argv: list[str] | None = None) -> int:
    """Dispatch to one measurement."""
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("score")
    p.add_argument("--expected", type=Path, required=True)
    p.add_argument("--actual", type=Path, required=True)
    p.add_argument("--config", type=Path, required=True)
    p = sub.add_parser("load")
    p.add_argument("--path", type=Path, required=True)
    p = sub.add_parser("e2e")
    p.add_argument("--expected", type=Path, required=True)
    p.add_argument("--actual", type=Path, required=True)
    p.add_argument("--config", type=Path, required=True)
    p.add_argument("--latency", type=float, default=0.05)
    p.add_argument("--parallelism", type=int, default=4)
    p.add_argument("--metrics", default=",".join(METRICS))
    p.add_argument(
        "--projection", choices=["nocopy-stores", "gc-freeze"], help="benchmark-only variant (see _projections.py)"
    )
    args = parser.parse_args(argv)
    {"score": score, "load": load, "e2e": e2e}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
