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
