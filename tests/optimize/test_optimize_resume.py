"""An interrupted optimisation continues: the same request run again reads its finished stages back, GEPA continues
from its own state, and the candidate runs already made get their agent answers from the cache -- no model call is
made twice. The simple optimiser finds the instruction too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from capitals import HINT, REFLECTION_MODEL, start_world, write_world
from chat_server import ChatServer

from agentgauge.optimize import Budget, OptimizeRequest, ReflectionSettings, optimize, parse_split


@pytest.fixture
def world(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    server = start_world()
    monkeypatch.setenv("CAPITALS_MODEL_URL", server.base_url)
    monkeypatch.setenv("CAPITALS_KEY", "test-key")
    try:
        yield server
    finally:
        server.stop()


def _request(tmp: Path, server: ChatServer, optimizer: str = "gepa") -> OptimizeRequest:
    paths = write_world(tmp / "world")
    return OptimizeRequest(
        agent=str(paths["agent"]),
        train=parse_split(str(paths["train"])),
        validation=parse_split(str(paths["validation"])),
        metrics=paths["metrics"],
        optimizer=optimizer,
        budget=Budget(metric_calls=30),
        reflection=ReflectionSettings(model=REFLECTION_MODEL, base_url=server.base_url),
        parallelism=8,
        output_dir=tmp / "results",
        out=tmp / "out",
    )


def test_a_run_again_after_an_interruption_makes_no_call_twice(world: ChatServer, tmp_path: Path) -> None:
    request = _request(tmp_path, world)
    first = asyncio.run(optimize(request))
    assert first.accepted
    calls = len(world.requests)
    again = asyncio.run(optimize(request))  # everything done: read back
    assert len(world.requests) == calls and again.accepted and again.patch == first.patch

    # As if killed during the search: its outcome and the candidate's evidence were never recorded.
    state_file = tmp_path / "out" / "state.json"
    state = json.loads(state_file.read_text())
    state.pop("search_done")
    state["results"] = {k: v for k, v in state["results"].items() if k.startswith("baseline")}
    state_file.write_text(json.dumps(state))
    (tmp_path / "out" / "search" / "outcome.json").unlink()
    notes: list[str] = []
    resumed = asyncio.run(optimize(request, on_note=notes.append))
    assert resumed.accepted and resumed.patch == first.patch
    assert len(world.requests) == calls, "GEPA's state and the agent answer cache answered everything"
    assert any(n.startswith("continuing the optimisation in") for n in notes)
    assert not any(n.startswith("baseline on") for n in notes)  # the baseline's results were read back
    assert any(n.startswith("candidate on validation") for n in notes)


def test_the_simple_optimizer_finds_the_instruction(world: ChatServer, tmp_path: Path) -> None:
    report = asyncio.run(optimize(_request(tmp_path, world, "simple")))
    assert report.optimizer == "simple" and report.accepted
    assert report.patch is not None and HINT in report.patch.texts["system_prompt"]
    assert report.evidence["validation"].candidate.pass_rate == 1.0
    steps = report.search_details["iterations"]
    assert steps[0]["accepted"] and steps[0]["best"] == 0.0 and steps[0]["candidate"] == 1.0
