"""``agentgauge traces doctor``: per producer, what a real trace export lacks for scoring and the fix; terminal output
within 80 columns, ``--format json``, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.traces import Span, Trace, build_traces
from agentgauge.traces._doctor import diagnose, diagnose_traces

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
RECORDED = DATA / "recorded"
HAND = DATA / "handmade"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
runner = CliRunner()


def _checks(path: Path) -> dict[str, dict[str, tuple[str, str]]]:
    report = diagnose(path)
    return {p.producer: {c.name: (c.status, c.detail) for c in p.checks} for p in report.producers}


def test_adk_without_content_capture_is_not_ready_and_names_the_settings() -> None:
    result = runner.invoke(app, ["traces", "doctor", str(RECORDED / "adk_no_content.otlp.json")])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "Google ADK 2.x (default schema): 1 trace(s), 10 span(s)" in out
    assert "MISSING message content: 0 of 4 model calls" in out
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in out
    assert "ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1" in out
    assert "MISSING log records: none merged into the spans" in out
    assert "MISSING tool results: 0 of 2 tool calls" in out
    assert out.rstrip().endswith("not ready: no message content to read (see the fixes above)")
    assert max(len(line) for line in out.splitlines()) <= 80


def test_adk_event_only_with_its_logs_reads_content_from_log_records() -> None:
    checks = _checks(RECORDED / "adk_event_only")
    adk = checks["Google ADK 2.x (default schema)"]
    assert adk["message content"] == ("ok", "4 of 4 model calls")
    assert adk["log records"] == ("ok", "content merged from OpenTelemetry log records")
    assert adk["tool results"] == ("ok", "2 of 2 tool calls")
    # Without the logs the same spans lack everything: only the log file differs.
    spans_only = _checks(RECORDED / "adk_event_only" / "spans.otlp.jsonl")["Google ADK 2.x (default schema)"]
    assert spans_only["message content"][0] == "missing" and spans_only["log records"][0] == "missing"


def test_examples_name_each_producer_and_the_usage_gap() -> None:
    result = runner.invoke(app, ["traces", "doctor", str(EXAMPLES)])
    assert result.exit_code == 0, result.output
    checks = _checks(EXAMPLES)
    assert checks["OpenAI instrumentation (openai-v2)"] == {
        "message content": ("ok", "4 of 4 model calls"),
        "token usage": ("ok", "4 of 4 model calls"),
        "tool results": ("ok", "2 of 2 requested tool calls"),
    }
    # The scripted model behind the ADK recording reports no usage: a gap, not a blocker.
    assert checks["Google ADK 2.x (default schema)"]["token usage"] == ("missing", "0 of 4 model calls")
    # ... and the verdict names it: ready, with that gap.
    verdict = " ".join(result.output.split("\n\n")[-1].split())
    assert verdict.startswith("ready with gaps: token usage: 0 of 4 model calls (Google ADK 2.x (default schema))")
    assert "1 of 2 traces have no agent span" in result.output


def test_agentevals_sample_is_adk1_with_nested_openllmetry_calls() -> None:
    checks = _checks(AE / "helm.json")
    assert checks["Google ADK 1.x (legacy schema)"] == {
        "message content": ("ok", "2 of 2 model calls"),
        "token usage": ("ok", "2 of 2 model calls"),
        "tool results": ("ok", "1 of 1 tool calls"),
    }
    [(status, detail)] = checks["OpenLLMetry / Traceloop"].values()
    assert status == "note" and detail.startswith("2 call(s) inside another instrumentation's model-call spans")


def test_json_format() -> None:
    result = runner.invoke(app, ["traces", "doctor", str(RECORDED / "adk_no_content.otlp.json"), "--format", "json"])
    assert result.exit_code == 1
    document = json.loads(result.stdout)
    assert document["ready"] is False
    assert (document["files"], document["traces"], document["genai_traces"]) == (1, 1, 1)
    [producer] = document["producers"]
    content = next(c for c in producer["checks"] if c["name"] == "message content")
    assert content["status"] == "missing"
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY" in content["fix"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "yaml"], "--format must be 'text' or 'json', not 'yaml'"),
        ([], "file not found"),
    ],
)
def test_bad_input_is_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    target = str(tmp_path / "missing.json") if not args else str(EXAMPLES)
    result = runner.invoke(app, ["traces", "doctor", target, *args])
    assert result.exit_code == 2
    assert message in result.output


def _llm(span_id: str, scope: str, **attributes: Any) -> Span:
    return Span("t1", span_id, "root", f"chat {span_id}", 1, 2, attributes={"gen_ai.operation.name": "chat",
                **attributes}, scope=scope)  # fmt: skip


@pytest.mark.parametrize(
    ("span", "producer", "fix"),
    [
        (_llm("a", "opentelemetry.instrumentation.langchain"), "LangChain / LangGraph", "TRACELOOP_TRACE_CONTENT=true"),
        (_llm("b", "strands.telemetry.tracer"), "Strands Agents", "OTEL_SEMCONV_STABILITY_OPT_IN"),
        (_llm("c", "opentelemetry.instrumentation.openai_v2"), "OpenAI instrumentation (openai-v2)",
         "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental"),
        (_llm("d", "opentelemetry.instrumentation.openai.v1", **{"llm.is_streaming": False}),
         "OpenLLMetry / Traceloop", "TRACELOOP_TRACE_CONTENT=true"),
        (_llm("e", "my.framework"), "GenAI semantic conventions", "gen_ai.input.messages"),
    ],
)  # fmt: skip
def test_producers_without_content_get_their_own_fix(span: Span, producer: str, fix: str) -> None:
    root = Span("t1", "root", "", "request", 0, 3)
    traces: list[Trace] = build_traces([root, span])
    report = diagnose_traces(traces, "<test>", 1)
    [found] = report.producers
    assert found.producer == producer
    content = next(c for c in found.checks if c.name == "message content")
    assert content.status == "missing" and fix in content.fix
    assert not report.ready


def _genai_trace(content: list[bool]) -> dict[str, object]:
    """A GenAI-convention trace whose model calls carry content where ``content`` says so."""
    agent = [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}]
    root = {"traceId": "ab" * 16, "spanId": "01" * 8, "name": "invoke_agent a", "attributes": agent}
    spans: list[dict[str, object]] = [{**root, "startTimeUnixNano": "1", "endTimeUnixNano": "9"}]
    for number, has in enumerate(content):
        attributes = [{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}]
        if has:
            text = json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"q{number}"}]}])
            attributes.append({"key": "gen_ai.input.messages", "value": {"stringValue": text}})
        chat = {"traceId": "ab" * 16, "spanId": f"{number + 2:016x}", "parentSpanId": "01" * 8, "name": "chat m"}
        spans.append({**chat, "startTimeUnixNano": str(2 + number), "endTimeUnixNano": "9", "attributes": attributes})
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}


@pytest.mark.parametrize(
    ("content", "verdict", "code"),
    [
        ([True] * 4, "ready with gaps", 0),
        ([True, False, True, False], "ready with gaps", 0),
        ([False] * 4, "not ready", 1),
    ],
)
def test_the_verdict_follows_the_findings(tmp_path: Path, content: list[bool], verdict: str, code: int) -> None:
    path = tmp_path / "t.otlp.json"
    path.write_text(json.dumps(_genai_trace(content)))
    result = runner.invoke(app, ["traces", "doctor", str(path)])
    assert result.exit_code == code, result.output
    last = " ".join(result.output.split("\n\n")[-1].split())
    assert last.startswith(f"{verdict}:"), last
    if content == [True, False, True, False]:  # partial content is a gap, named, not "ready"
        assert "message content: 2 of 4 model calls (GenAI semantic conventions)" in last
    as_json = json.loads(runner.invoke(app, ["traces", "doctor", str(path), "--format", "json"]).output)
    assert as_json["verdict"] == verdict and as_json["ready"] is (code == 0)


def test_trpc_messages_withheld_by_its_attribute_policy_are_missing_content() -> None:
    # trpc-agent-go's span attribute policy writes an envelope instead of the messages (Omit(), Truncate(n)).
    omitted = json.dumps({"omitted": True})
    truncated = json.dumps({"truncated": True, "prefix": '[{"ro', "sha256": "ab", "original_bytes": 900})
    withheld = {
        "gen_ai.input.messages.otel": omitted,
        "gen_ai.output.messages.otel": truncated,
        "gen_ai.input.messages": omitted,
        "gen_ai.output.messages": omitted,
    }
    root = Span("t1", "root", "", "request", 0, 3)
    report = diagnose_traces(build_traces([root, _llm("a", "trpc.agent.go", **withheld)]), "<test>", 1)
    [found] = report.producers
    assert found.producer == "trpc-agent-go"
    content = next(c for c in found.checks if c.name == "message content")
    assert content.status == "missing" and "trace.WithSpanAttributePolicy" in content.fix
    assert "trace.AttrInputMessagesOTel" in content.fix and report.verdict == "not ready"
