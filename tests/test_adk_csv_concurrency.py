"""The ADK drop-in's CSV output: concurrent writers (pytest-xdist workers) never lose rows."""

from __future__ import annotations

import csv
import multiprocessing
from pathlib import Path

from agentgauge.adk._verdict import InvocationScore, MetricVerdict, append_csv
from agentgauge.model import EvalMetricResult, EvalStatus, Invocation, Message

WRITERS, APPENDS = 6, 15


def _verdict(writer: int, index: int) -> MetricVerdict:
    invocation = Invocation(invocation_id="i1", user_content=Message(role="user", content=f"prompt {writer}-{index}"))
    result = EvalMetricResult(metric_name="response_match_score", score=1.0, eval_status=EvalStatus.PASSED)
    row = InvocationScore("set", f"case-{writer}", result, invocation, invocation)
    return MetricVerdict(f"case-{writer}", "response_match_score", 0.8, 1.0, EvalStatus.PASSED, (row,))


def _writer(path: str, writer: int) -> None:
    for index in range(APPENDS):
        append_csv(path, [_verdict(writer, index)])


def test_concurrent_processes_keep_every_row(tmp_path: Path) -> None:
    target = tmp_path / "results.csv"
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_writer, args=(str(target), w)) for w in range(WRITERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    with target.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == WRITERS * APPENDS
    assert len({row["prompt"] for row in rows}) == WRITERS * APPENDS
