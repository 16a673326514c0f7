"""``agentgauge serve --otlp --otlp-grpc-port``: the real command receives spans, says where, and a restarted server
lists what the first one received (the data directory's OTLP files are read back)."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from _browser import free_port

ROOT = Path(__file__).resolve().parents[2]
ADK_WEATHER = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"


def _serve(args: list[str]) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "serve", *args]
    return subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)


def _get(url: str, process: subprocess.Popen[str]) -> object:
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return json.load(response)
        except OSError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    return err


def test_serve_receives_and_a_restart_keeps_the_sessions(tmp_path: Path) -> None:
    if importlib.util.find_spec("grpc") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but grpcio is not installed", pytrace=False)
        pytest.skip("needs grpcio (pip install 'agentgauge[otlp]')")
    port, grpc_port = free_port(), free_port()
    data = tmp_path / "data"
    process = _serve(["--data-dir", str(data), "--port", str(port), "--otlp-grpc-port", str(grpc_port)])
    try:
        assert _get(f"http://127.0.0.1:{port}/api/live/sessions", process) == {"sessions": []}
        with socket.create_connection(("127.0.0.1", grpc_port), timeout=5):
            pass  # the gRPC receiver listens
        for line in ADK_WEATHER.read_bytes().splitlines():
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/v1/traces", data=line, headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(request, timeout=10) as response:
                assert response.status == 200
    finally:
        err = _stop(process)
    expected = f"receiving OTLP at http://127.0.0.1:{port}/v1/traces and /v1/logs; OTLP/gRPC on port {grpc_port}"
    assert expected in err and str(data / "otlp") in err
    again = _serve(["--data-dir", str(data), "--port", str(port), "--otlp"])
    try:
        listed = _get(f"http://127.0.0.1:{port}/api/live/sessions", again)
    finally:
        _stop(again)
    [row] = listed["sessions"]  # type: ignore[index]
    assert (row["appName"], row["turnCount"], row["toolCallCount"], row["ended"]) == ("weather_agent", 2, 2, True)


def test_without_otlp_nothing_is_received(tmp_path: Path) -> None:
    port = free_port()
    process = _serve(["--data-dir", str(tmp_path), "--port", str(port)])
    try:
        _get(f"http://127.0.0.1:{port}/health", process)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/traces", data=b"{}", headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code in (404, 405)
    finally:
        err = _stop(process)
    assert "receiving OTLP" not in err and not (tmp_path / "otlp").exists()


def _post(port: int, body: bytes, timeout: float = 10) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/traces", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return int(response.status)


def _span_export(trace: int, span: str, parent: str, session: str, text: str) -> bytes:
    user = json.dumps([{"role": "user", "parts": [{"type": "text", "content": text}]}])
    attributes = [
        {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
        {"key": "gen_ai.conversation.id", "value": {"stringValue": session}},
        {"key": "gen_ai.input.messages", "value": {"stringValue": user}},
        {"key": "gen_ai.usage.prompt_tokens", "value": {"intValue": "3"}},
    ]
    ids = {"traceId": f"{trace:032x}", "spanId": span, "parentSpanId": parent}
    spans = [{**ids, "name": "chat m", "startTimeUnixNano": str(10**18 + trace), "attributes": attributes}]
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).encode()


def test_hostile_span_links_neither_hang_the_server_nor_its_stop_nor_a_restart(tmp_path: Path) -> None:
    port = free_port()
    data = tmp_path / "data"
    process = _serve(["--data-dir", str(data), "--port", str(port), "--otlp"])
    a, b = "00000000000000aa", "00000000000000bb"
    try:
        _get(f"http://127.0.0.1:{port}/health", process)
        assert _post(port, _span_export(1, a, a, "own-parent", "first")) == 200
        assert _post(port, _span_export(2, a, b, "loop", "second")) == 200
        assert _post(port, _span_export(2, b, a, "loop", "second again")) == 200
        for _ in range(3):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live/sessions", timeout=2) as response:
                assert {r["key"] for r in json.load(response)["sessions"]} == {"own-parent", "loop"}
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=15)  # stops: no thread is pinned walking a loop
    again = _serve(["--data-dir", str(data), "--port", str(port), "--otlp"])
    try:
        started = time.monotonic()
        listed = _get(f"http://127.0.0.1:{port}/api/live/sessions", again)
        assert time.monotonic() - started < 20  # the restart reads the loops back without hanging
    finally:
        _stop(again)
    rows = {r["key"]: r for r in listed["sessions"]}  # type: ignore[index]
    assert rows["own-parent"]["turnCount"] == 1 and rows["loop"]["turnCount"] >= 1


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's RSS from /proc")
def test_the_memory_budget_holds_while_one_session_grows(tmp_path: Path) -> None:
    """One session fed 30 traces of 3 MB (90 MB) by a server given 8 MiB for spans: its memory stays far below
    what holding them takes (the session being updated has its older traces dropped, read back when opened)."""
    port = free_port()
    args = ["--data-dir", str(tmp_path / "data"), "--port", str(port), "--otlp", "--live-memory-mb", "8"]
    process = _serve(args)
    try:
        _get(f"http://127.0.0.1:{port}/health", process)
        assert _post(port, _span_export(1, "0000000000000001", "", "big", "warm up")) == 200
        before = _rss_mib(process.pid)
        for trace in range(2, 32):
            assert _post(port, _span_export(trace, "0000000000000001", "", "big", "x" * 3_000_000), 30) == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/live/sessions", timeout=10) as response:
            [row] = json.load(response)["sessions"]
        grown = _rss_mib(process.pid) - before
    finally:
        _stop(process)
    assert (row["turnCount"], row["traceCount"], row["inputTokens"]) == (31, 31, 93)
    print(f"RSS grew {grown:.0f} MiB")
    assert grown < 60, f"grew {grown:.0f} MiB for 90 MB received"  # generous; holding them all takes 90+ MiB
