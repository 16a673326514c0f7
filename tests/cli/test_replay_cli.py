"""``replay-set``, ``traces to-evalset --mocks`` and ``eval --replay`` on the recorded calculator conversation of
examples/replay: the same agent (100% fidelity, the same scores, no tool run for real), an agent whose changed prompt
swaps a tool's arguments (drift at that call) and one that skips a tool (its recorded result never consumed)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_eval_set, load_result

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "replay"


@pytest.fixture
def replay_dir(tmp_path: Path) -> Path:
    """A copy of examples/replay with the replay set rebuilt from the recorded result."""
    work = tmp_path / "replay"
    shutil.copytree(EXAMPLES, work, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "calculator_replay.evalset.json").unlink()
    made = CliRunner().invoke(
        app, ["replay-set", str(work / "recorded.evalset_result.json"), str(work / "calculator_replay.evalset.json")]
    )
    assert made.exit_code == 0, made.output
    assert "1 replay case(s), 3 recorded call(s)" in made.output
    return work


def _eval(work: Path, agent: str, *extra: str) -> tuple[Any, dict[str, Any]]:
    args = ["eval", str(work / agent), str(work / "calculator_replay.evalset.json"), "--replay"]
    result = CliRunner().invoke(app, [*args, "--output-dir", str(work / "out"), "--json", *extra])
    document = json.loads(result.stdout)
    [case] = document["evalCaseResults"]
    return result, case


def _metrics(case: dict[str, Any]) -> dict[str, Any]:
    return {m["metricName"]: m for m in case["overallEvalMetricResults"]}


def _real_calls() -> list[str]:
    tools = sys.modules.get("calculator_tools")
    return list(tools.REAL_CALLS) if tools is not None else []


def test_the_replay_set_holds_the_recording_as_strict_tool_mocks(replay_dir: Path) -> None:
    shipped = load_eval_set(EXAMPLES / "calculator_replay.evalset.json")
    rebuilt = load_eval_set(replay_dir / "calculator_replay.evalset.json")
    assert rebuilt.model_dump() == shipped.model_dump()  # the shipped example is what the command writes
    turns = rebuilt.eval_cases[0].conversation or []
    mocks = [turn.tool_mock for turn in turns]
    assert all(m is not None and m.replay == "strict" for m in mocks)
    assert [[(r.name, r.arguments.expected if r.arguments else None) for r in m.actual] for m in mocks if m] == [
        [("calculator", {"a": 6, "b": 7, "operation": "mul"})],
        [("calculator", {"a": 42, "b": 8, "operation": "add"}), ("is_prime", {"n": 50})],
    ]


def test_the_same_agent_reproduces_the_recording(replay_dir: Path) -> None:
    before = _real_calls()
    result, case = _eval(replay_dir, "agent.py")
    assert result.exit_code == 0, result.output
    metrics = _metrics(case)
    assert metrics["replay_fidelity"]["score"] == 1.0
    recorded = load_result(EXAMPLES / "recorded.evalset_result.json").eval_case_results[0]
    assert metrics["final_response_avg_score"]["score"] == recorded.overall_eval_metric_results[0].score == 1.0
    assert metrics["tool_trajectory_avg_score"]["score"] == 1.0
    assert "calculator_tools" in sys.modules  # the agent's tools were loaded ...
    assert _real_calls() == before  # ... and never ran: every call was answered from the recording


def test_a_changed_prompt_shows_argument_drift_at_that_call(replay_dir: Path) -> None:
    result, case = _eval(replay_dir, "agent_swapped.py")
    assert result.exit_code == 1
    fidelity = _metrics(case)["replay_fidelity"]
    assert fidelity["score"] == pytest.approx(1 / 3)
    assert "argument drift: turn 2 call 1 calculator: actual 8 != expected 42 at $.a" in fidelity["details"]["reason"]
    second = case["evalMetricResultPerInvocation"][1]["actualInvocation"]
    [drift] = second["replay"]["drift"]
    assert drift == {
        "call": 1,
        "recordedCall": 1,
        "name": "calculator",
        "recorded": {"a": 42, "b": 8, "operation": "add"},
        "arguments": {"operation": "add", "a": 8, "b": 42},
        "difference": drift["difference"],
        "served": False,
    }
    assert second["finalResponse"]["content"].startswith("calc error: replay: no recorded result for calculator")


def test_fifo_serves_the_drifted_call_from_the_recording(replay_dir: Path) -> None:
    target = replay_dir / "calculator_replay.evalset.json"
    made = CliRunner().invoke(
        app, ["replay-set", str(replay_dir / "recorded.evalset_result.json"), str(target), "--mocks", "fifo"]
    )
    assert made.exit_code == 0, made.output
    result, case = _eval(replay_dir, "agent_swapped.py")
    assert result.exit_code == 1  # replay_fidelity 2/3 is still below its threshold of 1
    metrics = _metrics(case)
    assert metrics["final_response_avg_score"]["score"] == 1.0  # the recorded 50 answered add(8, 42) as well
    assert metrics["replay_fidelity"]["score"] == pytest.approx(2 / 3)
    [drift] = case["evalMetricResultPerInvocation"][1]["actualInvocation"]["replay"]["drift"]
    assert drift["served"] is True


def test_an_agent_that_skips_a_tool_leaves_its_recording_unconsumed(replay_dir: Path) -> None:
    result, case = _eval(replay_dir, "agent_skips_check.py")
    assert result.exit_code == 1
    second = case["evalMetricResultPerInvocation"][1]["actualInvocation"]["replay"]
    assert second["unconsumed"] == [{"call": 2, "name": "is_prime", "arguments": {"n": 50}}]
    assert "never consumed: turn 2 recorded call 2 is_prime" in _metrics(case)["replay_fidelity"]["details"]["reason"]
    assert _metrics(case)["replay_fidelity"]["score"] == pytest.approx(2 / 3)


def test_traces_become_replay_cases(tmp_path: Path) -> None:
    target = tmp_path / "weather.replay.evalset.json"
    trace = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"
    result = CliRunner().invoke(
        app, ["traces", "to-evalset", str(trace), str(target), "--mocks", "fifo", "--to", "adk"]
    )
    assert result.exit_code == 0, result.output
    [case] = load_eval_set(target).eval_cases
    mocks = [turn.tool_mock for turn in case.conversation or []]
    assert [
        (m.replay, [(r.name, r.arguments.expected if r.arguments else None) for r in m.actual]) for m in mocks if m
    ] == [
        ("fifo", [("get_weather", {"city": "Paris"})]),
        ("fifo", [("get_weather", {"city": "Tokyo"})]),
    ]
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    AdkEvalSet.model_validate_json(target.read_text())  # the ADK form is still an ADK eval set


def test_bad_replay_input_exits_2(replay_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    plain = runner.invoke(
        app, ["eval", str(replay_dir / "agent.py"), str(replay_dir / "calculator.evalset.json"), "--replay"]
    )
    assert plain.exit_code == 2 and "is a replay case" in plain.output
    traces = runner.invoke(app, ["eval", "--traces", str(ROOT / "examples" / "traces"), "--replay"])
    assert traces.exit_code == 2 and "--replay runs an agent" in traces.output
    mode = runner.invoke(
        app,
        ["replay-set", str(replay_dir / "recorded.evalset_result.json"), str(tmp_path / "x.json"), "--mocks", "lifo"],
    )
    assert mode.exit_code == 2 and "--mocks must be 'fifo' or 'strict'" in mode.output
    nothing = tmp_path / "empty.evalset.json"
    nothing.write_text('{"evalSetId": "e", "evalCases": []}')
    empty = runner.invoke(app, ["replay-set", str(nothing), str(tmp_path / "y.json")])
    assert empty.exit_code == 2 and "nothing to replay" in empty.output
