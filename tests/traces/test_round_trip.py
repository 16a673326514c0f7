"""``traces to-evalset`` then ``eval --traces`` on the very same traces: each case records the trace it was made
from, so traces that share their first user message are each paired with their own case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.traces import golden_eval_set, match_traces, read_conversations

runner = CliRunner()


def _attribute(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _trace(number: int, question: str) -> list[dict[str, Any]]:
    """One GenAI-convention turn: an agent span and a model call answering ``question``."""
    trace_id = f"{number + 1:032x}"
    root, chat = f"{2 * number + 1:016x}", f"{2 * number + 2:016x}"
    user = json.dumps([{"role": "user", "parts": [{"type": "text", "content": question}]}])
    answer = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": f"answer {number}"}]}])
    start = 1_700_000_000_000_000_000 + number * 1_000_000_000
    return [
        {
            "traceId": trace_id,
            "spanId": root,
            "name": "invoke_agent helper",
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(start + 500),
            "attributes": [_attribute("gen_ai.operation.name", "invoke_agent")],
        },
        {
            "traceId": trace_id,
            "spanId": chat,
            "parentSpanId": root,
            "name": "chat model",
            "startTimeUnixNano": str(start + 100),
            "endTimeUnixNano": str(start + 400),
            "attributes": [
                _attribute("gen_ai.operation.name", "chat"),
                _attribute("gen_ai.input.messages", user),
                _attribute("gen_ai.output.messages", answer),
            ],
        },
    ]


@pytest.fixture
def shared_question(tmp_path: Path) -> Path:
    """50 traces whose first user message is the same."""
    spans = [span for number in range(50) for span in _trace(number, "What can you do?")]
    path = tmp_path / "day.otlp.json"
    path.write_text(json.dumps({"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}))
    return path


def test_a_case_made_from_a_trace_is_matched_with_that_trace_first(shared_question: Path) -> None:
    conversations = read_conversations(shared_question).conversations
    golden = golden_eval_set(conversations, "day")
    matching = match_traces(conversations, golden)
    assert not matching.unmatched
    # the ids share their first 16 digits: the cases are trace_0000000000000000, _2, ... _50
    assert [(m.case.eval_id, m.how) for m in matching.matches] == [
        (case.eval_id, "recorded trace") for case in golden.eval_cases
    ]
    assert len({m.case.eval_id for m in matching.matches}) == 50


@pytest.mark.parametrize("fmt", ["native", "adk"])
def test_to_evalset_then_eval_traces_matches_50_of_50(tmp_path: Path, shared_question: Path, fmt: str) -> None:
    golden = tmp_path / "day.evalset.json"
    made = runner.invoke(app, ["traces", "to-evalset", str(shared_question), str(golden), "--to", fmt])
    assert made.exit_code == 0, made.output
    output = str(tmp_path / "o")
    scored = runner.invoke(
        app, ["eval", "--traces", str(shared_question), "--eval-set", str(golden), "--output-dir", output, "--json"]
    )
    assert scored.exit_code == 0, scored.output
    result = json.loads(scored.stdout)
    cases = result["evalCaseResults"]
    assert len(cases) == 50 and all(c["finalEvalStatus"] == "passed" for c in cases)
    ids = ["trace_0000000000000000", *(f"trace_0000000000000000_{n}" for n in range(2, 51))]
    assert sorted(c["evalId"] for c in cases) == sorted(ids)
