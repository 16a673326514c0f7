"""``eval``'s simulation options and ``generate``: the shipped example, missing simulator / expected agent,
option checks, generated eval sets that ``validate`` accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chat_server import ChatServer, ok
from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "simulation"
runner = CliRunner()


def _invoke(*args: str | Path) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _saved(out: Path) -> dict[str, Any]:
    [path] = sorted(out.rglob("*.evalset_result.json"))
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_the_example_runs_offline(tmp_path: Path) -> None:
    done = _invoke(
        "eval",
        EXAMPLE / "agent.py",
        EXAMPLE / "trip.evalset.json",
        "--user-simulator",
        EXAMPLE / "simulator.py",
        "--expected-agent",
        EXAMPLE / "reference_agent.py",
        "--output-dir",
        tmp_path,
    )
    assert done.exit_code == 0, done.output
    cases = {c["evalId"]: c for c in _saved(tmp_path)["evalCaseResults"]}
    assert cases["paris_trip"]["simulation"].pop("scenario")["startingPrompt"] == "Hi, can you help me prepare a trip?"
    assert cases["paris_trip"]["simulation"] == {
        "dialect": "trpc",
        "driver": "actual",
        "turns": 3,
        "stopReason": "stop_signal",
    }
    assert cases["tokyo_trip_adk"]["simulation"]["dialect"] == "adk"
    assert cases["lyon_trip_expected_driver"]["simulation"]["driver"] == "expected"
    beijing = cases["beijing_mocked_weather"]["evalMetricResultPerInvocation"][0]
    assert beijing["actualInvocation"]["tools"][0]["result"]["condition"] == "sunny"  # mocked (the table says windy)
    response = {m["metricName"]: m["score"] for m in cases["paris_trip"]["overallEvalMetricResults"]}
    assert response["tool_trajectory_avg_score"] == 1 and 0.8 < response["response_match_score"] < 1


def test_missing_simulator_is_exit_2_missing_expected_agent_fails_the_cases(tmp_path: Path) -> None:
    args = ["eval", EXAMPLE / "agent.py", EXAMPLE / "trip.evalset.json", "--output-dir", tmp_path]
    done = _invoke(*args, "--expected-agent", EXAMPLE / "reference_agent.py")
    assert done.exit_code == 2
    assert "have a conversationScenario and need a simulated user: pass --simulator-model" in done.output
    assert not list(tmp_path.rglob("*.json"))  # nothing written
    done = _invoke(*args, "--user-simulator", tmp_path / "nope.py", "--expected-agent", EXAMPLE / "reference_agent.py")
    assert done.exit_code == 2 and "user simulator file not found" in done.output
    done = _invoke(*args, "--user-simulator", EXAMPLE / "simulator.py")
    assert done.exit_code == 1
    cases = _saved(tmp_path)["evalCaseResults"]
    assert all("no expected agent is configured" in c["errorMessage"] for c in cases)
    done = _invoke("eval", "--traces", tmp_path, "--expected-agent", EXAMPLE / "reference_agent.py")
    assert done.exit_code == 2 and "cannot be used with --traces" in done.output


def test_simulator_model_plays_the_user(tmp_path: Path, chat_server: ChatServer) -> None:
    eval_set = tmp_path / "s.evalset.json"
    case = {
        "evalId": "c",
        "conversationScenario": {"conversationPlan": "Ask twice.", "stopSignal": "STOP", "maxAllowedInvocations": 5},
    }
    eval_set.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    (tmp_path / "s.metrics.json").write_text("[]")
    chat_server.queue(ok("first question"), ok("second question"), ok("stop"))
    done = _invoke(
        "eval",
        ROOT / "examples" / "calculator" / "agent.py",
        eval_set,
        "--simulator-model",
        "sim",
        "--simulator-base-url",
        chat_server.base_url,
        "--output-dir",
        tmp_path / "out",
    )
    assert done.exit_code == 1, done.output  # no metrics: not evaluated
    [result] = _saved(tmp_path / "out")["evalCaseResults"]
    assert result["simulation"]["turns"] == 2 and result["simulation"]["stopReason"] == "stop_signal"
    assert chat_server.requests[0].body["model"] == "sim"


def test_max_turns_overrides_the_scenario(tmp_path: Path) -> None:
    done = _invoke(
        "eval",
        EXAMPLE / "agent.py",
        f"{EXAMPLE / 'trip.evalset.json'}:paris_trip",
        "--user-simulator",
        EXAMPLE / "simulator.py",
        "--expected-agent",
        EXAMPLE / "reference_agent.py",
        "--max-turns",
        "2",
        "--output-dir",
        tmp_path,
    )
    assert done.exit_code == 0, done.output  # the expected agent replays the same two user turns
    [case] = _saved(tmp_path)["evalCaseResults"]
    assert case["simulation"].pop("scenario")["stopSignal"] == "</finished>"  # the scenario as written
    assert case["simulation"] == {"dialect": "trpc", "driver": "actual", "turns": 2, "stopReason": "turn_limit"}


def test_generate_writes_an_eval_set_that_validates(tmp_path: Path, chat_server: ChatServer) -> None:
    answer = {"scenarios": [{"starting_prompt": "Weather in Paris?", "conversation_plan": "Ask for Paris on friday."}]}
    chat_server.queue(ok(json.dumps(answer)))
    out = tmp_path / "gen.evalset.json"
    description = tmp_path / "agent.md"
    description.write_text("A trip-weather assistant with a get_weather(city, day) tool.")
    done = _invoke(
        "generate",
        out,
        "--description-file",
        description,
        "--count",
        "3",
        "--judge-model",
        "writer",
        "--judge-base-url",
        chat_server.base_url,
        "--app-name",
        "trip_app",
        "--no-cache",
    )
    assert done.exit_code == 0, done.output
    assert "wrote" in done.output and "1 new conversationScenario case(s)" in done.output
    assert _invoke("validate", out).exit_code == 0
    data = json.loads(out.read_text())
    [case] = data["evalCases"]
    assert case["conversationScenario"]["stopSignal"] == "</finished>"
    assert case["conversationScenario"]["maxAllowedInvocations"] == 10
    assert case["sessionInput"] == {"appName": "trip_app"}
    assert "get_weather(city, day)" in chat_server.requests[0].body["messages"][0]["content"]
    # Running it again adds nothing new for the same answer.
    chat_server.queue(ok(json.dumps(answer)))
    again = _invoke(
        "generate",
        out,
        "--description",
        "x",
        "--judge-model",
        "w",
        "--judge-base-url",
        chat_server.base_url,
        "--no-cache",
    )
    assert again.exit_code == 0 and "0 new" in again.output and "1 already present" in again.output


def test_generate_checks_its_options(tmp_path: Path) -> None:
    out = tmp_path / "x.evalset.json"
    assert "--judge-model is required" in _invoke("generate", out, "--description", "d").output
    assert _invoke("generate", out).exit_code == 2
    assert _invoke("generate", out, "--description", "d", "--judge-model", "m", "--count", "0").exit_code == 2
    assert _invoke("generate", out, "--description", "d", "--judge-model", "m", "--dialect", "x").exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"scenarios": [{"starting_prompt": "", "conversation_plan": "p"}]}')
    done = _invoke("generate", out, "--scenarios", bad)
    assert done.exit_code == 2 and "scenarios[0].startingPrompt" in done.output
    assert not out.exists()


def test_adk_simulator_config_is_checked(tmp_path: Path) -> None:
    eval_set = tmp_path / "s.evalset.json"
    case = {"evalId": "c", "conversation_scenario": {"starting_prompt": "hi", "conversation_plan": "p"}}
    eval_set.write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    config = tmp_path / "test_config.json"
    config.write_text(
        json.dumps({"criteria": {}, "user_simulator_config": {"custom_instructions": "{{ stop_signal }}"}})
    )
    done = _invoke(
        "eval", EXAMPLE / "agent.py", eval_set, "--user-simulator", EXAMPLE / "simulator.py", "--output-dir", tmp_path
    )
    assert done.exit_code == 2
    assert "user_simulator_config.custom_instructions" in done.output
    assert "{{ conversation_plan }}, {{ conversation_history }}" in done.output
