"""``agentgauge optimize --optimizer gepa`` end to end, on a loopback world (``capitals``): GEPA, fed the failing
cases by the run engine, gets the instruction the agent needs from the reflection model; the gate accepts it; the
validation pass rate goes from 0 to 1; the patched agent written in ``--out`` reproduces the score."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from capitals import AGENT_MODEL, HINT, REFLECTION_MODEL, split_options, start_world, write_world
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
    """``optimize`` on the world, then ``eval`` of the patched agent it wrote on the validation set."""
    tmp = tmp_path_factory.mktemp("gepa")
    paths = write_world(tmp / "world")
    out = tmp / "out"
    sets = split_options(paths)
    reflection = ["--reflection-model", REFLECTION_MODEL, "--reflection-base-url", world.base_url]
    places = ["--out", str(out), "--output-dir", str(tmp / "results")]
    mp = pytest.MonkeyPatch()
    mp.setenv("CAPITALS_MODEL_URL", world.base_url)
    mp.setenv("CAPITALS_KEY", "test-key")
    try:
        code, output = _invoke(
            "optimize", str(paths["agent"]), *sets, "--optimizer", "gepa", "--budget", "calls=40", *reflection, *places
        )
        patched = str(out / "agent" / "agent.py")
        again = _invoke(
            "eval",
            patched,
            str(paths["validation"]),
            "--metrics",
            str(paths["metrics"]),
            "--output-dir",
            str(tmp / "again"),
            "--json",
        )
    finally:
        mp.undo()
    return {"code": code, "output": output, "out": out, "again": again, "requests": list(world.requests)}


def test_gepa_finds_the_instruction_and_the_gate_accepts_it(optimised: dict[str, object]) -> None:
    assert optimised["code"] == 0, optimised["output"]
    out = Path(str(optimised["out"]))
    report = json.loads((out / "audit.json").read_text())
    assert report["accepted"] is True and report["optimizer"] == "gepa"
    assert report["baseline"]["validation"]["passRate"] == 0.0
    assert report["evidence"]["validation"]["candidate"]["passRate"] == 1.0
    assert [v["status"] for v in report["gate"]["verdicts"]] == ["pass", "pass", "pass"]
    assert report["gate"]["gain"]["low"] == 1.0
    patch = json.loads((out / "patch.json").read_text())
    assert HINT in patch["texts"]["system_prompt"]
    assert (
        report["surfaces"][0]["proposedSha256"] == hashlib.sha256(patch["texts"]["system_prompt"].encode()).hexdigest()
    )
    assert report["models"] == [AGENT_MODEL] and report["reflectionModel"] == REFLECTION_MODEL


def test_the_reflection_model_read_the_failing_cases(optimised: dict[str, object]) -> None:
    requests = optimised["requests"]
    assert isinstance(requests, list)
    prompts = [r.prompt for r in requests if r.body.get("model") == REFLECTION_MODEL]
    assert prompts and "case failed" in prompts[0] and re.search(r"expected.*\n[A-Z]{4,}\n", prompts[0], re.S)


def test_the_patched_agent_reproduces_the_score(optimised: dict[str, object]) -> None:
    code, output = optimised["again"]  # type: ignore[misc]
    assert code == 0, output
    result = json.loads(output[output.index("{") :])
    statuses = {c["evalId"]: c["finalEvalStatus"] for c in result["evalCaseResults"]}
    assert len(statuses) == 8 and set(statuses.values()) == {"passed"}
