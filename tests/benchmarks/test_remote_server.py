"""The remote measure's lite servers (``benchmarks/remote_server.py adk-lite`` / ``a2a-lite``, a plain asyncio HTTP
server) speak their protocols well enough for agentgauge's own clients: chunked event streams and multi-turn
conversations, each turn coming back as recorded in the replay script, and a 404 for a route they do not have."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentgauge.agents import AgentRequest
from agentgauge.agents.remote import load_remote_agent
from agentgauge.model import Message

pytest.importorskip("google.adk")  # the server module defines its ADK replay agent at import

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
SCRIPT: dict[str, Any] = {
    "What is 2 + 3?": {
        "answer": "2 + 3 = 5.",
        "tools": [{"id": "c1", "name": "add", "arguments": {"a": 2, "b": 3}, "result": 5}],
    },
    "And times 4?": {
        "answer": "5 * 4 = 20.",
        "tools": [
            {"id": "c2", "name": "multiply", "arguments": {"a": 5, "b": 4}, "result": {"value": 20}},
            {"id": "c3", "name": "log", "arguments": {"line": "done"}, "result": None},
        ],
    },
    "Thanks!": {"answer": "You are welcome.", "tools": []},
}
PROBES = {"adk-lite": "/list-apps", "a2a-lite": "/.well-known/agent-card.json"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(params=sorted(PROBES))
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The agent URL of a lite server started for the test (stopped after it)."""
    mode: str = request.param
    if mode == "a2a-lite":
        pytest.importorskip("a2a.client")
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps(SCRIPT), encoding="utf-8")
    port = _free_port()
    env = {**os.environ, "BENCH_REPLAY": str(replay), "BENCH_LATENCY": "0.01"}
    server = subprocess.Popen(
        [sys.executable, str(BENCH_DIR / "remote_server.py"), mode, str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{PROBES[mode]}", timeout=2):
                    break
            except OSError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < deadline, f"{mode} did not start"
                time.sleep(0.1)
        yield f"adk+http://127.0.0.1:{port}/apps/bench" if mode == "adk-lite" else f"a2a+http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_three_turn_conversation_comes_back_as_recorded(served: str) -> None:
    agent = load_remote_agent(served)

    async def converse() -> list[Any]:
        outputs = []
        for text in SCRIPT:
            request = AgentRequest(user_content=Message(role="user", content=text), session_id="s1", user_id="u1")
            outputs.append(await agent.run(request))
        await agent.endpoint.aclose()  # type: ignore[attr-defined]
        return outputs

    outputs = asyncio.run(converse())
    for text, output in zip(SCRIPT, outputs, strict=True):
        recorded = SCRIPT[text]
        final = output.final_response
        assert (final.content if isinstance(final, Message) else final) == recorded["answer"]
        assert [(t.name, t.arguments) for t in output.tools] == [(t["name"], t["arguments"]) for t in recorded["tools"]]


def test_an_unknown_route_is_answered_404_and_a_known_one_200(served: str) -> None:
    base = "http://" + served.split("://", 1)[1].split("/", 1)[0]

    def status(path: str) -> int:
        try:
            with urllib.request.urlopen(base + path, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as error:
            return int(error.code)

    assert status("/no-such-route") == 404
    assert status(PROBES["adk-lite" if served.startswith("adk") else "a2a-lite"]) == 200
