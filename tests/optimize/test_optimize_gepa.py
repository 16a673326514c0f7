"""``agentgauge optimize --optimizer gepa`` end to end, on a loopback world (``capitals``): GEPA, fed the failing
cases by the run engine, gets the instruction the agent needs from the reflection model; the gate accepts it; the
validation pass rate goes from 0 to 1; the patched agent written in ``--out`` reproduces the score."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from capitals import AGENT_MODEL, HINT, REFLECTION_MODEL, start_world, write_world
from chat_server import ChatServer
from typer.testing import CliRunner

from agentgauge.cli import app


@pytest.fixture(scope="module")
def world() -> Iterator[ChatServer]:
    server = start_world()
    try:
        yield server
    finally:
        server.stop()


def _invoke(*args: str) -> tuple[int, str]:
    ran = CliRunner().invoke(app, list(args))
    return ran.exit_code, ran.output


@pytest.fixture(scope="module")
def optimised(world: ChatServer, tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    tmp = tmp_path_factory.mktemp("gepa")
    paths = write_world(tmp / "world")
    mp = pytest.MonkeyPatch()
    mp.setenv("CAPITALS_MODEL_URL", world.base_url)
    mp.setenv("CAPITALS_KEY", "test-key")
    out = tmp / "out"
    try:
        code, output = _invoke(
            "optimize", str(paths["agent"]), "--train", str(paths["train"]), "--validation", str(paths["validation"]),
            "--metrics", str(paths["metrics"]), "--optimizer", "gepa", "--budget", "calls=40",
            "--reflection-model", REFLECTION_MODEL, "--reflection-base-url", world.base_url,
            "--out", str(out), "--output-dir", str(tmp / "results"), "--parallelism", "8",
        )  # fmt: skip
        again = _invoke(
            "eval", str(out / "agent" / "agent.py"), str(paths["validation"]), "--metrics", str(paths["metrics"]),
            "--output-dir", str(tmp / "again"), "--json",
        )  # fmt: skip
    finally:
        mp.undo()
    return {"code": code, "output": output, "out": out, "again": again, "paths": paths}


def test_gepa_finds_the_instruction_and_the_gate_accepts_it(optimised: dict[str, object]) -> None:
    assert optimised["code"] == 0, optimised["output"]
    report = json.loads((Path(str(optimised["out"])) / "audit.json").read_text())
    assert report["accepted"] is True
    assert report["optimizer"] == "gepa"
    assert report["baseline"]["validation"]["passRate"] == 0.0
    assert report["evidence"]["validation"]["candidate"]["passRate"] == 1.0
    patch = json.loads((Path(str(optimised["out"])) / "patch.json").read_text())
    assert HINT in patch["texts"]["system_prompt"]
    assert all(v["status"] in ("pass", "skip") for v in report["gate"]["verdicts"])
