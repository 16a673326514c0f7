"""The ``serve`` measure: GETs per second of one eval set from a real ``agentgauge serve`` on loopback.

The set is the generator's ADK-format file for 200 cases (0.74 MB), served as app ``bench``. ``clients`` threads
each send ``GET /api/apps/bench/eval-sets/bench`` over one keep-alive connection for ``seconds`` after a short
warm-up; reported are the GETs per second, the mean latency, and the server process's CPU time per GET (from
``/proc``, so the figure is the server's own work whatever the clients cost).
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

SET_CASES = 200
ROUTE = "/api/apps/bench/eval-sets/bench"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(command: list[str], env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2):
                return process
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                err = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"agentgauge serve did not start: {err[-500:]}") from None
            time.sleep(0.1)


def _client(port: int, stop: threading.Event, counts: list[int], latencies: list[float], errors: list[str]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    done = 0
    spent = 0.0
    try:
        while not stop.is_set():
            began = time.perf_counter()
            connection.request("GET", ROUTE)
            response = connection.getresponse()
            body = response.read()
            if response.status != 200 or not body:
                errors.append(f"HTTP {response.status}")
                return
            spent += time.perf_counter() - began
            done += 1
    except OSError as exc:
        errors.append(repr(exc))
    finally:
        connection.close()
        counts.append(done)
        latencies.append(spent)


def _load(port: int, clients: int, seconds: float) -> tuple[int, float, list[str]]:
    stop = threading.Event()
    counts: list[int] = []
    latencies: list[float] = []
    errors: list[str] = []
    threads = [
        threading.Thread(target=_client, args=(port, stop, counts, latencies, errors), daemon=True)
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    return sum(counts), sum(latencies), errors


def serve_reads(
    set_file: Path,
    *,
    clients: int = 16,
    seconds: float = 10.0,
    warmup: float = 1.0,
    python: str = sys.executable,
    pythonpath: str | None = None,
    evals_option: str = "--evals-dir",
) -> dict[str, Any]:
    """Serve ``set_file`` as eval set ``bench`` of app ``bench`` and measure concurrent GETs of it.

    ``pythonpath`` and ``evals_option`` let the same measure run against another source tree (an older server took
    the eval set folder as ``--data-dir``)."""
    root = Path(tempfile.mkdtemp(prefix="agentgauge-bench-serve-"))
    try:
        (root / "evals" / "bench").mkdir(parents=True)
        shutil.copy(set_file, root / "evals" / "bench" / "bench.evalset.json")
        port = _free_port()
        command = [python, "-c", "from agentgauge.cli import main; main()", "serve", evals_option,
                   str(root / "evals"), "--port", str(port)]  # fmt: skip
        if evals_option != "--data-dir":
            command += ["--data-dir", str(root / "data")]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        process = _start(command, env, port)
        try:
            _load(port, clients, warmup)  # first parse, imports, connection set-up
            cpu_before = _cpu_seconds(process.pid)
            began = time.perf_counter()
            gets, waited, errors = _load(port, clients, seconds)
            wall = time.perf_counter() - began
            cpu = _cpu_seconds(process.pid) - cpu_before
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
        if errors:
            raise RuntimeError(f"GETs failed: {errors[:3]}")
        return {
            "set_mb": round(set_file.stat().st_size / 1e6, 3),
            "clients": clients,
            "seconds": round(wall, 2),
            "gets": gets,
            "gets_per_s": round(gets / wall, 1),
            "mean_latency_ms": round(1000 * waited / gets, 1) if gets else None,
            "server_cpu_ms_per_get": round(1000 * cpu / gets, 2) if gets else None,
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def measure_serve(cfg: Any) -> dict[str, Any]:
    """The ``serve`` measure of ``run.py`` (``--quick``: 2 s instead of 10 s)."""
    from _harness import dataset

    manifest = dataset(cfg, SET_CASES)
    set_file = Path(manifest["files"]["expected.adk"]["path"])
    return serve_reads(set_file, clients=16, seconds=2.0 if cfg.quick else 10.0)
