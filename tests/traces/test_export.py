"""``agentgauge traces export``: evaluation results as OTLP spans, to a file or an OTLP/HTTP endpoint."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.traces import load_traces

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
ADK_TRACE = "9e43e9f89a84de12e90200637bec015e"
runner = CliRunner()


@pytest.fixture
def result_file(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    evaluated = runner.invoke(
        app,
        [
            "eval",
            "--traces",
            str(EXAMPLES),
            "--eval-set",
            str(EXAMPLES / "weather.evalset.json"),
            "--output-dir",
            str(out),
        ],
    )
    assert evaluated.exit_code == 0, evaluated.output
    [path] = out.rglob("*.evalset_result.json")
    return path


def test_export_to_file_joins_the_evaluated_traces(tmp_path: Path, result_file: Path) -> None:
    out = tmp_path / "spans.json"
    result = runner.invoke(app, ["traces", "export", str(result_file), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"exported 42 spans from 2 case result(s) to {out}"
    traces = {t.trace_id: t for t in load_traces(out)}
    assert ADK_TRACE in traces and "9ee8a6a84f2554946ee0647754e2dd27" in traces
    trace = traces[ADK_TRACE]
    [case_span] = trace.roots
    assert case_span.name == "evaluate_case weather_two_cities"
    assert case_span.attr("agentgauge.status") == "passed"
    assert case_span.attr("service.name") == "agentgauge"
    metrics = [s for s in trace.spans if s.name.startswith("evaluate ")]
    assert len(metrics) == 18  # 2 overall + 2 invocations x 2 metrics, and the same for 4 informational metrics
    overall = {s.attributes["gen_ai.evaluation.name"]: s.attributes for s in case_span.children if s in metrics}
    assert overall["response_match_score"]["gen_ai.evaluation.score.value"] == 1.0
    assert overall["response_match_score"]["gen_ai.evaluation.score.label"] == "passed"
    assert overall["tool_trajectory_avg_score"]["agentgauge.threshold"] == 1.0
    assert [e.name for e in metrics[0].events] == ["gen_ai.evaluation.result"]
    lisbon = [
        s.attributes
        for s in traces["9ee8a6a84f2554946ee0647754e2dd27"].spans
        if s.parent is not None and s.parent.name == "evaluate_invocation 2"
        and s.attributes["gen_ai.evaluation.name"] == "response_match_score"
    ]  # fmt: skip
    assert lisbon[0]["gen_ai.evaluation.score.label"] == "failed"
    assert lisbon[0]["gen_ai.evaluation.score.value"] == pytest.approx(10 / 13)


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, dict[str, str], Any]]]]:
    received: list[tuple[str, dict[str, str], Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append((self.path, dict(self.headers), body))
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


def test_export_posts_otlp_json_with_headers(
    result_file: Path, collector: tuple[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, received = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-env=1")
    result = runner.invoke(app, ["traces", "export", str(result_file), "--endpoint", url, "--header", "x-api=secret"])
    assert result.exit_code == 0, result.output
    assert "secret" not in result.output
    [(path, headers, body)] = received
    assert path == "/v1/traces"
    assert headers["x-api"] == "secret" and headers["x-env"] == "1"
    assert headers["Content-Type"] == "application/json"
    assert len(body["resourceSpans"][0]["scopeSpans"][0]["spans"]) == 42  # 18 + 24 for 4 informational metrics


def test_endpoint_from_environment_and_errors(
    result_file: Path, collector: tuple[str, list[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, received = collector
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    nothing = runner.invoke(app, ["traces", "export", str(result_file)])
    assert nothing.exit_code == 2 and "nothing to do" in nothing.output
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)
    assert runner.invoke(app, ["traces", "export", str(result_file)]).exit_code == 0
    assert received[-1][0] == "/v1/traces"
    wrong = runner.invoke(app, ["traces", "export", str(result_file), "--endpoint", url + "/v1/traces/x"])
    assert wrong.exit_code == 1 and "answered HTTP 404" in wrong.output
    down = runner.invoke(app, ["traces", "export", str(result_file), "--endpoint", "http://127.0.0.1:9"])
    assert down.exit_code == 1 and "cannot send spans to http://127.0.0.1:9/v1/traces" in down.output
    bad = runner.invoke(app, ["traces", "export", str(result_file), "--endpoint", url, "--header", "novalue"])
    assert bad.exit_code == 2 and "--header must be KEY=VALUE" in bad.output
    missing = runner.invoke(app, ["traces", "export", str(result_file.parent / "nope.json"), "--out", "x.json"])
    assert missing.exit_code == 2 and "file not found" in missing.output
