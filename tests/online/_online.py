"""Helpers of the online-evaluation tests: a real server with a rules file, sessions sent by the OpenTelemetry SDK's
own OTLP/HTTP exporter, and a collector-like loopback server recording what is posted to it."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("opentelemetry.sdk")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))  # the _browser helpers

TOOL_METRICS = """
    metrics:
      - {metricName: trajectory_tool_used, threshold: 1, criterion: {assertion: {tools: [get_weather]}}}
      - {metricName: tool_call_count_v1}
"""


@contextmanager
def online_server(data: Path, rules: str) -> Iterator[str]:
    """A server receiving OTLP with online rules ``rules`` (YAML) over ``data``; yields its base URL."""
    from _browser import running_server

    from agentgauge.server import ServerConfig, create_app

    data.mkdir(parents=True, exist_ok=True)
    path = data.parent / "rules.yaml"
    path.write_text(rules, encoding="utf-8")
    with running_server(create_app(ServerConfig(data_dir=data, otlp=True, online_rules=path))) as url:
        yield url


def send_sessions(
    url: str,
    keys: list[str],
    *,
    service: str = "weather_loop",
    content: Callable[[str], bool] = lambda key: True,
    spans: Any = None,
) -> None:
    """One trace per session key (an agent turn: a model call asking for a tool, the tool, the answer), exported
    by the SDK's OTLP/HTTP exporter; ``content(key)`` false leaves the messages out; ``spans`` (an in-memory
    exporter) also gets every span."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces")))
    if spans is not None:
        provider.add_span_processor(SimpleSpanProcessor(spans))
    tracer = provider.get_tracer("test.online")
    for key in keys:
        with tracer.start_as_current_span("invoke_agent weather") as turn:
            turn.set_attribute("gen_ai.operation.name", "invoke_agent")
            turn.set_attribute("gen_ai.agent.name", "weather")
            turn.set_attribute("gen_ai.conversation.id", key)
            user = [{"role": "user", "parts": [{"type": "text", "content": f"Weather for {key}?"}]}]
            with tracer.start_as_current_span("chat scripted") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                if content(key):
                    chat.set_attribute("gen_ai.input.messages", json.dumps(user))
                    call = {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": key}}
                    chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [call]}]))
            with tracer.start_as_current_span("execute_tool get_weather") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "get_weather")
                tool.set_attribute("gen_ai.tool.call.id", "c1")
            with tracer.start_as_current_span("chat scripted") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                if content(key):
                    chat.set_attribute("gen_ai.input.messages", json.dumps(user))
                    text = {"type": "text", "content": f"It is sunny for {key}."}
                    chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [text]}]))
    provider.shutdown()


def online_status(url: str) -> dict[str, Any]:
    return httpx.get(f"{url}/api/live/online").json()  # type: ignore[no-any-return]


def wait_for(url: str, done: Callable[[dict[str, Any]], bool], timeout: float = 60) -> dict[str, Any]:
    """The online status once ``done(status)`` holds (fails after ``timeout`` seconds, showing the last one)."""
    deadline = time.monotonic() + timeout
    while True:
        status = online_status(url)
        if done(status):
            return status
        if time.monotonic() > deadline:
            raise AssertionError(f"online evaluation did not get there: {json.dumps(status)[:2000]}")
        time.sleep(0.1)


def handled(status: dict[str, Any], rule: int = 0) -> int:
    """Sessions a rule scored or errored so far."""
    counts = status["rules"][rule]["counts"]
    return int(counts["scored"] + counts["errors"])


class Collector:
    """A loopback HTTP server recording every POST (path and JSON body), answering 200 ``{}``."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any]] = []
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                collector.posts.append((self.path, json.loads(body or b"null")))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
