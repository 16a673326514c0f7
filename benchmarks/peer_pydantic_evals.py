"""pydantic-evals' side of the end-to-end benchmark; runs inside the peer virtualenv only.

    python peer_pydantic_evals.py e2e --expected E.native.json --actual A.native.json --latency 0.05 \
        --parallelism 16 --metrics tool_trajectory_avg_score,response_match_score

pydantic-evals has no agent-trajectory or ROUGE evaluator of its own, so this file writes the two the way a user of
that library would: ADK's EXACT trajectory rule (same calls, same order, same arguments, per turn) and ROUGE-1 F with
Porter stemming from ``rouge-score``, each averaged over the turns of a case.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _measure import emit, peak_rss_mb

TRAJECTORY = "tool_trajectory_avg_score"
ROUGE = "response_match_score"


def _turns(path: Path) -> dict[str, list[dict[str, Any]]]:
    doc = json.loads(path.read_bytes())
    return {
        case["evalId"]: [
            {
                "question": inv["userContent"]["content"],
                "answer": (inv.get("finalResponse") or {}).get("content", ""),
                "calls": [(t["name"], t.get("arguments", {})) for t in inv.get("tools", [])],
            }
            for inv in case["conversation"]
        ]
        for case in doc["evalCases"]
    }


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Evaluator, EvaluatorContext
    from rouge_score import rouge_scorer

    expected, actual = _turns(args.expected), _turns(args.actual)
    replies = {turn["question"]: turn for turns in actual.values() for turn in turns}
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)

    @dataclass
    class Trajectory(Evaluator[list[str], list[dict[str, Any]], None]):  # type: ignore[misc]
        def evaluate(self, ctx: EvaluatorContext[list[str], list[dict[str, Any]], None]) -> float:
            got, want = ctx.output, ctx.expected_output or []
            return sum(1.0 if g["calls"] == w["calls"] else 0.0 for g, w in zip(got, want, strict=True)) / len(want)

    @dataclass
    class Rouge(Evaluator[list[str], list[dict[str, Any]], None]):  # type: ignore[misc]
        def evaluate(self, ctx: EvaluatorContext[list[str], list[dict[str, Any]], None]) -> float:
            got, want = ctx.output, ctx.expected_output or []
            total = 0.0
            for g, w in zip(got, want, strict=True):
                total += scorer.score(w["answer"], g["answer"])["rouge1"].fmeasure
            return total / len(want)

    chosen = args.metrics.split(",")
    evaluators: list[Any] = []
    if TRAJECTORY in chosen:
        evaluators.append(Trajectory())
    if ROUGE in chosen:
        evaluators.append(Rouge())
    dataset = Dataset[list[str], list[dict[str, Any]], None](
        name="bench",
        cases=[
            Case(name=cid, inputs=[t["question"] for t in turns], expected_output=turns)
            for cid, turns in expected.items()
        ],
        evaluators=evaluators,
    )

    async def agent(questions: list[str]) -> list[dict[str, Any]]:
        out = []
        for q in questions:
            await asyncio.sleep(args.latency)
            out.append(replies[q])
        return out

    start = time.perf_counter()
    report = await dataset.evaluate(agent, max_concurrency=args.parallelism, progress=False)
    wall = time.perf_counter() - start
    names = {"Trajectory": TRAJECTORY, "Rouge": ROUGE}
    means: dict[str, float] = {}
    for short, long in names.items():
        values = [c.scores[short].value for c in report.cases if short in c.scores]
        if values:
            means[long] = sum(values) / len(values)
    return {
        "framework": "pydantic-evals",
        "wall_s": wall,
        "n_cases": len(report.cases),
        "task_failures": len(report.failures),
        "mean_case_scores": means,
        "peak_rss_mb": peak_rss_mb(),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the one measurement this peer takes part in."""
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("e2e")
    p.add_argument("--expected", type=Path, required=True)
    p.add_argument("--actual", type=Path, required=True)
    p.add_argument("--latency", type=float, default=0.05)
    p.add_argument("--parallelism", type=int, default=4)
    p.add_argument("--metrics", default=f"{TRAJECTORY},{ROUGE}")
    args = parser.parse_args(argv)
    emit(asyncio.run(_run(args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
