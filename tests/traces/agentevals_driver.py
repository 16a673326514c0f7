"""Runs agentevals (its Python API) on trace/eval-set pairs and prints the scores as JSON; executed by
test_agentevals_diff.py with the Python of the separate agentevals venv (see _agentevals_venv.py).

stdin: ``[{"trace": path, "eval_set": path, "match_type": "EXACT" | "IN_ORDER" | "ANY_ORDER"}, ...]``
stdout: per job ``{"errors": [...], "traces": [...]}``, one entry per evaluation group (trace or conversation):
``{"scores": {metric: score | null}, "errors": [...], "case": id | null, "match": method, "invocations": n,
"llm_calls": n, "tokens": n}``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from typing import Any


async def _one(job: dict[str, Any]) -> dict[str, Any]:
    from agentevals.config import BuiltinMetricDef, EvalRunConfig
    from agentevals.runner import run_evaluation

    config = EvalRunConfig(
        trace_files=[job["trace"]],
        eval_set_file=job["eval_set"],
        evaluators=[
            BuiltinMetricDef(name="tool_trajectory_avg_score", trajectory_match_type=job["match_type"]),
            BuiltinMetricDef(name="response_match_score"),
        ],
    )
    result = await run_evaluation(config)
    traces = []
    for trace in result.trace_results:
        performance = trace.performance_metrics or {}
        traces.append(
            {
                "case": trace.eval_case_id,
                "match": trace.eval_case_match,
                "invocations": trace.num_invocations,
                "scores": {m.metric_name: m.score for m in trace.metric_results},
                "errors": [f"{m.metric_name}: {m.error}" for m in trace.metric_results if m.error],
                "llm_calls": performance.get("counts", {}).get("llm_calls"),
                "tokens": performance.get("tokens", {}).get("total"),
            }
        )
    return {"errors": list(result.errors), "traces": traces}


async def _main() -> None:
    logging.disable(logging.CRITICAL)
    jobs = json.load(sys.stdin)
    results = [await _one(job) for job in jobs]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    asyncio.run(_main())
