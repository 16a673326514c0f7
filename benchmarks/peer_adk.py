"""Google ADK's side of the benchmarks; runs inside the peer virtualenv only (never imports agentgauge).

    python peer_adk.py score --expected E.adk.json --actual A.adk.json --config test_config.json
    python peer_adk.py load --path E.adk.json
    python peer_adk.py e2e --expected E.adk.json --actual A.adk.json --config test_config.json \
        --latency 0.05 --parallelism 16 --metrics tool_trajectory_avg_score,response_match_score
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import time
from pathlib import Path
from typing import Any

from _measure import METRICS, PASSES, WARM_UP_TEXT, current_rss_mb, emit, mean_case_scores, peak_rss_mb


def _metrics(config: Path, names: tuple[str, ...] = METRICS) -> list[Any]:
    from google.adk.evaluation.eval_config import EvalConfig, get_eval_metrics_from_config

    wanted = get_eval_metrics_from_config(EvalConfig.model_validate_json(config.read_bytes()))
    return [m for m in wanted if m.metric_name in names]


def _load(path: Path) -> Any:
    from google.adk.evaluation.eval_set import EvalSet

    return EvalSet.model_validate_json(path.read_bytes())


def score(args: argparse.Namespace) -> None:
    """Per-invocation scores of both metrics and the time ADK's evaluators take to compute them."""
    from google.adk.evaluation.metric_evaluator_registry import DEFAULT_METRIC_EVALUATOR_REGISTRY

    expected, actual = _load(args.expected), _load(args.actual)
    metrics = _metrics(args.config)
    evaluators = {m.metric_name: DEFAULT_METRIC_EVALUATOR_REGISTRY.get_evaluator(m) for m in metrics}
    pairs = [(a.conversation, e.conversation) for a, e in zip(actual.eval_cases, expected.eval_cases, strict=True)]

    def run(names: tuple[str, ...]) -> dict[str, list[list[float | None]]]:
        out: dict[str, list[list[float | None]]] = {n: [] for n in names}
        for act, exp in pairs:
            for name in names:
                res: Any = evaluators[name].evaluate_invocations(actual_invocations=act, expected_invocations=exp)
                out[name].append([r.score for r in res.per_invocation_results])
        return out

    # Same warm-up as agentgauge's side (see ours.py): words that never occur in the data.
    from google.adk.evaluation.eval_case import Invocation
    from google.genai import types

    def content(text: str, role: str) -> Any:
        return types.Content(role=role, parts=[types.Part(text=text)])

    warm = [Invocation(user_content=content("warm up", "user"), final_response=content(WARM_UP_TEXT, "model"))]
    for evaluator in evaluators.values():
        evaluator.evaluate_invocations(actual_invocations=warm, expected_invocations=warm)
    timings: dict[str, float] = {}
    scores: dict[str, list[list[float | None]]] = {}
    for label, names in PASSES:
        start = time.perf_counter()
        value = run(names)
        timings[label] = time.perf_counter() - start
        if label == "both":
            scores = value
    emit(
        {
            "framework": "adk",
            "n_cases": len(pairs),
            "n_invocations": sum(len(a) for a, _ in pairs),
            "seconds": timings,
            "scores": scores,
            "mean_case_scores": {k: mean_case_scores(v) for k, v in scores.items()},
            "peak_rss_mb": peak_rss_mb(),
        }
    )


def load(args: argparse.Namespace) -> None:
    """Parse + validate one eval-set file with ``EvalSet.model_validate_json`` (call in a fresh process)."""
    from google.adk.evaluation.eval_set import EvalSet

    baseline = current_rss_mb()
    start = time.perf_counter()
    eval_set = EvalSet.model_validate_json(args.path.read_bytes())
    seconds = time.perf_counter() - start
    emit(
        {
            "framework": "adk",
            "seconds": seconds,
            "bytes": args.path.stat().st_size,
            "n_cases": len(eval_set.eval_cases),
            "n_invocations": sum(len(c.conversation or []) for c in eval_set.eval_cases),
            "baseline_rss_mb": baseline,
            "peak_rss_mb": peak_rss_mb(),
        }
    )


