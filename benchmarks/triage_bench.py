"""Failure triage on planted causes: a generated result of 300 failing case runs from 6 causes (and passing runs
around them); how well ``agentgauge triage`` recovers the causes.

    python benchmarks/triage_bench.py                       # the figures in benchmarks/README.md
    python benchmarks/triage_bench.py --write planted.evalset_result.json

Each cause fails a case in its own way, with the particulars of every failure drawn at random — cities, amounts,
order ids, turn counts, request ids, quoted claims — and with its own tool and its own place in the conversation:

1. ``get_weather`` called with the wrong city (``tool_trajectory_avg_score``: arguments mismatch);
2. ``book_flight`` never called (tool count mismatch: a call missing);
3. the agent failed: an upstream timeout naming a request id and seconds (an error before any metric);
4. a wrong total in the answer (``final_response_avg_score``);
5. ``search`` called once too often (a call added);
6. an unsupported claim in the answer (``hallucinations_v1``, a judge's reason quoting the claim, worded in one of
   two ways: what ``--merge`` joins).

Reported: the adjusted Rand index between the planted causes and the clusters (computed here, Hubert & Arabie
1985), the share of failures in the 6 heaviest clusters, and the number of clusters.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import uuid
from collections import Counter
from math import comb
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from agentgauge.model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultDetails,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalStatus,
    Invocation,
    Message,
    TokenUsage,
    Tool,
)
from agentgauge.triage import triage_result

CAUSES = ["wrong_city", "missing_booking", "upstream_timeout", "wrong_total", "search_loop", "unsupported_claim"]
SIZES = [90, 70, 50, 40, 30, 20]
CITIES = ["Paris", "Lyon", "Oslo", "Rome", "Tokyo", "Lisbon", "Quito", "Accra", "Hanoi", "Perth"]


def _tool(name: str, arguments: dict[str, Any], result: Any) -> Tool:
    return Tool(
        id=f"call_{uuid.UUID(int=random.getrandbits(128)).hex[:10]}", name=name, arguments=arguments, result=result
    )


def _inv(user: str, answer: str, tools: list[Tool], cost: float | None = None) -> Invocation:
    usage = TokenUsage(input_tokens=100, output_tokens=20, cost=cost) if cost is not None else None
    return Invocation(
        user_content=Message(role="user", content=user),
        final_response=Message(role="assistant", content=answer),
        tools=tools,
        usage=usage,
    )


def _metric(name: str, score: float, reason: str, threshold: float = 1.0) -> EvalMetricResult:
    status = EvalStatus.PASSED if score >= threshold else EvalStatus.FAILED
    return EvalMetricResult(
        metric_name=name,
        score=score,
        eval_status=status,
        threshold=threshold,
        details=EvalMetricResultDetails(reason=reason),
    )


def _case(
    eval_id: str, turns: list[tuple[Invocation, Invocation]], metrics: list[EvalMetricResult], error: str | None = None
) -> EvalCaseResult:
    failed = error is not None or any(m.eval_status is EvalStatus.FAILED for m in metrics)
    per = [EvalMetricResultPerInvocation(actual_invocation=a, expected_invocation=e) for a, e in turns]
    return EvalCaseResult(
        eval_id=eval_id,
        final_eval_status=EvalStatus.FAILED if failed else EvalStatus.PASSED,
        error_message=error,
        overall_eval_metric_results=metrics,
        eval_metric_result_per_invocation=per,
    )


def _weather(rng: random.Random, wrong: bool) -> tuple[list[tuple[Invocation, Invocation]], str]:
    """1–3 weather questions; with ``wrong``, one of them (any turn) is asked for another city."""
    turns, reason = [], ""
    bad = rng.randrange(3) if wrong else -1
    for turn in range(rng.randint(1, 3) if not wrong else bad + 1 + rng.randint(0, 2 - bad)):
        city, other = rng.sample(CITIES, 2)
        degrees = rng.randint(-5, 35)
        called = other if turn == bad else city
        question = f"Weather in {city}?"
        expected = _inv(question, f"{degrees} °C in {city}", [_tool("get_weather", {"city": city}, {"c": degrees})])
        tools = [_tool("get_weather", {"city": called}, {"c": degrees})]
        turns.append((_inv(question, f"{degrees} °C in {called}", tools, rng.uniform(0.001, 0.004)), expected))
        if turn == bad:
            reason = f"arguments mismatch: actual '{called}' != expected '{city}' at $.city"
    return turns, reason


def generate(seed: int = 5, passing: int = 200, scale: float = 1.0) -> tuple[EvalSetResult, list[str]]:
    """The planted result and, per failing run (in result order), its cause; ``scale`` multiplies every count (the
    example in examples/replay is the result at scale 0.1)."""
    rng = random.Random(seed)
    random.seed(seed)
    cases: list[EvalCaseResult] = []
    labels: list[str] = []
    sizes = [max(1, round(size * scale)) for size in SIZES]
    plan = [cause for cause, size in zip(CAUSES, sizes, strict=True) for _ in range(size)]
    plan += ["pass"] * round(passing * scale)
    rng.shuffle(plan)
    for index, cause in enumerate(plan):
        eval_id = f"case_{index:04d}"
        cases.append(_planted(rng, eval_id, cause))
        if cause != "pass":
            labels.append(cause)
    result = EvalSetResult(eval_set_result_id=f"planted_{seed}", eval_set_id="planted", eval_case_results=cases)
    return result, labels


def _planted(rng: random.Random, eval_id: str, cause: str) -> EvalCaseResult:
    traj, answer = "tool_trajectory_avg_score", "final_response_avg_score"
    if cause in ("pass", "wrong_city"):
        turns, reason = _weather(rng, cause == "wrong_city")
        wrong = cause == "wrong_city"
        return _case(
            eval_id, turns, [_metric(traj, 0.0 if wrong else 1.0, reason if wrong else ""), _metric(answer, 1.0, "")]
        )
    if cause == "missing_booking":
        day = rng.randint(1, 28)
        search = _tool("search_flights", {"day": day}, {"flights": rng.randint(1, 9)})
        book = _tool("book_flight", {"day": day, "seat": f"{rng.randint(1, 30)}{rng.choice('ABCDEF')}"}, {"ok": True})
        expected = _inv(f"Book me a flight on day {day}", "Booked.", [search, book])
        actual = _inv(f"Book me a flight on day {day}", "Booked.", [search.model_copy()], rng.uniform(0.002, 0.006))
        reason = "tool count mismatch: actual 1 != expected 2"
        return _case(eval_id, [(actual, expected)], [_metric(traj, 0.0, reason), _metric(answer, 1.0, "")])
    if cause == "upstream_timeout":
        turns, _ = _weather(rng, False)
        request = uuid.UUID(int=rng.getrandbits(128))
        failed_at = rng.randint(1, len(turns))
        seconds = rng.uniform(20, 40)
        error = f"agent failed on invocation {failed_at} of {len(turns)} ({request}): TimeoutError: upstream 504 "
        error += f"after {seconds:.1f} s"
        return _case(eval_id, turns[: failed_at - 1], [], error)
    if cause == "wrong_total":
        total = rng.randint(10, 999)
        order = f"order-{rng.randint(1000, 9999)}"
        tool = _tool("lookup_order", {"id": order}, {"total": total})
        expected = _inv(f"What is the total of {order}?", f"The total is {total}.", [tool])
        got = total + rng.randint(1, 50)
        actual = _inv(
            f"What is the total of {order}?", f"The total is {got}.", [tool.model_copy()], rng.uniform(0.001, 0.003)
        )
        reason = f"text mismatch: actual 'The total is {got}.' != expected 'The total is {total}.'"
        return _case(eval_id, [(actual, expected)], [_metric(traj, 1.0, ""), _metric(answer, 0.0, reason)])
    if cause == "search_loop":
        query = rng.choice(["flights", "hotels", "trains", "cars"])
        calls = [
            _tool("search", {"q": query, "page": p}, {"hits": rng.randint(0, 5)})
            for p in range(1, rng.randint(2, 3) + 1)
        ]
        expected = _inv(f"Find {query}", f"Found {query}.", calls)
        extra = _tool("search", {"q": query, "page": len(calls) + 1}, {"hits": 0})
        actual = _inv(
            f"Find {query}", f"Found {query}.", [*[c.model_copy() for c in calls], extra], rng.uniform(0.003, 0.008)
        )
        reason = f"tool count mismatch: actual {len(calls) + 1} != expected {len(calls)}"
        return _case(eval_id, [(actual, expected)], [_metric(traj, 0.0, reason), _metric(answer, 1.0, "")])
    claim = f"{rng.choice(CITIES)} has {rng.randint(2, 90)} museums"
    expected = _inv("Tell me about the city", "It is a lovely city.", [])
    actual = _inv("Tell me about the city", f"It is a lovely city. {claim}.", [], rng.uniform(0.001, 0.002))
    sentences = rng.randint(2, 5)
    if rng.random() < 0.5:  # a judge words the same verdict in more than one way
        reason = f"1 of {sentences} sentences unsupported: '{claim}' is not grounded in the context"
    else:
        reason = f"'{claim}' is not grounded in the context (1 of {sentences} sentences unsupported)"
    return _case(eval_id, [(actual, expected)], [_metric("hallucinations_v1", rng.uniform(0.2, 0.7), reason, 0.8)])


def adjusted_rand_index(truth: list[str], found: list[str]) -> float:
    """The adjusted Rand index of two labellings of the same items (1: identical partitions, ~0: chance)."""
    pairs = Counter(zip(truth, found, strict=True))
    rows, cols = Counter(truth), Counter(found)
    index = sum(comb(n, 2) for n in pairs.values())
    row_sum, col_sum = sum(comb(n, 2) for n in rows.values()), sum(comb(n, 2) for n in cols.values())
    expected = row_sum * col_sum / comb(len(truth), 2)
    maximum = (row_sum + col_sum) / 2
    return 1.0 if maximum == expected else (index - expected) / (maximum - expected)


def measure(seed: int = 5, merge: float | None = None) -> dict[str, Any]:
    """Triage the planted result; the figures."""
    result, labels = generate(seed)
    triage = triage_result(result, merge=merge)
    cluster_of = {(m.eval_id, m.run_id): c.rank for c in triage.clusters for m in c.members}
    failing = [r for r in result.eval_case_results if r.final_eval_status is not EvalStatus.PASSED]
    found = [str(cluster_of[(r.eval_id, r.run_id)]) for r in failing]
    return {
        "failing": triage.failing,
        "runs": triage.runs,
        "clusters": len(triage.clusters),
        "adjusted_rand_index": round(adjusted_rand_index(labels, found), 4),
        "top6_coverage": round(triage.coverage(6), 4),
        "cluster_sizes": [c.size for c in triage.clusters],
        "titles": [c.title for c in triage.clusters[:6]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--merge", type=float, default=None, help="also merge clusters at this similarity")
    parser.add_argument("--write", type=Path, default=None, help="write the planted result to this file")
    parser.add_argument("--scale", type=float, default=1.0, help="with --write: multiply every count (1.0)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.write is not None:
        from agentgauge.formats import save_result

        save_result(generate(args.seed, scale=args.scale)[0], args.write)
    figures = measure(args.seed, args.merge)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(
            f"{figures['failing']} failing of {figures['runs']} runs -> {figures['clusters']} clusters "
            f"{figures['cluster_sizes']}"
        )
        print(
            f"adjusted Rand index: {figures['adjusted_rand_index']:.4f}; top-6 coverage: {figures['top6_coverage']:.1%}"
        )
        for title in figures["titles"]:
            print(f"  {title}")
    ok = figures["adjusted_rand_index"] >= 0.9 and figures["top6_coverage"] >= 0.95
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
