"""``serve --otlp``: OTLP/HTTP (protobuf and JSON, gzip) and OTLP/gRPC from the OpenTelemetry SDK's own exporters,
and what the receiver refuses (wrong media type, oversized and gzip-bomb bodies, foreign Host, missing token,
remote writers)."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentgauge.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[2]
ADK_WEATHER = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"


def _needs(module: str) -> None:
    """Skip without an optional component, except under CI=true where it must be installed."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {module} is not installed (pip install -e '.[dev]')", pytrace=False)
        pytest.skip(f"needs {module}")


def _client(app: Any, peer: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(peer, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://localhost")


@pytest.fixture
async def receiver(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(ServerConfig(data_dir=tmp_path, otlp=True, max_upload_bytes=200_000))
    async with _client(app) as http:
        yield http


def _sdk_spans(endpoint_exporter: Any, session: str = "s-1") -> None:
    """Two turns of an OpenTelemetry-instrumented agent loop (GenAI conventions), exported with ``exporter``."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "weather_loop"}))
    provider.add_span_processor(SimpleSpanProcessor(endpoint_exporter))
    tracer = provider.get_tracer("test.loop")
    for city, answer in (("Paris", "sunny"), ("Oslo", "snowy")):
        with tracer.start_as_current_span("invoke_agent weather") as turn:
            turn.set_attribute("gen_ai.operation.name", "invoke_agent")
            turn.set_attribute("gen_ai.conversation.id", session)
            user = [{"role": "user", "parts": [{"type": "text", "content": f"Weather in {city}?"}]}]
            with tracer.start_as_current_span("chat scripted") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.input.messages", json.dumps(user))
                call = {"type": "tool_call", "id": f"c_{city}", "name": "get_weather", "arguments": {"city": city}}
                chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [call]}]))
                chat.set_attribute("gen_ai.usage.input_tokens", 40)
                chat.set_attribute("gen_ai.usage.output_tokens", 6)
            with tracer.start_as_current_span("execute_tool get_weather") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "get_weather")
                tool.set_attribute("gen_ai.tool.call.id", f"c_{city}")
                tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"city": city}))
                tool.set_attribute("gen_ai.tool.call.result", json.dumps({"forecast": answer}))
            with tracer.start_as_current_span("chat scripted") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.input.messages", json.dumps(user))
                text = {"type": "text", "content": f"It is {answer} in {city}."}
                chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [text]}]))
                chat.set_attribute("gen_ai.usage.input_tokens", 60)
                chat.set_attribute("gen_ai.usage.output_tokens", 9)
    provider.shutdown()


def _check_session(url: str, session: str = "s-1", headers: dict[str, str] | None = None) -> dict[str, Any]:
    detail = httpx.get(f"{url}/api/live/sessions/{session}", headers=headers).json()
    assert [t["user"] for t in detail["turns"]] == ["Weather in Paris?", "Weather in Oslo?"]
    assert [t["response"] for t in detail["turns"]] == ["It is sunny in Paris.", "It is snowy in Oslo."]
    assert [[c["name"] for c in t["tools"]] for t in detail["turns"]] == [["get_weather"], ["get_weather"]]
    assert detail["turns"][0]["tools"][0]["result"] == {"forecast": "sunny"}
    assert (detail["inputTokens"], detail["outputTokens"], detail["toolCallCount"]) == (200, 30, 2)
    assert detail["ended"] and all(t["durationMs"] is not None and t["durationMs"] >= 0 for t in detail["turns"])
    return detail  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def otlp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, int]]:
    """A real server with OTLP/HTTP and OTLP/gRPC; yields (base URL, data directory, gRPC port)."""
    from _browser import free_port, running_server

    _needs("grpc")
    data = tmp_path_factory.mktemp("otlp-data")
    port = free_port()
    with running_server(create_app(ServerConfig(data_dir=data, otlp=True, otlp_grpc_port=port))) as url:
        yield url, data, port


@pytest.mark.parametrize("compression", ["none", "gzip"])
def test_the_sdk_http_exporter_sends_a_session(otlp_server: tuple[str, Path, int], compression: str) -> None:
    _needs("opentelemetry.exporter.otlp.proto.http")
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    url, data, _ = otlp_server
    session = f"http-{compression}"
    kind = Compression.Gzip if compression == "gzip" else Compression.NoCompression
    _sdk_spans(OTLPSpanExporter(endpoint=f"{url}/v1/traces", compression=kind), session)
    _check_session(url, session)
    stored = b"".join(p.read_bytes() for p in (data / "otlp").glob("received-*.jsonl"))
    assert session.encode() in stored  # on disk before the exporter got its answer


def test_the_sdk_grpc_exporter_sends_a_session(otlp_server: tuple[str, Path, int]) -> None:
    _needs("opentelemetry.exporter.otlp.proto.grpc")
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    url, _, port = otlp_server
    _sdk_spans(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}", insecure=True), "grpc-1")
    _check_session(url, "grpc-1")


def test_grpc_calls_need_the_token_when_the_server_has_one(tmp_path: Path) -> None:
    _needs("grpc")
    _needs("opentelemetry.exporter.otlp.proto.grpc")
    from _browser import free_port, running_server
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    port = free_port()
    app = create_app(ServerConfig(data_dir=tmp_path, otlp=True, otlp_grpc_port=port, token="sekret"))
    with running_server(app) as url:
        auth = {"Authorization": "Bearer sekret"}
        _sdk_spans(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}", insecure=True, timeout=5), "anonymous")
        assert httpx.get(f"{url}/api/live/sessions", headers=auth).json() == {"sessions": []}
        exporter = OTLPSpanExporter(
            endpoint=f"http://127.0.0.1:{port}", insecure=True, headers={"authorization": "Bearer sekret"}
        )
        _sdk_spans(exporter, "signed")
        _check_session(url, "signed", auth)


async def test_otlp_json_with_gzip_is_received(receiver: httpx.AsyncClient) -> None:
    for line in ADK_WEATHER.read_bytes().splitlines():
        answer = await receiver.post(
            "/v1/traces",
            content=gzip.compress(line),
            headers={"Content-Type": "application/json", "Content-Encoding": "gzip"},
        )
        assert (answer.status_code, answer.json()) == (200, {})
    [row] = (await receiver.get("/api/live/sessions")).json()["sessions"]
    assert (row["appName"], row["turnCount"], row["toolCallCount"]) == ("weather_agent", 2, 2)
    assert row["firstUserText"] == "What is the weather in Paris?"


async def test_protobuf_is_answered_in_protobuf(receiver: httpx.AsyncClient) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    answer = await receiver.post(
        "/v1/traces",
        content=ExportTraceServiceRequest().SerializeToString(),
        headers={"Content-Type": "application/x-protobuf"},
    )
    assert (answer.status_code, answer.headers["content-type"], answer.content) == (200, "application/x-protobuf", b"")


@pytest.mark.parametrize(
    ("headers", "body", "status", "message"),
    [
        ({"Content-Type": "text/plain"}, b"{}", 415, "OTLP/HTTP takes application/x-protobuf or application/json"),
        ({}, b"{}", 415, "got no Content-Type"),
        ({"Content-Type": "application/json", "Content-Encoding": "br"}, b"{}", 400, "'br' is not supported"),
        ({"Content-Type": "application/json", "Content-Encoding": "gzip"}, b"not gzip", 400, "invalid gzip body"),
        ({"Content-Type": "application/json"}, b'{"data": []}', 400, "not an OTLP traces export"),
        ({"Content-Type": "application/x-protobuf"}, b"\xff\xff\xff", 400, "invalid OTLP protobuf"),
        ({"Content-Type": "application/json"}, b"x" * 200_001, 413, "request body too large"),
        (
            {"Content-Type": "application/json", "Content-Encoding": "gzip"},
            gzip.compress(b" " * 50_000_000),  # 50 MB of spaces in ~50 kB: a gzip bomb
            413,
            "too large once decompressed: limit is 200000 bytes",
        ),
    ],
)
async def test_bad_requests_are_refused_with_a_reason(
    receiver: httpx.AsyncClient, headers: dict[str, str], body: bytes, status: int, message: str
) -> None:
    answer = await receiver.post("/v1/traces", content=body, headers=headers)
    assert answer.status_code == status
    assert message in answer.json()["detail"]
    assert (await receiver.get("/api/live/sessions")).json() == {"sessions": []}


async def test_the_servers_guards_apply(tmp_path: Path) -> None:
    body = ADK_WEATHER.read_bytes().splitlines()[0]
    json_type = {"Content-Type": "application/json"}
    app = create_app(ServerConfig(data_dir=tmp_path / "a", otlp=True))
    async with _client(app) as http:
        foreign = await http.post("/v1/traces", content=body, headers={**json_type, "Host": "evil.example"})
        assert foreign.status_code == 403
        cross_site = await http.post(
            "/v1/traces", content=body, headers={**json_type, "Origin": "https://evil.example"}
        )
        assert cross_site.status_code == 403
    async with _client(app, peer="10.1.2.3") as remote:
        refused = await remote.post("/v1/traces", content=body, headers=json_type)
        assert refused.status_code == 403 and "--allow-remote-writes" in refused.json()["detail"]
    tokened = create_app(ServerConfig(data_dir=tmp_path / "b", otlp=True, token="t0k"))
    async with _client(tokened, peer="10.1.2.3") as remote:
        assert (await remote.post("/v1/traces", content=body, headers=json_type)).status_code == 401
        signed = await remote.post("/v1/traces", content=body, headers={**json_type, "Authorization": "Bearer t0k"})
        assert signed.status_code == 200


async def test_without_otlp_there_is_no_receiver(tmp_path: Path) -> None:
    async with _client(create_app(ServerConfig(data_dir=tmp_path))) as http:
        assert (await http.post("/v1/traces", json={}, headers={})).status_code in (404, 405)
        listed = await http.get("/api/live/sessions")
        assert listed.status_code == 404 and "agentgauge serve --otlp" in listed.json()["detail"]


async def test_the_live_routes_are_in_the_openapi_schema(receiver: httpx.AsyncClient) -> None:
    paths = (await receiver.get("/openapi.json")).json()["paths"]
    for path in (
        "/api/live/sessions",
        "/api/live/sessions/{session_key}",
        "/api/live/sessions/{session_key}/score",
        "/api/live/sessions/{session_key}/save",
        "/api/live/events",
        "/v1/traces",
        "/v1/logs",
    ):
        assert path in paths, path


def test_grpc_spans_and_logs_of_a_recorded_adk_run_are_merged(otlp_server: tuple[str, Path, int]) -> None:
    """ADK 2.x with EVENT_ONLY: the spans carry no content, the log records do; both sent over OTLP/gRPC."""
    import grpc
    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2, logs_service_pb2_grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    url, _, port = otlp_server
    recorded = ROOT / "tests" / "traces" / "data" / "recorded" / "adk_event_only"
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        traces = trace_service_pb2_grpc.TraceServiceStub(channel)
        for line in (recorded / "spans.otlp.jsonl").read_bytes().splitlines():
            request = ParseDict(json.loads(line), trace_service_pb2.ExportTraceServiceRequest())
            traces.Export(request, timeout=10)
        logs = logs_service_pb2_grpc.LogsServiceStub(channel)
        for line in (recorded / "logs.otlp.jsonl").read_bytes().splitlines():
            logs.Export(ParseDict(json.loads(line), logs_service_pb2.ExportLogsServiceRequest()), timeout=10)
    rows = httpx.get(f"{url}/api/live/sessions").json()["sessions"]
    [row] = [
        r for r in rows if r["firstUserText"] == "What is the weather in Paris?" and r["appName"] == "weather_agent"
    ]
    detail = httpx.get(f"{url}/api/live/sessions/{row['key']}").json()
    assert [t["response"] for t in detail["turns"]] == ["It is sunny in Paris, 21 °C.", "It is sunny in Tokyo, 21 °C."]
