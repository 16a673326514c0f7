"""What the judge metrics spend counts against ``--budget cost``: the audit report records their calls and cost,
and the search stops once the budget is spent (the gate's evidence of the baseline is run in any case)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from capitals import REFLECTION_MODEL, responder, write_world
from chat_server import ChatServer, Reply, ok

from agentgauge.optimize import Budget, OptimizeRequest, ReflectionSettings, optimize, parse_split

JUDGE = "judge-model"


def _answer(body: dict[str, Any]) -> Reply:
    if body.get("model") == JUDGE:  # every judge call reports 1 prompt and 1 completion token
        return ok(json.dumps({"reasoning": "r", "is_the_agent_response_valid": "valid"}))
    return responder(body)


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    server = ChatServer().start()
    server.responder = _answer
    monkeypatch.setenv("CAPITALS_MODEL_URL", server.base_url)
    monkeypatch.setenv("CAPITALS_KEY", "test-key")
    try:
        yield server
    finally:
        server.stop()


def test_the_judges_cost_counts_against_the_budget(world: ChatServer, tmp_path: Path) -> None:
    paths = write_world(tmp_path / "world", cases=4)
    judged = {
        "metricName": "final_response_match_v2",
        "threshold": 0.5,
        "criterion": {
            "adk": {
                "threshold": 0.5,
                "judge_model_options": {
                    "judge_model": JUDGE,
                    "num_samples": 1,
                    "base_url": world.base_url,
                    "api_key": "judge-key",
                },
            }
        },
    }
    metrics = json.loads(paths["metrics"].read_text())
    paths["metrics"].write_text(json.dumps([*metrics, judged]))
    prices = tmp_path / "prices.json"  # one judge call (1 prompt token) costs 1.0
    prices.write_text(json.dumps({"currency": "USD", "models": {JUDGE: {"input": 1_000_000, "output": 0}}}))
    request = OptimizeRequest(
        agent=str(paths["agent"]),
        train=parse_split(str(paths["train"])),
        validation=parse_split(str(paths["validation"])),
        metrics=paths["metrics"],
        budget=Budget(metric_calls=100, cost=2.0),
        reflection=ReflectionSettings(model=REFLECTION_MODEL, base_url=world.base_url),
        prices=prices,
        no_cache=True,
        parallelism=4,
        output_dir=tmp_path / "results",
        out=tmp_path / "out",
    )
    report = asyncio.run(optimize(request))
    judge_calls = sum(1 for r in world.requests if r.body.get("model") == JUDGE)
    spent = report.spent
    assert spent.judge_calls == judge_calls >= 8  # the baseline's evidence: 4 + 4 cases
    assert spent.judge_cost == pytest.approx(float(judge_calls))
    assert spent.total_cost == pytest.approx(spent.judge_cost + (spent.reflection_cost or 0.0))
    assert spent.stopped_by == "cost"
    assert spent.metric_calls < 100  # the search stopped at its first step, long before its metric calls
