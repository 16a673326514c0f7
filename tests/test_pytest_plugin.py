"""The pytest plugin, run in a subprocess on an examples-like project built in tmp_path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

_AGENT = '''
"""Calculator agent that always adds (so "multiply" cases fail)."""


def root_agent(request):
    words = request.user_content.content.split()
    a, b = int(words[1]), int(words[2])
    return {"final_response": str(a + b), "tools": [{"name": "add", "arguments": {"a": a, "b": b}}]}
'''


def _case(eval_id: str, op: str, a: int, b: int, answer: int) -> dict[str, object]:
    return {
        "evalId": eval_id,
        "conversation": [
            {
                "invocationId": f"{eval_id}-1",
                "userContent": {"role": "user", "content": f"{op} {a} {b}"},
                "finalResponse": {"role": "assistant", "content": str(answer)},
                "tools": [{"name": op, "arguments": {"a": a, "b": b}}],
            }
        ],
    }


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with an agent, an eval folder, an ordinary test, and an eval-shaped JSON fixture elsewhere."""
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests evals\n", encoding="utf-8")
    (tmp_path / "agent.py").write_text(_AGENT, encoding="utf-8")
    evals = tmp_path / "evals"
    evals.mkdir()
    eval_set = {
        "evalSetId": "calc",
        "evalCases": [_case("add_small", "add", 2, 3, 5), _case("multiply_small", "multiply", 2, 3, 6)],
    }
    (evals / "calc.evalset.json").write_text(json.dumps(eval_set), encoding="utf-8")
    config = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
    (evals / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    tests = tmp_path / "tests"
    (tests / "data").mkdir(parents=True)
    (tests / "test_plain.py").write_text("def test_plain():\n    assert True\n", encoding="utf-8")
    fixture = {"evalSetId": "fixture", "evalCases": [_case("should_not_run", "add", 1, 1, 2)]}
    (tests / "data" / "fixture.evalset.json").write_text(json.dumps(fixture), encoding="utf-8")
    return tmp_path


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-rA", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def _outcomes(output: str) -> dict[str, str]:
    outcomes = {}
    for line in output.splitlines():
        for word in ("PASSED", "FAILED", "ERROR", "SKIPPED"):
            if line.startswith(word + " "):
                outcomes[line.split()[1]] = word
    return outcomes


def test_eval_cases_become_items_with_expected_actual(project: Path) -> None:
    junit = project / "report.xml"
    run = _pytest(project, "evals", "--agentgauge-agent", "agent.py", f"--junitxml={junit}")
    assert run.returncode == 1, run.stdout + run.stderr
    assert _outcomes(run.stdout) == {
        "evals/calc.evalset.json::add_small": "PASSED",
        "evals/calc.evalset.json::multiply_small": "FAILED",
    }
    assert "eval case 'multiply_small' of 'calc': failed\n\ntool_trajectory_avg_score (invocation 1)" in run.stdout
    assert "tool_trajectory_avg_score (invocation 1): score 0 < threshold 1" in run.stdout
    assert 'Expected:\n    tool calls: multiply({"a": 2, "b": 3})\n    final response: "6"' in run.stdout
    assert 'Actual:\n    tool calls: add({"a": 2, "b": 3})\n    final response: "5"' in run.stdout
    assert "Traceback" not in run.stdout
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "1", "0")
    failure = suite.find("testcase[@name='multiply_small']/failure")
    assert failure is not None and "Expected:" in (failure.text or "") + (failure.get("message") or "")


def test_keyword_selection_and_exitfirst(project: Path) -> None:
    run = _pytest(project, "evals", "--agentgauge-agent", "agent.py", "-k", "add_small")
    assert run.returncode == 0, run.stdout + run.stderr
    assert _outcomes(run.stdout) == {"evals/calc.evalset.json::add_small": "PASSED"}
    run = _pytest(
        project, "evals/calc.evalset.json::multiply_small", "--agentgauge-agent", "agent.py", "-x",
        "--agentgauge-num-runs", "2",
    )  # fmt: skip
    assert _outcomes(run.stdout) == {"evals/calc.evalset.json::multiply_small": "FAILED"}
    assert (
        "eval case 'multiply_small' of 'calc': failed (0/2 runs passed; rule: mean of runs ≥ threshold)" in run.stdout
    )
    assert "run 1: failed\ntool_trajectory_avg_score (invocation 1)" in run.stdout
    assert "run 2: failed\ntool_trajectory_avg_score (invocation 1)" in run.stdout


_FLAKY_AGENT = '''
"""Adds right on every other call: two runs of a case, one passes."""

calls = []


def root_agent(request):
    words = request.user_content.content.split()
    a, b = int(words[1]), int(words[2])
    calls.append(1)
    answer = a + b if len(calls) % 2 else a + b + 1
    return {"final_response": str(answer), "tools": [{"name": "add", "arguments": {"a": a, "b": answer - a}}]}
'''


