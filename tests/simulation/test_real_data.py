"""trpc-agent-go's toolmock and user-simulation example data and Google ADK's hello_world scenarios load and run
(agents scripted here, the simulator and judge models served by a scripted OpenAI-compatible server)."""

from __future__ import annotations

import hashlib
import json
import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
from chat_server import ChatServer, Reply, completion
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_eval_set, load_metrics

DATA = Path(__file__).resolve().parent / "data"
runner = CliRunner()

WEATHER_AGENT = """
from agentgauge.agents import AgentOutput
from agentgauge.mocks import mockable
from agentgauge.model import Tool

@mockable
def get_weather(city: str) -> dict:
    return {"city": city, "condition": "real forecast"}

def root_agent(request):
    result = get_weather(city="Shenzhen")
    tip = "Bring sunscreen." if result.get("condition") == "sunny" else "Check again later."
    return AgentOutput(
        final_response=f"Shenzhen is {result['condition']}. {tip}",
        tools=[Tool(id="call_1", name="get_weather", arguments={"city": "Shenzhen"}, result=result)],
    )
"""

TRIP_AGENT = """
def root_agent(request):
    said = " ".join([inv.user_content.content for inv in request.history] + [request.user_content.content]).lower()
    if "guomao" not in said:
        return "Which area would you like to stay in, and do you prefer a morning flight?"
    return "Plan: morning flight SHA-PEK Tuesday, hotel near Guomao, carry your ID. Anything else?"
"""


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(textwrap.dedent(text))
    return path


def _saved(out: Path) -> dict[str, Any]:
    [path] = sorted(out.rglob("*.evalset_result.json"))
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def test_the_data_loads() -> None:
    for name in ("toolmock-weather", "business-trip-scenario", "business-trip-expected-runner"):
        eval_set = load_eval_set(DATA / "trpc" / f"{name}.evalset.json")
        assert eval_set.eval_set_id == name
        assert load_metrics(DATA / "trpc" / f"{name}.metrics.json")
    mock = load_eval_set(DATA / "trpc" / "toolmock-weather.evalset.json").eval_cases[0].conversation[0].tool_mock  # type: ignore[index]
    assert mock is not None and mock.actual[0].name == "get_weather" and mock.actual[0].result["tempC"] == 28
    trip = load_eval_set(DATA / "trpc" / "business-trip-expected-runner.evalset.json").eval_cases[0]
    assert trip.expected_runner_enabled and trip.conversation_scenario is not None
    assert trip.conversation_scenario.driver == "expected" and trip.conversation_scenario.dialect == "trpc"
    adk = load_eval_set(DATA / "adk" / "conversation_scenarios.json")
    assert [c.conversation_scenario.user_persona for c in adk.eval_cases] == ["NOVICE", "EXPERT"]  # type: ignore[union-attr]
    assert all(c.conversation_scenario.dialect == "adk" for c in adk.eval_cases)  # type: ignore[union-attr]
    assert {m.metric_name for m in load_metrics(DATA / "adk" / "eval_config.json")} >= {
        "hallucinations_v1",
        "safety_v1",
    }


def test_adk_case_ids_match_adk() -> None:
    adk = pytest.importorskip("google.adk.evaluation.conversation_scenarios")
    raw = json.loads((DATA / "adk" / "conversation_scenarios.json").read_text())["scenarios"][0]
    scenario = adk.ConversationScenario.model_validate({k: v for k, v in raw.items() if k != "user_persona"})
    expected = hashlib.sha256(json.dumps(scenario.model_dump(), sort_keys=True).encode()).hexdigest()[:8]
    from agentgauge.model import ConversationScenario
    from agentgauge.simulation import scenario_eval_id

    ours = ConversationScenario(starting_prompt=raw["starting_prompt"], conversation_plan=raw["conversation_plan"])
    assert scenario_eval_id(ours) == expected


def test_trpc_toolmock_example_runs_with_its_mock(tmp_path: Path) -> None:
    agent = _write(tmp_path, "agent.py", WEATHER_AGENT)
    done = runner.invoke(
        app,
        [
            "eval",
            str(agent),
            str(DATA / "trpc" / "toolmock-weather.evalset.json"),
            "--output-dir",
            str(tmp_path / "out"),
        ],
    )
    assert done.exit_code == 0, done.output
    [case] = _saved(tmp_path / "out")["evalCaseResults"]
    tool = case["evalMetricResultPerInvocation"][0]["actualInvocation"]["tools"][0]
    assert tool["result"]["source"] == "evalset-tool-mock"  # the mock replaced the real tool
    assert case["overallEvalMetricResults"][0]["score"] == 1


def _responder(user_lines: list[str]) -> Any:
    lines = list(user_lines)

    def answer(body: dict[str, Any]) -> Reply:
        first = body["messages"][0]["content"]
        if first.startswith("You are simulating the user"):
            return Reply(200, completion(lines.pop(0) if lines else "</finished>"))
        prompt = "\n".join(m["content"] for m in body["messages"])
        ids = list(dict.fromkeys(re.findall(r"^(\d): ", prompt, re.M)))  # trpc prompts list rubrics as "<id>: <text>"
        blocks = "\n\n".join(f"ID: {i}\nRubric: r\nEvidence: e\nReason: fine\nVerdict: yes" for i in ids)
        return Reply(200, completion(blocks))

    return answer


