"""agentevals' sample traces (tests/traces/data/agentevals: Jaeger exports and a Tempo export of kagent) replayed
over OTLP/HTTP, a few spans per request in shuffled order: the live sessions hold the same conversations as
``eval --traces --by-session`` reads from the files."""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app
from agentgauge.traces import Span, load_traces, read_conversations

SAMPLES = Path(__file__).resolve().parents[1] / "traces" / "data" / "agentevals"
JAEGER = ["helm.json", "helm_2.json", "helm_3.json", "k8s.json"]


def _any_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any_value(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [{"key": k, "value": _any_value(v)} for k, v in value.items()]}}
    return {"stringValue": str(value)}


def _attributes(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _any_value(v)} for k, v in values.items() if v is not None]


def _otlp_request(spans: list[Span]) -> dict[str, Any]:
    """Spans as one OTLP JSON export request (one resource batch per span, as an exporter of many services may)."""
    batches = []
    for span in spans:
        attributes = {k: v for k, v in span.attributes.items() if k not in ("otel.scope.name", "otel.scope.version")}
        raw = {
            "traceId": span.trace_id,
            "spanId": span.span_id,
            "parentSpanId": span.parent_id,
            "name": span.name,
            "startTimeUnixNano": str(span.start_ns),
            "endTimeUnixNano": str(span.end_ns),
            "attributes": _attributes(attributes),
            "events": [
                {"name": e.name, "timeUnixNano": str(e.time_ns), "attributes": _attributes(e.attributes)}
                for e in span.events
            ],
        }
        scope = {"name": span.scope} if span.scope else {}
        batches.append(
            {"resource": {"attributes": _attributes(span.resource)}, "scopeSpans": [{"scope": scope, "spans": [raw]}]}
        )
    return {"resourceSpans": batches}


@pytest.fixture
async def http(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ServerConfig(data_dir=tmp_path, otlp=True))
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
        yield client


def _shape(conversation: Any) -> list[tuple[str, str | None, list[str]]]:
    return [
        (i.user_content.content, i.final_response.content if i.final_response else None, [t.name for t in i.tools])
        for i in conversation.invocations
    ]


async def _live_shapes(http: httpx.AsyncClient) -> list[list[tuple[str, str | None, list[str]]]]:
    shapes = []
    for row in (await http.get("/api/live/sessions")).json()["sessions"]:
        detail = (await http.get(f"/api/live/sessions/{row['key']}")).json()
        if detail["turns"]:
            shapes.append([(t["user"], t["response"], [c["name"] for c in t["tools"]]) for t in detail["turns"]])
    return sorted(shapes)


@pytest.mark.parametrize("name", JAEGER)
async def test_a_jaeger_sample_replayed_over_otlp(http: httpx.AsyncClient, name: str) -> None:
    spans = [s for trace in load_traces(SAMPLES / name) for s in trace.spans]
    random.Random(name).shuffle(spans)  # exporters send children first, batches interleave
    for start in range(0, len(spans), 7):
        answer = await http.post("/v1/traces", json=_otlp_request(spans[start : start + 7]))
        assert answer.status_code == 200, answer.text
    expected = sorted(_shape(c) for c in read_conversations(SAMPLES / name, by_session=True).conversations)
    assert await _live_shapes(http) == expected
    assert expected and all(turns for turns in expected)


async def test_the_tempo_sample_posted_as_is(http: httpx.AsyncClient) -> None:
    doc = json.loads((SAMPLES / "tempo_export_with_batches.json").read_bytes())
    answer = await http.post("/v1/traces", json={"resourceSpans": doc["batches"]})
    assert answer.status_code == 200, answer.text
    path = SAMPLES / "tempo_export_with_batches.json"
    expected = sorted(_shape(c) for c in read_conversations(path, by_session=True).conversations)
    assert await _live_shapes(http) == expected and expected
