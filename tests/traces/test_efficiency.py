"""Efficiency metrics from spans: token usage, model-call counts and span times read from real traces, scored by
``tool_call_count_v1`` / ``inference_call_count_v1`` / ``token_usage_v1`` / ``invocation_duration_v1``, and the
latency percentiles of a result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.summary import latency_percentiles, latency_text
from agentgauge.traces import Span, read_conversations
from agentgauge.traces._usage import span_usage, turn_cost

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
EFFICIENCY = {"tool_call_count_v1": 0, "inference_call_count_v1": 0, "token_usage_v1": 0, "invocation_duration_v1": 0}


def test_helm_sample_usage_matches_what_agentevals_reports() -> None:
    # agentevals reports 2 model calls and 3,906 tokens for samples/helm.json (1820+13 and 1956+117).
    [conversation] = read_conversations(AE / "helm.json").conversations
    [turn] = conversation.invocations
    assert turn.usage is not None
    assert (turn.usage.model_calls, turn.usage.total_tokens) == (2, 3906)
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (3776, 130)
    # ADK's call_llm spans hold no cache counts; the OpenLLMetry spans inside them do (0, then 1792).
    assert turn.usage.cached_tokens == 1792
    assert turn.usage.reasoning_tokens == 0
    assert turn.usage.model == "gpt-4.1-mini"
    # invoke_agent lasted 4163.849 ms, its call_llm spans 2343.756 + 1799.329 ms, execute_tool 57.091 ms.
    assert (turn.duration, turn.model_duration, turn.tool_duration) == (4.164, 4.143, 0.057)


def test_openai_example_usage_per_turn() -> None:
    [conversation] = read_conversations(EXAMPLES / "openai_weather.otlp.jsonl").conversations
    usages = [inv.usage for inv in conversation.invocations]
    assert [(u.model_calls, u.input_tokens, u.output_tokens, u.total_tokens) for u in usages if u] == [
        (2, 40, 20, 60),
        (2, 40, 20, 60),
    ]
    # No agent span: a turn's wall time is the extent of its spans; no tool spans, so no tool time.
    assert all(inv.duration is not None and inv.duration > 0 for inv in conversation.invocations)
    assert all(inv.tool_duration is None for inv in conversation.invocations)


def test_adk_trace_without_usage_counts_calls_but_no_tokens() -> None:
    [conversation] = read_conversations(EXAMPLES / "adk_weather.otlp.jsonl").conversations
    for invocation in conversation.invocations:
        assert invocation.usage is not None
        assert invocation.usage.model_calls == 2
        assert invocation.usage.total_tokens is None  # the scripted model reports no usage: not measured, not 0


def _efficiency(result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        case["evalId"]: {m["metricName"]: m for m in case["overallEvalMetricResults"]}
        for case in result["evalCaseResults"]
    }


def test_eval_traces_fills_the_efficiency_metrics_for_helm(tmp_path: Path) -> None:
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0, **EFFICIENCY}}))
    result = CliRunner().invoke(app, [
        "eval", "--traces", str(AE / "helm.json"), "--eval-set", str(AE / "eval_set_helm.json"),
        "--config", str(config), "--output-dir", str(tmp_path / "out"), "--json",
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = _efficiency(json.loads(result.stdout))["helm_list_releases"]
    assert metrics["tool_call_count_v1"]["score"] == 1
    assert metrics["inference_call_count_v1"]["score"] == 2
    assert metrics["token_usage_v1"]["score"] == 3906
    details = metrics["token_usage_v1"]["details"]["tokenUsageDetails"]
    assert (details["input_tokens"], details["output_tokens"], details["cached_tokens"]) == (3776, 130, 1792)
    assert metrics["invocation_duration_v1"]["score"] == 4.164
    durations = metrics["invocation_duration_v1"]["details"]["durationDetails"]
    assert (durations["model_seconds"], durations["tool_seconds"]) == (4.143, 0.057)
    assert all(m["evalStatus"] == "informational" for n, m in metrics.items() if n in EFFICIENCY)


def test_eval_traces_summary_shows_usage_and_latency_percentiles(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "eval", "--traces", str(EXAMPLES), "--eval-set", str(EXAMPLES / "weather.evalset.json"),
        "--output-dir", str(tmp_path / "out"), "--markdown", str(tmp_path / "r.md"), "--html", str(tmp_path / "r.html"),
    ])  # fmt: skip
    assert result.exit_code == 0, result.output
    # The OpenAI trace's 4 calls carry 20 + 10 tokens each; the ADK trace's 4 calls carry none.
    assert "120 tokens (80 in / 40 out) · 8 model calls" in result.output
    assert "Latency per case: p50 " in result.output and "(2 cases)" in result.output
    assert "**Latency per case:** p50 " in (tmp_path / "r.md").read_text()
    assert '<span class="muted">Latency p50 / p95 / p99</span>' in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize(
    ("durations", "expected"),
    [
        ([], None),
        ([None], None),
        ([2.0], (1, 2.0, 2.0, 2.0)),
        ([4.0, 1.0, 3.0, 2.0], (4, 2.5, 4.0, 4.0)),  # agentevals: median, sorted[int(n*0.95)], sorted[int(n*0.99)]
        ([float(i) for i in range(1, 101)], (100, 50.5, 96.0, 100.0)),
        ([1.0, None, 3.0], (2, 2.0, 3.0, 3.0)),
    ],
)
def test_latency_percentiles_follow_agentevals(durations: list[float | None], expected: tuple[Any, ...] | None) -> None:
    found = latency_percentiles(durations)
    assert (None if found is None else (found.count, found.p50, found.p95, found.p99)) == expected


def test_latency_text() -> None:
    found = latency_percentiles([1.0, 2.0])
    assert found is not None
    assert latency_text(found) == "p50 1.50 s · p95 2.00 s · p99 2.00 s (2 cases)"


@pytest.mark.parametrize(
    ("attributes", "expected"),
    [
        ({"gen_ai.usage.input_tokens": 10, "gen_ai.usage.output_tokens": 3}, {"input_tokens": 10, "output_tokens": 3}),
        # OpenLLMetry's names, and values exported as strings (Jaeger tags, OTLP intValue)
        (
            {"gen_ai.usage.prompt_tokens": "7", "gen_ai.usage.completion_tokens": 2.0},
            {"input_tokens": 7, "output_tokens": 2},
        ),
        # GenAI semantic conventions / ADK 2.x cache attributes, and the older OpenLLMetry spelling
        (
            {"gen_ai.usage.cache_read.input_tokens": 5, "gen_ai.usage.cache_creation.input_tokens": 4},
            {"cached_tokens": 5, "cache_creation_tokens": 4},
        ),
        (
            {"gen_ai.usage.cache_read_input_tokens": 6, "gen_ai.usage.cache_creation_input_tokens": 1},
            {"cached_tokens": 6, "cache_creation_tokens": 1},
        ),
        ({"gen_ai.usage.reasoning.output_tokens": 9}, {"reasoning_tokens": 9}),
        # the semantic-conventions name wins over the older one; nonsense is ignored
        ({"gen_ai.usage.input_tokens": 1, "gen_ai.usage.prompt_tokens": 2}, {"input_tokens": 1}),
        ({"gen_ai.usage.input_tokens": -1, "gen_ai.usage.output_tokens": True}, {}),
    ],
)
def test_span_usage_reads_every_convention(attributes: dict[str, Any], expected: dict[str, int]) -> None:
    assert span_usage(Span("t", "s", "", "chat", attributes=attributes)) == expected


@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=6))
def test_turn_usage_sums_the_calls(calls: list[tuple[int, int]]) -> None:
    spans = [
        Span(
            "t",
            f"s{i}",
            "",
            "chat",
            start_ns=1 + i,
            end_ns=2 + i,
            attributes={"gen_ai.usage.input_tokens": a, "gen_ai.usage.output_tokens": b},
        )
        for i, (a, b) in enumerate(calls)
    ]
    usage = turn_cost(None, spans, [], spans).usage
    assert usage is not None
    assert usage.model_calls == len(calls)
    assert usage.input_tokens == sum(a for a, _ in calls)
    assert usage.total_tokens == sum(a + b for a, b in calls)
