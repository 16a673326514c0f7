"""Judge calls keep pace with the run: as many at once as ``--parallelism`` (or ``--judge-parallelism N``).

Before, the CLI never raised ``JudgeSettings.max_concurrency`` from its default of 4: 200 cases with a 200 ms
judge took 22.4 s from the CLI. The loopback judge holds every call until the expected number are in flight
together, so the peak it records does not depend on timing (see :class:`judged_sets.ConcurrencyGate`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from chat_server import ChatServer
from judged_sets import ConcurrencyGate, judge_metric, trace_case, write_set
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_eval_set, load_metrics
from agentgauge.judges import JudgeSettings
from agentgauge.run._evaluator import AgentEvaluator
from agentgauge.storage import InMemoryEvalResultManager, InMemoryEvalSetManager, InMemoryMetricManager


def _judged_set(tmp_path: Path, base_url: str, cases: int) -> Path:
    return write_set(tmp_path, [trace_case(f"c{i}", f"question {i}?") for i in range(cases)], [judge_metric(base_url)])


def _eval(evalset: Path, *options: str) -> None:
    out = evalset.parent / "out"
    done = CliRunner().invoke(app, ["eval", str(evalset), "--output-dir", str(out), "--no-cache", *options])
    assert done.exit_code == 0, done.output


def test_judge_calls_follow_parallelism(chat_server: ChatServer, tmp_path: Path) -> None:
    gate = ConcurrencyGate(16)
    chat_server.responder = gate
    _eval(_judged_set(tmp_path, chat_server.base_url, 32), "--parallelism", "16")
    assert (gate.peak, gate.calls) == (16, 32)


def test_judge_parallelism_caps_the_judge_calls(chat_server: ChatServer, tmp_path: Path) -> None:
    gate = ConcurrencyGate(3)
    chat_server.responder = gate
    _eval(_judged_set(tmp_path, chat_server.base_url, 12), "--parallelism", "12", "--judge-parallelism", "3")
    assert (gate.peak, gate.calls) == (3, 12)  # never more than asked, though 12 cases were in flight


def _api(evalset: Path, **options: object) -> None:
    eval_set = load_eval_set(evalset)
    sets, metrics = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put("app", eval_set)
    metrics.put_all("app", eval_set.eval_set_id, load_metrics(evalset.parent / "basic.metrics.json"))
    evaluator = AgentEvaluator(
        "app", eval_set_manager=sets, metric_manager=metrics, result_manager=InMemoryEvalResultManager(), **options
    )  # type: ignore[arg-type]
    outcome = asyncio.run(evaluator.evaluate(eval_set.eval_set_id))
    assert outcome.overall_status.value == "passed"


def test_the_python_api_follows_parallelism_unless_the_settings_say_otherwise(
    chat_server: ChatServer, tmp_path: Path
) -> None:
    evalset = _judged_set(tmp_path, chat_server.base_url, 10)
    gate = chat_server.responder = ConcurrencyGate(10)
    _api(evalset, parallelism=10)
    assert gate.peak == 10
    gate = chat_server.responder = ConcurrencyGate(2)
    _api(evalset, parallelism=10, judge_settings=JudgeSettings(max_concurrency=2))
    assert gate.peak == 2
