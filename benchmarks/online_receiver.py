"""The receiver of ``agentgauge serve --otlp`` with and without online rules: throughput and acknowledgement latency.

10,000 sessions (one trace each: an agent span, two model calls with GenAI message content and a tool call) are
made with the OpenTelemetry SDK beforehand, then sent by the SDK's own OTLP/HTTP exporters (protobuf) from
``--clients`` threads on loopback, ``--sessions-per-request`` sessions per export, to a fresh ``agentgauge serve
--otlp`` process: once without rules and once with ``--online`` rules scoring 10% of the sessions with
deterministic metrics (a tool-use assertion and the tool-call count), alternately, ``--repeats`` times each.
Reported per side (medians): sessions received per second, the mean and p95 time an export waits for its
acknowledgement, the receiver process's CPU time per session while it receives (from ``/proc``: the figure that
does not move with the machine's other load), the scoring processes' CPU, and, with rules, the sessions scored once
the receiver went quiet. The ratio with/without is what
the receiver promises to keep within 10%.

    .venv/bin/python benchmarks/online_receiver.py            # 10,000 sessions, 3 repeats per side
    .venv/bin/python benchmarks/online_receiver.py --sessions 1000 --repeats 1   # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the harness's modules

from _serve import _cpu_seconds as cpu_seconds
from _serve import _free_port as free_port
from _serve import _start as start_server

RULES = """
session_end: {settle_seconds: 1, idle_seconds: 120}
queue_size: 10000
rules:
  - name: sampled
    sample_rate: 0.1
    seed: 1
    max_per_hour: 100000
    metrics:
      - {metricName: trajectory_tool_used, threshold: 1, criterion: {assertion: {tools: [get_weather]}}}
      - {metricName: tool_call_count_v1}
"""


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def make_sessions(count: int) -> list[list[Any]]:
    """``count`` sessions as lists of finished SDK spans (made once, before anything is timed)."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench_loop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("bench.online")
    sessions: list[list[Any]] = []
    for number in range(count):
        key = f"bench-{number:06d}"
        with tracer.start_as_current_span("invoke_agent weather") as turn:
            turn.set_attribute("gen_ai.operation.name", "invoke_agent")
            turn.set_attribute("gen_ai.conversation.id", key)
            user = json.dumps([{"role": "user", "parts": [{"type": "text", "content": f"Weather in city {number}?"}]}])
            with tracer.start_as_current_span("chat model") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.input.messages", user)
                call = {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": str(number)}}
                chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [call]}]))
                chat.set_attribute("gen_ai.usage.input_tokens", 40)
                chat.set_attribute("gen_ai.usage.output_tokens", 6)
            with tracer.start_as_current_span("execute_tool get_weather") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "get_weather")
                tool.set_attribute("gen_ai.tool.call.id", "c1")
            with tracer.start_as_current_span("chat model") as chat:
                chat.set_attribute("gen_ai.operation.name", "chat")
                chat.set_attribute("gen_ai.input.messages", user)
                text = {"type": "text", "content": f"It is sunny in city {number}."}
                chat.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [text]}]))
        sessions.append(list(memory.get_finished_spans()))
        memory.clear()
    provider.shutdown()
    return sessions


def _start_server(port: int, data: Path, rules: Path | None) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "serve", "--otlp", "--port", str(port)]
    command += ["--data-dir", str(data), *(["--online", str(rules)] if rules is not None else [])]
    return start_server(command, dict(os.environ), port)


def _send(port: int, batches: list[list[Any]], latencies: list[float], errors: list[str]) -> None:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{port}/v1/traces", timeout=60)
    for batch in batches:
        began = time.perf_counter()
        outcome = exporter.export(batch)
        latencies.append(time.perf_counter() - began)
        if outcome is not SpanExportResult.SUCCESS:
            errors.append(str(outcome))
    exporter.shutdown()


