"""The **judge** measure: how fast ``agentgauge eval`` gets through judge calls from the command line.

A trace-mode set of ``--n-e2e`` one-turn cases is scored by one LLM-judge metric (trpc's ``llm_final_response``)
against a loopback OpenAI-compatible judge started here, which answers every call after ``JUDGE_LATENCY_S`` (200 ms).
There is no agent, so the judge is the only latency: the FIFO ideal at parallelism P is
``ceil(N / P) x 200 ms``. Reported per configuration: the median wall of ``eval`` minus the median wall of
``agentgauge --help`` ("net", as in the ``cli`` measure), its ratio to the ideal, and the most judge calls the server
saw in flight at once. The configurations are ``--parallelism 16`` (judge calls follow it) and, for comparison,
``--parallelism 16 --judge-parallelism 4`` (the old cap of the CLI).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from _harness import Config, MeasureError
from _measure import fifo_ideal, median, run_child

_BIN = Path(sys.executable).with_name("agentgauge")
JUDGE_LATENCY_S = 0.2
PARALLELISM = 16
CONFIGURATIONS = (("follows --parallelism", ()), ("--judge-parallelism 4", ("--judge-parallelism", "4")))


class _JudgeServer(ThreadingHTTPServer):
    """Answers every chat completion with a valid verdict after the latency; counts calls in flight."""

    daemon_threads = True
    request_queue_size = 256  # every case's call may connect at once

    def __init__(self, latency: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.latency = latency
        self.lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0
        self.calls = 0

    def reset(self) -> None:
        with self.lock:
            self.peak = self.calls = 0


class _Handler(BaseHTTPRequestHandler):
    server: _JudgeServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real judge endpoints
    # TCP_NODELAY, as real servers (uvicorn, ...) set it: headers and body go out in two writes, and with Nagle on,
    # the body of every answer after a connection's first few waited ~40 ms for the client's delayed ACK.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        server = self.server
        with server.lock:
            server.calls += 1
            server.in_flight += 1
            server.peak = max(server.peak, server.in_flight)
        time.sleep(server.latency)
        with server.lock:
            server.in_flight -= 1
        verdict = json.dumps({"reasoning": "ok", "is_the_agent_response_valid": "valid"})
        body = json.dumps({
            "id": "bench", "object": "chat.completion", "created": 0, "model": "judge",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": verdict}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def _judge(latency: float) -> Iterator[_JudgeServer]:
    server = _JudgeServer(latency)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def _inputs(folder: Path, n: int, base_url: str) -> tuple[Path, Path]:
    def turn(i: int) -> dict[str, Any]:
        return {"userContent": {"role": "user", "content": f"question {i}?"},
                "finalResponse": {"role": "assistant", "content": f"answer {i}"}}  # fmt: skip

    cases = [{"evalId": f"c{i}", "evalMode": "trace", "conversation": [turn(i)], "actualConversation": [turn(i)]}
             for i in range(n)]  # fmt: skip
    evalset = folder / "judged.evalset.json"
    evalset.write_text(json.dumps({"evalSetId": "judged", "evalCases": cases}), encoding="utf-8")
    judge = {"providerName": "openai", "modelName": "judge", "baseURL": base_url, "apiKey": "sk-bench"}
    metrics = [{"metricName": "llm_final_response", "threshold": 0.5, "criterion": {"llmJudge": {"judgeModel": judge}}}]
    path = folder / "judged.metrics.json"
    path.write_text(json.dumps(metrics), encoding="utf-8")
    return evalset, path


def measure_judge(cfg: Config) -> dict[str, Any]:
    """Net wall of ``agentgauge eval`` of judge-scored cases against the FIFO ideal, per configuration."""
    n = cfg.n_e2e
    latency = JUDGE_LATENCY_S if not cfg.quick else 0.05
    ideal = fifo_ideal([latency] * n, PARALLELISM)
    folder = Path(tempfile.mkdtemp(prefix="agentgauge-judge-bench-"))
    rows = []
    try:
        with _judge(latency) as server:
            host, port = server.server_address[:2]
            evalset, metrics = _inputs(folder, n, f"http://{host!s}:{port}/v1")
            for label, extra in CONFIGURATIONS:
                cmd = [str(_BIN), "eval", str(evalset), "--metrics", str(metrics), "--parallelism", str(PARALLELISM),
                       "--no-cache", "--output-dir", str(folder / "out"), *extra]  # fmt: skip
                run_child(cmd)  # warm the file cache; not counted
                helps, evals, peaks = [], [], []
                for _ in range(cfg.repeats):
                    helps.append(run_child([str(_BIN), "--help"]).wall_s)
                    server.reset()
                    run = run_child(cmd)
                    if run.returncode != 0:
                        raise MeasureError(f"agentgauge eval exited {run.returncode}: {' '.join(cmd)}")
                    evals.append(run.wall_s)
                    peaks.append(server.peak)
                wall, startup = median(evals), median(helps)
                rows.append({
                    "configuration": label, "ideal_s": ideal, "eval_wall_s": wall, "help_wall_s": startup,
                    "net_s": wall - startup, "net_over_ideal": (wall - startup) / ideal,
                    "peak_judge_calls": max(peaks), "eval_walls_s": evals,
                })  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"n_cases": n, "judge_latency_s": latency, "parallelism": PARALLELISM, "runs": rows}
