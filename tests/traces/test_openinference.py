"""Traces of a real OpenInference producer (``openinference-instrumentation-openai`` on the ``openai`` client, against
the scripted endpoint of ``examples/traces/record_openai_trace.py``): read, scored and diagnosed like the GenAI
conventions' traces."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import InputError
from agentgauge.traces import read_conversations
from agentgauge.traces._doctor import diagnose

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces"
sys.path.insert(0, str(EXAMPLES))


def _record(path: Path) -> Path:
    from _otlp_json import write_otlp
    from record_openai_trace import QUESTIONS
    from record_openinference_trace import record

    write_otlp(record(QUESTIONS), str(path))
    return path


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    return _record(tmp_path / "weather.openinference.otlp.jsonl")


def _tools(invocation: Any) -> list[tuple[str, Any, Any]]:
    return [(t.name, t.arguments, t.result) for t in invocation.tools]


def test_messages_tool_calls_and_usage_are_read(recorded: Path) -> None:
    [conversation] = read_conversations(recorded).conversations
    assert [i.user_content.content for i in conversation.invocations] == [
        "What is the weather in Oslo?",
        "And in Lisbon?",
    ]
    assert [i.final_response.content if i.final_response else None for i in conversation.invocations] == [
        "It is rainy in Oslo, 12 °C.",
        "It is rainy in Lisbon, 12 °C.",
    ]
    assert _tools(conversation.invocations[1]) == [
        ("get_weather", {"city": "Lisbon"}, {"city": "Lisbon", "forecast": "rainy", "temperature_c": 12})
    ]
    usage = [i.usage for i in conversation.invocations]
    # two model calls per turn, 20 prompt and 10 completion tokens each (the scripted endpoint's usage)
    assert [(u.input_tokens, u.output_tokens) if u else None for u in usage] == [(40, 20), (40, 20)]
    assert (conversation.session_id, conversation.app_name) == ("weather-session-1", "weather_assistant")


def test_eval_traces_scores_the_recorded_conversation(recorded: Path, tmp_path: Path) -> None:
    golden = EXAMPLES / "weather.evalset.json"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--traces",
            str(recorded),
            "--eval-set",
            f"{golden}:weather_oslo_lisbon",
            "--output-dir",
            str(tmp_path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "-> case weather_oslo_lisbon (by user text)" in result.output
    [case] = json.loads(result.stdout)["evalCaseResults"]
    scores = {m["metricName"]: m["evalStatus"] for m in case["overallEvalMetricResults"]}
    assert (scores["tool_trajectory_avg_score"], scores["response_match_score"]) == ("passed", "passed")


def test_doctor_finds_everything_recorded(recorded: Path) -> None:
    report = diagnose(recorded)
    [producer] = report.producers
    assert producer.producer == "OpenInference"
    assert {c.name: c.status for c in producer.checks}["message content"] == "ok"
    assert report.verdict == "ready"


def test_hidden_messages_get_openinference_advice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENINFERENCE_HIDE_INPUTS", "true")
    monkeypatch.setenv("OPENINFERENCE_HIDE_OUTPUTS", "true")
    hidden = _record(tmp_path / "hidden.otlp.jsonl")
    with pytest.raises(InputError) as info:
        read_conversations(hidden)
    assert "(OpenInference): OpenInference records llm.input_messages / llm.output_messages unless hidden" in str(
        info.value
    )
    assert "OPENINFERENCE_HIDE_INPUTS" in str(info.value) and "ADK" not in str(info.value)
    report = diagnose(hidden)
    assert report.verdict == "not ready"