def _replay_agent(actual: Any, latency: float) -> Any:
    """An ADK agent that waits ``latency`` seconds per turn, then replays the recorded calls and answer."""
    from google.adk.agents.base_agent import BaseAgent
    from google.adk.events.event import Event
    from google.genai import types

    script: dict[str, Any] = {}
    for case in actual.eval_cases:
        for inv in case.conversation:
            script[inv.user_content.parts[0].text] = inv

    class ReplayAgent(BaseAgent):
        async def _run_async_impl(self, ctx: Any) -> Any:
            inv = script[ctx.user_content.parts[0].text]
            await asyncio.sleep(latency)
            calls = inv.intermediate_data.tool_uses
            if calls:
                parts = [types.Part(function_call=c) for c in calls]
                yield Event(
                    author=self.name, invocation_id=ctx.invocation_id, content=types.Content(role="model", parts=parts)
                )
                answers = [types.Part(function_response=r) for r in inv.intermediate_data.tool_responses]
                yield Event(
                    author=self.name, invocation_id=ctx.invocation_id, content=types.Content(role="user", parts=answers)
                )
            yield Event(author=self.name, invocation_id=ctx.invocation_id, content=inv.final_response)

    return ReplayAgent(name="replay_agent")


async def _e2e(args: argparse.Namespace) -> dict[str, Any]:
    from google.adk.evaluation.base_eval_service import (
        EvaluateConfig,
        EvaluateRequest,
        InferenceConfig,
        InferenceRequest,
    )
    from google.adk.evaluation.in_memory_eval_sets_manager import InMemoryEvalSetsManager
    from google.adk.evaluation.local_eval_service import LocalEvalService

    expected, actual = _load(args.expected), _load(args.actual)
    metrics = _metrics(args.config, tuple(args.metrics.split(",")))
    app = "bench_app"
    manager = InMemoryEvalSetsManager()
    manager.create_eval_set(app, expected.eval_set_id)
    for case in expected.eval_cases:
        manager.add_eval_case(app, expected.eval_set_id, case)
    service = LocalEvalService(root_agent=_replay_agent(actual, args.latency), eval_sets_manager=manager)
    start = time.perf_counter()
    request = InferenceRequest(
        app_name=app, eval_set_id=expected.eval_set_id, inference_config=InferenceConfig(parallelism=args.parallelism)
    )
    inferences = [r async for r in service.perform_inference(request)]
    inference_s = time.perf_counter() - start
    evaluate = EvaluateRequest(
        inference_results=inferences,
        evaluate_config=EvaluateConfig(eval_metrics=metrics, parallelism=args.parallelism),
    )
    results = [r async for r in service.evaluate(evaluate)]
    wall = time.perf_counter() - start
    results.sort(key=lambda r: r.eval_id)
    per_metric: dict[str, list[list[float | None]]] = {m.metric_name: [] for m in metrics}
    failures = 0
    for res in results:
        for name, bucket in per_metric.items():
            bucket.append(
                [
                    next((m.score for m in inv.eval_metric_results if m.metric_name == name), None)
                    for inv in res.eval_metric_result_per_invocation
                ]
            )
        failures += sum(1 for inf in inferences if inf.eval_case_id == res.eval_id and inf.status.value != 1)
    return {
        "framework": "adk",
        "wall_s": wall,
        "inference_s": inference_s,
        "n_cases": len(results),
        "inference_failures": failures,
        "mean_case_scores": {k: mean_case_scores(v) for k, v in per_metric.items()},
        "peak_rss_mb": peak_rss_mb(),
    }


def e2e(args: argparse.Namespace) -> None:
    """LocalEvalService inference + evaluation of a replaying agent, timed end to end."""
    logging.disable(logging.WARNING)
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
    args = parser.parse_args(argv)
    {"score": score, "load": load, "e2e": e2e}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
