"""Simulated conversations in the reports: terminal, HTML (parsed), Markdown, JUnit, ``show`` and a real ``eval``."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

from html_dom import Node, parse
from result_samples import F, P, invocation, metric, passing_case
from rich.console import Console
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.model import (
    ConversationScenario,
    EvalCaseResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    SimulationSummary,
    Tool,
)
from agentgauge.reporting import print_summary, render

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "simulation"
runner = CliRunner()


def _simulated_case(status: str = "failed") -> EvalCaseResult:
    """A trpc scenario played in three user turns; the third one calls a tool and gets a weak answer."""
    turns = [
        invocation("Hi, can you help me prepare a trip?", "Which city are you travelling to?"),
        invocation("I'm going to Paris.", "When do you travel to Paris?"),
        invocation("On friday.", "Rain <b>tomorrow</b>."),
    ]
    turns[2].tools = [Tool(id="c1", name="get_weather", arguments={"city": "Paris"}, result={"condition": "rain"})]
    ok, bad = metric("response_match_score", 1.0, 0.8, P), metric("response_match_score", 0.2, 0.8, F, "too short")
    per_inv = [
        EvalMetricResultPerInvocation(actual_invocation=t, expected_invocation=None, eval_metric_results=[m])
        for t, m in zip(turns, [ok, ok, bad if status == "failed" else ok], strict=True)
    ]
    scenario = ConversationScenario(
        driver="actual",
        starting_prompt="Hi, can you help me prepare a trip?",
        conversation_plan="You travel to Paris on Friday.",
        stop_signal="</finished>",
        max_allowed_invocations=6,
        user_persona={"id": "hurried", "description": "A user in a hurry."},
    )
    return EvalCaseResult(
        eval_set_id="trip",
        eval_id="paris_trip",
        final_eval_status=F if status == "failed" else P,
        overall_eval_metric_results=[metric("response_match_score", 0.73, 0.8, F if status == "failed" else P)],
        eval_metric_result_per_invocation=per_inv,
        simulation=SimulationSummary(
            dialect="trpc", driver="actual", turns=3, stop_reason="stop_signal", scenario=scenario
        ),
    )


def _result(*cases: EvalCaseResult) -> EvalSetResult:
    return EvalSetResult(eval_set_id="trip", eval_case_results=list(cases))


def _terminal(result: EvalSetResult) -> list[str]:
    out = io.StringIO()
    print_summary(result, console=Console(file=out, width=200, color_system=None), detailed=True)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_terminal_prints_the_simulated_conversation_under_its_header() -> None:
    lines = _terminal(_result(_simulated_case(), passing_case()))
    start = lines.index("  Simulated conversation (trpc scenario, driver actual, 3 user turns, ended by stop_signal)")
    assert lines[start + 1 : start + 8] == [
        "    user:  Hi, can you help me prepare a trip?",
        "    agent: Which city are you travelling to?",
        "    user:  I'm going to Paris.",
        "    agent: When do you travel to Paris?",
        "    user:  On friday.",
        '    tool:  get_weather({"city": "Paris"}) -> {"condition": "rain"}',
        "    agent: Rain <b>tomorrow</b>.",
    ]
    assert sum("Simulated conversation" in line for line in lines) == 1  # the fixed conversation has none
    assert lines.index("Case add_small  passed") > start + 7  # the transcript belongs to its own case block


def test_terminal_shows_a_turn_without_final_response_and_a_failed_conversation() -> None:
    case = _simulated_case()
    case.eval_metric_result_per_invocation[1].actual_invocation.final_response = None
    assert case.simulation is not None
    case.simulation.stop_reason, case.simulation.turns = "error", 1
    lines = _terminal(_result(case))
    assert "  Simulated conversation (trpc scenario, driver actual, 1 user turn, ended by error)" in lines
    assert "    agent: (no final response)" in lines


def _sim(doc: Node, eval_id: str) -> Node:
    return doc.find("details", "case", data_case_id=eval_id).find("section", "sim")


def test_html_shows_the_scenario_and_the_conversation_as_a_chat() -> None:
    doc = parse(render(_result(_simulated_case(), passing_case()), "html"))
    sim = _sim(doc, "paris_trip")
    assert sim.find("div", "muted").text == "trpc scenario, driver actual, 3 user turns, ended by stop_signal"
    terms = [n.text for n in sim.find("dl", "scenario").find_all("dt")]
    values = [n.text for n in sim.find("dl", "scenario").find_all("dd")]
    assert dict(zip(terms, values, strict=True)) == {
        "Starting prompt": "Hi, can you help me prepare a trip?",
        "Plan": "You travel to Paris on Friday.",
        "Persona": "hurried: A user in a hurry.",
        "Stop signal": "</finished>",
        "Turn limit": "6",
    }
    chat = [(li.attrs["class"], li.find("span", "who").text, li.text) for li in sim.find("ol", "chat").find_all("li")]
    assert [(kind, who) for kind, who, _ in chat] == [
        ("user", "User"), ("agent", "Agent"), ("user", "User"), ("agent", "Agent"), ("user", "User"),
        ("tool", "Tool call"), ("agent", "Agent"),
    ]  # fmt: skip
    assert chat[5][2] == 'Tool callget_weather({"city": "Paris"})→ {"condition": "rain"}'
    assert chat[6][2] == "AgentRain <b>tomorrow</b>."  # agent text escaped, not markup
    assert not doc.find("details", "case", data_case_id="add_small").find_all("section", "sim")
    # The chat comes before the per-invocation Expected / Actual blocks of its case.
    block = doc.find("details", "case", data_case_id="paris_trip")
    kinds = [n.tag for n in block.iter() if n.tag == "section" or "inv" in n.classes]
    assert kinds[0] == "section" and kinds.count("div") == 3


def test_html_notes_the_expected_driver_and_a_result_without_a_recorded_scenario() -> None:
    case = _simulated_case()
    assert case.simulation is not None
    case.simulation.driver, case.simulation.scenario = "expected", None
    sim = _sim(parse(render(_result(case), "html")), "paris_trip")
    notes = [n.text for n in sim.find_all("div", "muted")]
    assert notes[1] == "The simulated user talked to the expected agent; the agent replayed the same user messages."
    assert not sim.find_all("dl")  # saved before scenarios were recorded: the transcript alone


def test_markdown_lists_the_conversation_of_a_simulated_case_that_did_not_pass() -> None:
    text = render(_result(_simulated_case(), passing_case()), "markdown")
    lines = text.splitlines()
    start = lines.index("**Simulated conversation** (trpc scenario, driver actual, 3 user turns, ended by stop_signal)")
    assert lines[start + 2 : start + 17] == [
        "- *Starting prompt:* Hi, can you help me prepare a trip?",
        "- *Plan:* You travel to Paris on Friday.",
        "- *Persona:* hurried: A user in a hurry.",
        "- *Stop signal:* \\</finished\\>",
        "- *Turn limit:* 6",
        "",
        "*Conversation:*",
        "",
        "- **user:** Hi, can you help me prepare a trip?",
        "  - **agent:** Which city are you travelling to?",
        "- **user:** I'm going to Paris.",
        "  - **agent:** When do you travel to Paris?",
        "- **user:** On friday.",
        '  - tool: `get_weather({"city": "Paris"})` → `{"condition": "rain"}`',
        "  - **agent:** Rain \\<b\\>tomorrow\\</b\\>.",
    ]
    bare = _simulated_case()
    assert bare.simulation is not None
    bare.simulation.scenario = None  # a result saved before scenarios were recorded: the conversation alone
    bare_lines = render(_result(bare), "markdown").splitlines()
    start = bare_lines.index(lines[start])
    assert bare_lines[start + 1 : start + 4] == ["", "- **user:** Hi, can you help me prepare a trip?",
                                                "  - **agent:** Which city are you travelling to?"]  # fmt: skip
    passed = render(_result(_simulated_case("passed")), "markdown")
    assert "Simulated conversation" not in passed  # Markdown details only the cases that did not pass


def test_junit_carries_the_simulation_summary_as_properties() -> None:
    root = ET.fromstring(render(_result(_simulated_case(), passing_case()), "junit"))
    props = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }
    assert {k: v for k, v in props["paris_trip"].items() if k.startswith("simulation.")} == {
        "simulation.dialect": "trpc",
        "simulation.driver": "actual",
        "simulation.turns": "3",
        "simulation.stop_reason": "stop_signal",
    }
    assert not any(k.startswith("simulation.") for k in props["add_small"])


def _eval(tmp_path: Path, *extra: str | Path) -> tuple[int, str]:
    done = runner.invoke(
        app,
        [
            str(a)
            for a in (
                "eval",
                EXAMPLE / "agent.py",
                EXAMPLE / "trip.evalset.json",
                "--user-simulator",
                EXAMPLE / "simulator.py",
                "--expected-agent",
                EXAMPLE / "reference_agent.py",
                "--output-dir",
                tmp_path / "out",
                *extra,
            )
        ],
    )
    return done.exit_code, done.output


def test_eval_of_the_example_writes_the_transcripts_into_the_html_report(tmp_path: Path) -> None:
    code, output = _eval(tmp_path, "--html", tmp_path / "r.html", "--junit", tmp_path / "r.xml")
    assert code == 0, output
    doc = parse((tmp_path / "r.html").read_text())
    paris = _sim(doc, "paris_trip")
    assert [li.find("div", "text").text for li in paris.find_all("li", "user")] == [
        "Hi, can you help me prepare a trip?",
        "I'm going to Paris.",
        "On friday.",
    ]
    assert paris.find("li", "tool").find("code").text == 'get_weather({"city": "Paris", "day": "friday"})'
    assert paris.find_all("li", "agent")[-1].text.endswith("Pack an umbrella. Anything else?")
    tokyo = _sim(doc, "tokyo_trip_adk")
    assert tokyo.find("div", "muted").text == "adk scenario, driver actual, 3 user turns, ended by stop_signal"
    assert "Persona" in [dt.text for dt in tokyo.find_all("dt")] and "NOVICE" in tokyo.find("dl").text
    assert not doc.find("details", "case", data_case_id="beijing_mocked_weather").find_all("section", "sim")
    junit = (tmp_path / "r.xml").read_text()
    assert '<property name="simulation.driver" value="expected" />' in junit  # lyon_trip_expected_driver


def test_show_prints_and_writes_the_transcript_of_a_saved_result(tmp_path: Path) -> None:
    code, output = _eval(tmp_path)
    assert code == 0, output
    [saved] = sorted((tmp_path / "out").rglob("*.evalset_result.json"))
    done = runner.invoke(
        app, ["show", str(saved), "--print-detailed-results", "--markdown", str(tmp_path / "r.md"), "--html",
              str(tmp_path / "r.html")],
    )  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "Simulated conversation (trpc scenario, driver expected, 2 user turns, ended by stop_signal)" in done.output
    assert "    user:  I'm off to Lyon soon." in done.output
    assert _sim(parse((tmp_path / "r.html").read_text()), "lyon_trip_expected_driver").find_all("li", "tool")


SIMULATOR_FAILING_ON_TURN_3 = """
def user_simulator(context, turn):
    if turn.index >= 2:
        raise RuntimeError("simulator crashed")
    return "I'm going to Paris."
