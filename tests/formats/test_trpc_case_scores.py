"""A trpc-agent-go result with case scores (#2286), typed values (#2287) and executed-agent records read back, kept
on a round trip, shown by ``show``, and served by the replay view as hand-offs with the values and the case score."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result, save_result

TRPC_RESULT = Path(__file__).parent / "data" / "trpc_case_scores.evalset_result.json"


def test_case_scores_values_and_agents_are_read() -> None:
    result = load_result(TRPC_RESULT)
    grounded, closed = result.eval_case_results
    assert (grounded.score, closed.score) == (1.0, None)  # trpc leaves a zero score out
    per = grounded.eval_metric_result_per_invocation[0]
    values = [m.details.value.model_dump(mode="json") for m in per.eval_metric_results if m.details and m.details.value]
    assert values == [{"kind": "boolean", "boolean": True}, {"kind": "categorical", "categorical": "neutral"}]
    actual = per.actual_invocation
    assert [(a.name, a.branch, a.parent_invocation_id) for a in actual.agents] == [
        ("planner", "planner", ""),
        ("researcher", "planner/researcher", "c57d5c79-9ffc-493b-b4bf-9cfbd229b020"),
    ]
    assert actual.execution_trace is not None and actual.execution_trace["RootAgentName"] == "planner"


def test_a_round_trip_keeps_them_as_trpc_wrote_them(tmp_path: Path) -> None:
    copy = tmp_path / "again.evalset_result.json"
    save_result(load_result(TRPC_RESULT), copy)
    written, original = json.loads(copy.read_text()), json.loads(TRPC_RESULT.read_text())
    for key in ("score", "finalEvalStatus"):
        assert [c.get(key) for c in written["evalCaseResults"]] == [c.get(key) for c in original["evalCaseResults"]]
    per_written = written["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]
    per_original = original["evalCaseResults"][0]["evalMetricResultPerInvocation"][0]
    assert per_written["actualInvocation"]["agents"] == per_original["actualInvocation"]["agents"]
    assert per_written["actualInvocation"]["executionTrace"] == per_original["actualInvocation"]["executionTrace"]
    assert [m["details"]["value"] for m in per_written["evalMetricResults"]] == [
        m["details"]["value"] for m in per_original["evalMetricResults"]
    ]


def test_show_prints_the_case_score_and_the_values() -> None:
    shown = CliRunner().invoke(app, ["show", str(TRPC_RESULT), "--print-detailed-results"])
    assert shown.exit_code == 1  # a case failed
    lines = [" ".join(line.split()) for line in shown.output.splitlines()]
    assert "Case museum_tickets passed" in lines
    assert "1 answer_is_grounded 1 (true) 1 passed" in lines
    assert "1 tone 0.5 ('neutral') 0.5 passed" in lines
    assert "1 answer_is_grounded - (false) 1 failed" in lines


async def test_the_replay_view_shows_hand_offs_values_and_the_case_score(tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from agentgauge.server import ServerConfig, create_app

    folder = tmp_path / "data" / "results" / "travel-app"
    folder.mkdir(parents=True)
    result_id = load_result(TRPC_RESULT).eval_set_result_id
    shutil.copy(TRPC_RESULT, folder / f"{result_id}.evalset_result.json")
    transport = httpx.ASGITransport(app=create_app(ServerConfig(data_dir=tmp_path / "data")), client=("127.0.0.1", 1))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        replay = (await http.get(f"/api/apps/travel-app/results/{result_id}/cases/museum_tickets/replay")).json()
    assert replay["score"] == 1.0
    (turn,) = replay["turns"]
    assert turn["events"][0] == {**turn["events"][0], "kind": "handoff", "name": "researcher", "author": "planner"}
    assert [m["value"] for m in turn["metrics"]] == ["true", "'neutral'"]