def _scored(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live/online", timeout=30) as answer:
        counts = json.load(answer)["rules"][0]["counts"]
    return int(counts["scored"] + counts["errors"])


def _wait_for_workers(port: int) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live/online", timeout=30) as answer:
            workers = json.load(answer)["workers"]
        if workers["started"] == workers["count"]:
            return
        time.sleep(0.2)
    raise RuntimeError("the online workers did not start")


def run_side(sessions: list[list[Any]], *, online: bool, clients: int, per_request: int) -> dict[str, Any]:
    """One fresh server, every session sent; the side's figures."""
    with tempfile.TemporaryDirectory(prefix="agentgauge-online-bench-") as folder:
        rules = None
        if online:
            rules = Path(folder) / "rules.yaml"
            rules.write_text(RULES, encoding="utf-8")
        port = free_port()
        process = _start_server(port, Path(folder) / "data", rules)
        try:
            if online:  # the scoring processes start with the server: measure the receiver once they have
                _wait_for_workers(port)
            batches = [
                [span for session in sessions[i : i + per_request] for span in session]
                for i in range(0, len(sessions), per_request)
            ]
            shares = [batches[i::clients] for i in range(clients)]
            latencies: list[float] = []
            errors: list[str] = []
            threads = [threading.Thread(target=_send, args=(port, share, latencies, errors)) for share in shares]
            workers = _children(process.pid)
            cpu_before = cpu_seconds(process.pid), sum(cpu_seconds(w) for w in workers)
            began = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - began
            server_cpu = cpu_seconds(process.pid) - cpu_before[0]
            workers_cpu = sum(cpu_seconds(w) for w in workers) - cpu_before[1]
            figures: dict[str, Any] = {
                "sessions_per_second": len(sessions) / elapsed,
                "ack_mean_ms": statistics.fmean(latencies) * 1000,
                "ack_p95_ms": statistics.quantiles(latencies, n=20)[-1] * 1000,
                "server_cpu_ms_per_session": server_cpu * 1000 / len(sessions),
                "workers_cpu_s": workers_cpu,
                "errors": len(errors),
            }
            if online:
                deadline = time.monotonic() + 300
                while _scored(port) < 0.1 * len(sessions) * 0.8 and time.monotonic() < deadline:
                    time.sleep(0.5)
                time.sleep(2)
                figures["scored"] = _scored(port)
            return figures
        finally:
            process.terminate()
            process.wait(30)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--sessions-per-request", type=int, default=25)
    args = parser.parse_args(argv)
    os.environ.setdefault("OTEL_SDK_DISABLED", "false")
    sessions = make_sessions(args.sessions)
    sides: dict[str, list[dict[str, Any]]] = {"without rules": [], "with rules": []}
    for _ in range(args.repeats):  # alternately, so a busy moment of the machine falls on both sides alike
        for name in sides:
            figures = run_side(
                sessions, online=name == "with rules", clients=args.clients, per_request=args.sessions_per_request
            )
            sides[name].append(figures)
            print(name, json.dumps({k: round(v, 2) for k, v in figures.items()}), flush=True)
    medians = {
        name: {key: statistics.median(run[key] for run in runs) for key in runs[0]} for name, runs in sides.items()
    }
    without, with_rules = medians["without rules"], medians["with rules"]
    print(f"\n{args.sessions} sessions, {args.clients} exporters, {args.sessions_per_request} sessions per export")
    print("| side | sessions/s | ack mean (ms) | ack p95 (ms) | receiver CPU per session (ms) | scored |")
    print("|---|---|---|---|---|---|")
    for name, figures in medians.items():
        scored = f"{figures['scored']:.0f}" if "scored" in figures else "–"
        print(
            f"| {name} | {figures['sessions_per_second']:.0f} | {figures['ack_mean_ms']:.1f} | "
            f"{figures['ack_p95_ms']:.1f} | {figures['server_cpu_ms_per_session']:.2f} | {scored} |"
        )
    print(
        f"ratio with/without: throughput {with_rules['sessions_per_second'] / without['sessions_per_second']:.3f}, "
        f"ack mean {with_rules['ack_mean_ms'] / without['ack_mean_ms']:.3f}, "
        f"ack p95 {with_rules['ack_p95_ms'] / without['ack_p95_ms']:.3f}, "
        f"receiver CPU per session {with_rules['server_cpu_ms_per_session'] / without['server_cpu_ms_per_session']:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