"""


def test_a_conversation_that_fails_keeps_its_summary_and_turns(tmp_path: Path) -> None:
    simulator = tmp_path / "crashing.py"
    simulator.write_text(SIMULATOR_FAILING_ON_TURN_3)
    done = runner.invoke(
        app,
        [
            "eval", str(EXAMPLE / "agent.py"), f"{EXAMPLE / 'trip.evalset.json'}:paris_trip", "--user-simulator",
            str(simulator), "--expected-agent", str(EXAMPLE / "reference_agent.py"), "--output-dir",
            str(tmp_path / "out"), "--html", str(tmp_path / "r.html"),
        ],
    )  # fmt: skip
    assert done.exit_code == 1, done.output
    [saved] = sorted((tmp_path / "out").rglob("*.evalset_result.json"))
    [case] = json.loads(saved.read_text())["evalCaseResults"]
    assert "simulator crashed" in case["errorMessage"]
    assert case["simulation"]["stopReason"] == "error" and case["simulation"]["turns"] == 2
    sim = _sim(parse((tmp_path / "r.html").read_text()), "paris_trip")
    assert sim.find("div", "muted").text == "trpc scenario, driver actual, 2 user turns, ended by error"
    assert [li.find("div", "text").text for li in sim.find_all("li", "user")] == [
        "Hi, can you help me prepare a trip?",
        "I'm going to Paris.",
    ]