@pytest.mark.parametrize(
    ("rule", "outcome", "said"),
    [
        ("any", "PASSED", None),
        ("all", "FAILED", "eval case 'add_small' of 'calc': failed (1/2 runs passed; rule: all runs pass)"),
        ("mean", "FAILED", "eval case 'add_small' of 'calc': failed (1/2 runs passed; rule: mean of runs ≥ threshold)"),
    ],
)
def test_the_case_status_rule_decides_a_flaky_case(project: Path, rule: str, outcome: str, said: str | None) -> None:
    (project / "flaky.py").write_text(_FLAKY_AGENT, encoding="utf-8")
    options = ["--agentgauge-agent", "flaky.py", "--agentgauge-num-runs", "2", "--agentgauge-case-status", rule]
    run = _pytest(project, "evals/calc.evalset.json::add_small", *options)
    assert _outcomes(run.stdout) == {"evals/calc.evalset.json::add_small": outcome}, run.stdout + run.stderr
    if said is not None:
        assert said in run.stdout
        assert "run 2: failed\ntool_trajectory_avg_score (invocation 1)" in run.stdout


def test_an_unknown_case_status_rule_is_a_usage_error(project: Path) -> None:
    run = _pytest(project, "evals", "--agentgauge-agent", "agent.py", "--agentgauge-case-status", "most")
    assert run.returncode != 0
    assert "agentgauge_case_status: unknown case status rule 'most': expected one of mean, all, majority, any" in (
        run.stdout + run.stderr
    )


def test_default_run_does_not_collect_eval_files(project: Path) -> None:
    run = _pytest(project)
    assert run.returncode == 0, run.stdout + run.stderr
    assert _outcomes(run.stdout) == {"tests/test_plain.py::test_plain": "PASSED"}
    # A directory named explicitly without any configured agent is not collected either.
    run = _pytest(project, "tests")
    assert _outcomes(run.stdout) == {"tests/test_plain.py::test_plain": "PASSED"}
    # With an agent in the ini file, a directory named on the command line is collected.
    (project / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nagentgauge_agent = agent.py\n", encoding="utf-8")
    run = _pytest(project, "evals", "-k", "add_small")
    assert _outcomes(run.stdout) == {"evals/calc.evalset.json::add_small": "PASSED"}


def test_explicit_file_without_agent_fails_clearly(project: Path) -> None:
    run = _pytest(project, "evals/calc.evalset.json")
    assert run.returncode == 1
    assert _outcomes(run.stdout)["evals/calc.evalset.json::add_small"] == "FAILED"
    assert "no agent configured: pass --agentgauge-agent SPEC" in run.stdout


def test_conftest_fixture_and_ini_collect(project: Path) -> None:
    conftest = """
        import pytest

        @pytest.fixture
        def agentgauge_agent():
            def agent(request):
                words = request.user_content.content.split()
                a, b = int(words[1]), int(words[2])
                value = a * b if words[0] == "multiply" else a + b
                return {"final_response": str(value), "tools": [{"name": words[0], "arguments": {"a": a, "b": b}}]}
            return agent
    """
    (project / "evals" / "conftest.py").write_text(textwrap.dedent(conftest), encoding="utf-8")
    run = _pytest(project, "evals")
    assert run.returncode == 0, run.stdout + run.stderr
    assert set(_outcomes(run.stdout).values()) == {"PASSED"} and len(_outcomes(run.stdout)) == 2
    (project / "pytest.ini").write_text("[pytest]\ntestpaths = evals\nagentgauge_collect = true\n", encoding="utf-8")
    run = _pytest(project)
    assert _outcomes(run.stdout) == {
        "evals/calc.evalset.json::add_small": "PASSED",
        "evals/calc.evalset.json::multiply_small": "PASSED",
    }


def test_xdist_and_opt_out(project: Path) -> None:
    run = _pytest(project, "evals", "--agentgauge-agent", "agent.py", "-n", "2")
    assert run.returncode == 1, run.stdout + run.stderr
    assert _outcomes(run.stdout) == {
        "evals/calc.evalset.json::add_small": "PASSED",
        "evals/calc.evalset.json::multiply_small": "FAILED",
    }
    run = _pytest(project, "-p", "no:agentgauge", "evals")
    assert "calc.evalset.json::" not in run.stdout
    assert run.returncode == 5  # no tests collected


def test_invalid_eval_file_is_a_collection_error(project: Path) -> None:
    (project / "evals" / "broken.evalset.json").write_text('{"evalSetId": "b", "evalCases": [{"conversation": 3}]}')
    run = _pytest(project, "evals/broken.evalset.json", "--agentgauge-agent", "agent.py")
    assert run.returncode == 2
    assert "ERROR collecting evals/broken.evalset.json" in run.stdout
    assert "broken.evalset.json: evalCases[0]" in run.stdout


def test_trace_mode_cases_need_no_agent_and_verbose_lines_show_the_node_id(project: Path) -> None:
    def replay(eval_id: str, recorded_answer: int) -> dict[str, object]:
        case = _case(eval_id, "add", 2, 3, 5)
        actual = _case(eval_id, "add", 2, 3, recorded_answer)["conversation"]
        return dict(case, evalMode="trace", actualConversation=actual)

    traces = {"evalSetId": "traces", "evalCases": [replay("recorded_add", 5), replay("recorded_wrong", 7)]}
    (project / "evals" / "traces.evalset.json").write_text(json.dumps(traces), encoding="utf-8")
    run = _pytest(project, "-v", "evals/traces.evalset.json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "evals/traces.evalset.json::recorded_add PASSED" in run.stdout
    assert "evals/traces.evalset.json::recorded_wrong FAILED" in run.stdout
    assert 'Actual:\n    tool calls: add({"a": 2, "b": 3})\n    final response: "7"' in run.stdout
    assert "no agent configured" not in run.stdout
    assert "traces::evalset::json" not in run.stdout