def test_trpc_user_simulation_example_runs(tmp_path: Path, chat_server: ChatServer) -> None:
    agent = _write(tmp_path, "agent.py", TRIP_AGENT)
    chat_server.responder = _responder(["Tuesday to Thursday, moderate budget.", "Near Guomao, morning flight please."])
    done = runner.invoke(
        app,
        [
            "eval",
            str(agent),
            str(DATA / "trpc" / "business-trip-scenario.evalset.json"),
            "--simulator-model",
            "sim",
            "--simulator-base-url",
            chat_server.base_url,
            "--judge-model",
            "judge",
            "--judge-base-url",
            chat_server.base_url,
            "--output-dir",
            str(tmp_path / "out"),
            "--no-cache",
        ],
    )
    assert done.exit_code == 0, done.output
    [case] = _saved(tmp_path / "out")["evalCaseResults"]
    users = [t["actualInvocation"]["userContent"]["content"] for t in case["evalMetricResultPerInvocation"]]
    assert users == [
        "Please help me plan my business trip to Beijing next week.",
        "Tuesday to Thursday, moderate budget.",
        "Near Guomao, morning flight please.",
    ]
    scenario = case["simulation"].pop("scenario")  # the scenario as played, for the reports
    assert scenario["conversationPlan"].startswith("You are a user preparing for a business trip")
    assert case["simulation"] == {"dialect": "trpc", "driver": "actual", "turns": 3, "stopReason": "stop_signal"}
    assert case["overallEvalMetricResults"][0]["metricName"] == "llm_rubric_response"
    assert case["overallEvalMetricResults"][0]["score"] == 1
    sim_request = next(r for r in chat_server.requests if r.body["messages"][0]["content"].startswith("You are sim"))
    assert (
        "Conversation plan:\nYou are a user preparing for a business trip" in sim_request.body["messages"][0]["content"]
    )


def test_trpc_expected_runner_example_runs(tmp_path: Path, chat_server: ChatServer) -> None:
    agent = _write(tmp_path, "agent.py", TRIP_AGENT)
    reference = _write(
        tmp_path,
        "reference.py",
        """
        def root_agent(request):
            if "guomao" in request.user_content.content.lower():
                return "Reference plan: 8am flight, Guomao hotel, bring your ID. Anything else?"
            return "Reference: where would you like to stay?"
        """,
    )
    chat_server.responder = _responder(["Near Guomao, morning flight."])
    done = runner.invoke(
        app,
        [
            "eval",
            str(agent),
            str(DATA / "trpc" / "business-trip-expected-runner.evalset.json"),
            "--expected-agent",
            str(reference),
            "--simulator-model",
            "sim",
            "--simulator-base-url",
            chat_server.base_url,
            "--judge-model",
            "judge",
            "--judge-base-url",
            chat_server.base_url,
            "--output-dir",
            str(tmp_path / "out"),
            "--no-cache",
        ],
    )
    assert done.exit_code == 0, done.output
    [case] = _saved(tmp_path / "out")["evalCaseResults"]
    turns = case["evalMetricResultPerInvocation"]
    assert [t["expectedInvocation"]["finalResponse"]["content"] for t in turns] == [
        "Reference: where would you like to stay?",
        "Reference plan: 8am flight, Guomao hotel, bring your ID. Anything else?",
    ]
    assert turns[1]["actualInvocation"]["finalResponse"]["content"].startswith("Plan: morning flight")
    assert case["simulation"]["driver"] == "expected"
    assert case["overallEvalMetricResults"][0]["metricName"] == "llm_rubric_critic"
    # The simulated user answered the expected agent's replies (driver "expected").
    sim = [r for r in chat_server.requests if r.body["messages"][0]["content"].startswith("You are simulating")]
    assert sim[0].body["messages"][-1]["content"] == "Reference: where would you like to stay?"


def test_adk_hello_world_scenarios_run(tmp_path: Path, chat_server: ChatServer) -> None:
    agent = _write(
        tmp_path,
        "agent.py",
        """
        def root_agent(request):
            return f"I rolled a {7 + len(request.history)}. Want me to check if it is prime?"
        """,
    )
    sets = tmp_path / "dice.evalset.json"
    done = runner.invoke(
        app,
        [
            "generate",
            str(sets),
            "--scenarios",
            str(DATA / "adk" / "conversation_scenarios.json"),
            "--session-input",
            str(DATA / "adk" / "session_input.json"),
        ],
    )
    assert done.exit_code == 0, done.output
    assert runner.invoke(app, ["validate", str(sets)]).exit_code == 0
    config = json.loads((DATA / "adk" / "eval_config.json").read_text())
    config["criteria"] = {}  # the guide's judge metrics need Vertex-hosted judges; the simulator config is the point
    config["user_simulator_config"]["max_allowed_invocations"] = 3
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    chat_server.responder = lambda body: Reply(200, completion("Roll again please."))
    done = runner.invoke(
        app,
        [
            "eval",
            str(agent),
            str(sets),
            "--simulator-base-url",
            chat_server.base_url,
            "--output-dir",
            str(tmp_path / "out"),
        ],
    )
    assert done.exit_code == 1, done.output  # no criteria: not evaluated
    cases = _saved(tmp_path / "out")["evalCaseResults"]
    assert len(cases) == 2
    for case in cases:
        assert case["simulation"].pop("scenario")["conversationPlan"]  # the scenario as played
        assert case["simulation"] == {"dialect": "adk", "driver": "actual", "turns": 3, "stopReason": "turn_limit"}
        assert case["sessionId"] and case["userId"] == "user"
    assert all(r.body["model"] == "gemini-flash-latest" for r in chat_server.requests)  # the config's model
    prompts = [r.body["messages"][0]["content"] for r in chat_server.requests]
    assert any("first-time user" in p for p in prompts) and any("experienced user" in p for p in prompts)
