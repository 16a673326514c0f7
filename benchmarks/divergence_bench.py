"""First-divergence localisation: perturb generated multi-turn runs at every step and check where the reported first
divergence is; rerun a deterministic agent and count divergences reported between identical runs.

    python benchmarks/divergence_bench.py                 # 500 runs, seed 7: the figures in benchmarks/README.md
    python benchmarks/divergence_bench.py --runs 50 --json

Runs are drawn from a seed: 1–4 turns, 0–4 tool calls per turn from 6 tool names, arguments and results from small
value ranges (so equal calls recur, as in real runs), and an answer per turn. Every run is perturbed at every step k
in each applicable way — the tool changed, one argument changed, the call dropped, a call added before it — and
``agentgauge.divergence.first_divergence`` must report the divergence at step k with the matching kind.

A perturbation whose result could equally come from a perturbation at another step (dropping one of two equal
consecutive calls, adding a copy of the call that follows) has no single true step: it is counted apart as
*equivalent*, and there the reported step must be the earliest equivalent one (where the two runs first differ).

The rerun part runs a deterministic agent (fresh tool-call and invocation ids every run, timings differ) twice over
generated cases with ``AgentEvaluator`` and counts the cases whose two runs are reported as diverging (must be 0).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from agentgauge.divergence import DivergenceKind, Step, first_divergence

TOOLS = ["search", "get_weather", "calculator", "lookup_order", "send_email", "book_flight"]
KINDS = {
    "change_tool": DivergenceKind.DIFFERENT_TOOL,
    "change_arguments": DivergenceKind.DIFFERENT_ARGUMENTS,
    "drop_call": DivergenceKind.MISSING_CALL,
    "add_call": DivergenceKind.EXTRA_CALL,
}


def _call(rng: random.Random, turn: int, step: int, name: str | None = None) -> Step:
    name = name or rng.choice(TOOLS)
    arguments = {"q": rng.choice(["a", "b", "c"]), "n": rng.randint(1, 3)}
    return Step(turn=turn, step=step, kind="tool", name=name, arguments=arguments, result={"ok": rng.randint(0, 1)})


def generate_run(rng: random.Random) -> list[Step]:
    """One run: per turn 0–4 tool calls, then the answer."""
    steps: list[Step] = []
    for turn in range(1, rng.randint(1, 4) + 1):
        calls = rng.randint(0, 4)
        steps += [_call(rng, turn, k) for k in range(1, calls + 1)]
        steps.append(Step(turn=turn, step=calls + 1, kind="answer", text=f"answer {rng.randint(1, 5)}"))
    return steps


def _renumbered(steps: list[Step]) -> list[Step]:
    out, counts = [], Counter[int]()
    for s in steps:
        counts[s.turn] += 1
        out.append(s.model_copy(update={"step": counts[s.turn]}))
    return out


def perturb(run: list[Step], k: int, how: str, rng: random.Random) -> list[Step] | None:
    """``run`` perturbed at step ``k`` (0-based), or ``None`` when ``how`` does not apply there."""
    target = run[k]
    if how == "add_call":
        extra = _call(rng, target.turn, target.step)
        return _renumbered([*run[:k], extra, *run[k:]])
    if target.kind != "tool":
        return None
    if how == "change_tool":
        name = rng.choice([t for t in TOOLS if t != target.name])
        changed = target.model_copy(update={"name": name})
    elif how == "change_arguments":
        arguments = dict(target.arguments)
        arguments["n"] = arguments["n"] + rng.randint(1, 5)
        changed = target.model_copy(update={"arguments": arguments})
    else:
        return _renumbered([*run[:k], *run[k + 1 :]])
    return [*run[:k], changed, *run[k + 1 :]]


def _key(step: Step) -> tuple[Any, ...]:
    return (step.kind, step.name, json.dumps(step.arguments, sort_keys=True), json.dumps(step.result), step.text)


def _first_difference(a: list[Step], b: list[Step]) -> int:
    k = 0
    while k < len(a) and k < len(b) and _key(a[k]) == _key(b[k]):
        k += 1
    return k


def localisation(runs: int, seed: int) -> dict[str, Any]:
    """Perturb every generated run at every step in every way; the tallies."""
    rng = random.Random(seed)
    exact = kind_ok = equivalent = equivalent_ok = total = 0
    misses: list[str] = []
    by_kind: Counter[str] = Counter()
    started = time.perf_counter()
    for _ in range(runs):
        run = generate_run(rng)
        for k in range(len(run)):
            for how in KINDS:
                perturbed = perturb(run, k, how, rng)
                if perturbed is None:
                    continue
                found = first_divergence(run, perturbed)
                truth = _first_difference(run, perturbed)
                reported = found.index - 1 if found is not None else None
                if truth != k:  # the same runs would come from a perturbation at an earlier or later step
                    equivalent += 1
                    equivalent_ok += reported == truth
                    continue
                total += 1
                by_kind[how] += 1
                exact += reported == k
                kind_ok += found is not None and reported == k and found.kind is KINDS[how]
                if reported != k and len(misses) < 5:
                    misses.append(f"{how} at {k}: reported {reported}")
    return {
        "runs": runs,
        "perturbations": total,
        "by_kind": dict(by_kind),
        "localised_at_k": exact,
        "localisation_rate": exact / total if total else 1.0,
        "kind_correct": kind_ok,
        "kind_rate": kind_ok / total if total else 1.0,
        "equivalent_perturbations": equivalent,
        "equivalent_at_earliest_step": equivalent_ok,
        "misses": misses,
        "seconds": round(time.perf_counter() - started, 3),
    }


def _agent_case(rng: random.Random, index: int) -> dict[str, Any]:
    turns = [
        {"userContent": {"content": f"case {index} turn {t} {rng.randint(0, 9)}"}} for t in range(rng.randint(1, 3))
    ]
    return {"evalId": f"case_{index}", "conversation": turns}


def deterministic_agent(request: Any) -> Any:
    """Tool calls and answer fixed by the user text; ids and timings fresh every run."""
    from agentgauge.agents import AgentOutput
    from agentgauge.model import Tool

    text = request.user_content.content
    digits = [int(c) for c in text if c.isdigit()]
    calls = [
        Tool(
            id=f"call_{uuid.uuid4().hex[:12]}",
            name=TOOLS[(d + i) % len(TOOLS)],
            arguments={"n": d, "i": i},
            result={"value": d * i},
        )
        for i, d in enumerate(digits[-3:])
    ]
    return AgentOutput(final_response=f"done: {sum(digits)}", tools=calls)


async def _run_twice(cases: int, seed: int) -> tuple[list[Any], list[Any]]:
    from agentgauge import AgentEvaluator
    from agentgauge.model import EvalSet
    from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager

    rng = random.Random(seed)
    sets = InMemoryEvalSetManager()
    sets.put(
        "bench", EvalSet.model_validate({"evalSetId": "s", "evalCases": [_agent_case(rng, i) for i in range(cases)]})
    )
    outcomes = []
    for _ in range(2):
        evaluator = AgentEvaluator(
            "bench",
            deterministic_agent,
            eval_set_manager=sets,
            metric_manager=InMemoryMetricManager(),
            result_manager=InMemoryEvalResultManager(),
        )
        result = await evaluator.evaluate("s")
        assert result.eval_set_result is not None
        outcomes.append(result.eval_set_result.eval_case_results)
    return outcomes[0], outcomes[1]


def false_positives(cases: int, seed: int) -> dict[str, Any]:
    """Two runs of a deterministic agent over the same cases: cases reported as diverging (must be none)."""
    from agentgauge.divergence import case_run_divergence

    first, second = asyncio.run(_run_twice(cases, seed))
    by_id = {c.eval_id: c for c in second}
    diverged = [c.eval_id for c in first if case_run_divergence([c], [by_id[c.eval_id]]) is not None]
    steps = sum(len(e.actual_invocation.tools) + 1 for c in first for e in c.eval_metric_result_per_invocation)
    return {"cases": cases, "steps": steps, "false_positives": len(diverged), "diverged": diverged[:5]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=500, help="generated runs to perturb (500)")
    parser.add_argument("--rerun-cases", type=int, default=200, help="cases the deterministic agent runs twice (200)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    figures = {
        "localisation": localisation(args.runs, args.seed),
        "reruns": false_positives(args.rerun_cases, args.seed),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        loc, rerun = figures["localisation"], figures["reruns"]
        print(f"perturbations: {loc['perturbations']} over {loc['runs']} runs {loc['by_kind']}")
        print(
            f"first divergence at step k: {loc['localised_at_k']}/{loc['perturbations']} "
            f"({loc['localisation_rate']:.1%}); kind right: {loc['kind_rate']:.1%}"
        )
        print(
            f"equivalent-step perturbations: {loc['equivalent_perturbations']}, reported at the earliest step: "
            f"{loc['equivalent_at_earliest_step']}"
        )
        print(
            f"identical reruns: {rerun['cases']} cases, {rerun['steps']} steps, "
            f"false divergences: {rerun['false_positives']}"
        )
    ok = figures["localisation"]["localisation_rate"] == 1.0 and figures["reruns"]["false_positives"] == 0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
