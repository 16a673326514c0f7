"""The ADK path: one ADK agent folder (a scripted ``BaseLlm``), ADK's own sampler and optimizer config files, and
the same command line run by ``adk optimize`` and by ``agentgauge optimize``, on the same stub models. Both find the
instruction that lifts the validation score from 0 to 1; agentgauge's result also carries the gate's verdict."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from adk_world import ADK_HINT, adk_command, adk_details, serve, write_adk_world
from chat_server import ChatServer

ADK = Path(sys.executable).with_name("adk")
AGENTGAUGE = Path(sys.executable).with_name("agentgauge")


def _adk_optimize_available() -> bool:
    try:
        return importlib.util.find_spec("google.adk.optimization.local_eval_sampler") is not None and ADK.is_file()
    except ImportError:
        return False


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ChatServer, dict[str, Path]]]:
    if not _adk_optimize_available():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("adk optimize is not available (google-adk and its optimisation dependencies: the dev extra)")
        pytest.skip("adk optimize is not available")
    server = ChatServer().start()
    serve(server)
    try:
        yield server, write_adk_world(tmp_path_factory.mktemp("adk"))
    finally:
        server.stop()


def _run(program: list[str], server: ChatServer, cwd: Path) -> subprocess.CompletedProcess[str]:
    # The reflection model is named in the optimizer config; both tools reach it at the loopback server (ADK through
    # the model class the agent registers, agentgauge as any OpenAI-compatible endpoint: OPENAI_BASE_URL).
    env = {**os.environ, "CAPITALS_MODEL_URL": server.base_url, "OPENAI_BASE_URL": server.base_url}
    env.pop("OPENAI_API_KEY", None)
    return subprocess.run(program, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def _instruction(stdout: str) -> str:
    """The instruction printed between ``Optimized root agent instructions:`` and the next rule."""
    lines = stdout.splitlines()
    start = lines.index("Optimized root agent instructions:") + 2
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("=" * 80))
    return "\n".join(lines[start:end])


def test_adk_and_agentgauge_both_improve_the_validation_score(world: tuple[ChatServer, dict[str, Path]]) -> None:
    server, paths = world
    root = paths["agent"].parent
    adk = _run([str(ADK), *adk_command(paths)], server, root)
    assert adk.returncode == 0, adk.stderr[-3000:]
    assert ADK_HINT in _instruction(adk.stdout)
    details = adk_details(adk.stdout)
    scores, best = details["val_aggregate_scores"], details["best_idx"]
    assert isinstance(scores, list) and isinstance(best, int)
    assert scores[0] == 0.0 and scores[best] == 1.0

    ours = _run([str(AGENTGAUGE), *adk_command(paths)], server, root)
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    assert ADK_HINT in _instruction(ours.stdout)
    assert "Gate: ACCEPTED" in ours.stdout
    (audit,) = (root / ".agentgauge" / "optimize").glob("*/audit.json")
    report = json.loads(audit.read_text())
    assert report["baseline"]["validation"]["passRate"] == 0.0
    assert report["evidence"]["validation"]["candidate"]["passRate"] == 1.0
    assert report["accepted"] is True and report["gate"]["accepted"] is True
    assert report["reflectionModel"] == "capitals-adk-reflect"
    assert [s["surfaceId"] for s in report["surfaces"]] == ["capitals#instruction"]
