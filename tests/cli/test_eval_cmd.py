"""``agentgauge eval`` end to end: exit codes, saved results, failures as data, runs, trace mode, ADK files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import ADK_EFFICIENCY_METRICS

ROOT = Path(__file__).resolve().parents[2]
CALC_DIR = ROOT / "examples" / "calculator"
CALC_AGENT = str(CALC_DIR / "agent.py")
runner = CliRunner()


def _eval(*args: str | Path) -> Any:
    return runner.invoke(app, ["eval", *map(str, args)])


def _saved(out: Path) -> list[dict[str, Any]]:
    files = sorted(out.rglob("*.evalset_result.json"))
    return [json.loads(f.read_text()) for f in files]


def _statuses(result: dict[str, Any]) -> dict[str, str]:
    return {c["evalId"]: c["finalEvalStatus"] for c in result["evalCaseResults"]}


def _write(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data))
    return path


def _inv(text: str, answer: str | None = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"userContent": {"role": "user", "content": text}, **extra}
    if answer is not None:
        item["finalResponse"] = {"role": "assistant", "content": answer}
    return item


def _set(path: Path, *cases: dict[str, Any], set_id: str = "s") -> Path:
    return _write(path, {"evalSetId": set_id, "evalCases": list(cases)})


FINAL_ONLY = [{"metricName": "final_response_avg_score", "threshold": 1, "criterion": {"finalResponse": {"text": {}}}}]


def test_calculator_example_passes_and_saves_the_result(tmp_path: Path) -> None:
    result = _eval(CALC_AGENT, CALC_DIR / "calculator.evalset.json", "--output-dir", tmp_path)
    assert result.exit_code == 0, result.output
    [saved] = _saved(tmp_path)
    assert saved["evalSetResultId"].startswith("calculator_calculator_")
    assert set(_statuses(saved).values()) == {"passed"}
    assert len(saved["evalCaseResults"]) == 6
    path = tmp_path / "calculator" / f"{saved['evalSetResultId']}.evalset_result.json"
    assert f"Results saved to {path}" in result.output
    multi = next(c for c in saved["evalCaseResults"] if c["evalId"] == "calc_multi_turn")
    assert [m["metricName"] for m in multi["overallEvalMetricResults"]] == [
        "tool_trajectory_avg_score",
        "final_response_avg_score",
    ]
    second = multi["evalMetricResultPerInvocation"][1]["actualInvocation"]
    assert second["tools"][0]["arguments"] == {"operation": "mul", "a": 5, "b": 4}
    assert saved["summary"]["numRuns"] == 1


def test_one_failing_case_exits_1(tmp_path: Path) -> None:
    data = json.loads((CALC_DIR / "calculator.evalset.json").read_text())
    data["evalCases"][1]["conversation"][0]["finalResponse"]["content"] = "calc result: 41"
    evalset = _write(tmp_path / "calculator.evalset.json", data)
    shutil.copy(CALC_DIR / "calculator.metrics.json", tmp_path)
    result = _eval(CALC_AGENT, evalset, "--output-dir", tmp_path / "out")
    assert result.exit_code == 1, result.output
    [saved] = _saved(tmp_path / "out")
    statuses = _statuses(saved)
    assert statuses.pop("calc_natural_multiply") == "failed"
    assert set(statuses.values()) == {"passed"}


AGENT_WITH_FAILURES = """
import asyncio

async def agent(request):
    text = request.user_content.content
    if text == "raise":
        raise RuntimeError("kaboom")
    if text == "hang":
        await asyncio.sleep(30)
    if text == "garbage":
        return 42
    return "ok"
"""


def test_raising_hanging_and_garbage_agents_fail_only_their_case(tmp_path: Path) -> None:
    agent = tmp_path / "flaky_agent.py"
    agent.write_text(AGENT_WITH_FAILURES)
    evalset = _set(
        tmp_path / "s.evalset.json",
        {"evalId": "fine", "conversation": [_inv("hello", "ok")]},
        {"evalId": "raises", "conversation": [_inv("raise", "ok")]},
        {"evalId": "hangs", "conversation": [_inv("hang", "ok")]},
        {"evalId": "garbage", "conversation": [_inv("garbage", "ok")]},
    )
    _write(tmp_path / "s.metrics.json", FINAL_ONLY)
    result = _eval(agent, evalset, "--timeout", "0.5", "--output-dir", tmp_path / "out", "--parallelism", "4")
    assert result.exit_code == 1, result.output
    [saved] = _saved(tmp_path / "out")
    cases = {c["evalId"]: c for c in saved["evalCaseResults"]}
    assert cases["fine"]["finalEvalStatus"] == "passed"
    assert cases["raises"]["errorMessage"] == "agent failed on invocation 1 of 1: RuntimeError: kaboom"
    assert cases["hangs"]["errorMessage"] == "inference timed out after 0.5 s"
    assert cases["garbage"]["errorMessage"].startswith("agent failed on invocation 1 of 1: agent returned int")
    assert all(cases[c]["finalEvalStatus"] == "error" for c in ("raises", "hangs", "garbage"))


def test_num_runs_three(tmp_path: Path) -> None:
    result = _eval(CALC_AGENT, f"{CALC_DIR / 'calculator.evalset.json'}:calc_add,calc_multi_turn", "--num-runs", "3",
                   "--output-dir", tmp_path)  # fmt: skip
    assert result.exit_code == 0, result.output
    [saved] = _saved(tmp_path)
    assert saved["summary"]["numRuns"] == 3
    runs: dict[str, list[int]] = {}
    for case in saved["evalCaseResults"]:
        runs.setdefault(case["evalId"], []).append(case["runId"])
    assert {k: sorted(v) for k, v in runs.items()} == {"calc_add": [1, 2, 3], "calc_multi_turn": [1, 2, 3]}
    assert [c["evalId"] for c in saved["summary"]["evalCaseSummaries"]] == ["calc_add", "calc_multi_turn"]
    assert "pass@" in result.output


RECORDING_AGENT = """
import json, os

def agent(request):
    log = os.environ["AG_RECORD_FILE"]
    entries = json.load(open(log)) if os.path.exists(log) else []
    entries.append({
        "text": request.user_content.content,
        "session": request.session_id,
        "user": request.user_id,
        "state": dict(request.state),
        "context": [[m.role, m.content] for m in request.context_messages],
        "history": [[h.user_content.content, h.final_response.content] for h in request.history],
    })
    json.dump(entries, open(log, "w"))
    assert request.state.get("plan") == "gold", "state did not arrive"
    request.state["turns"] = request.state.get("turns", 0) + 1
    return "answer to " + request.user_content.content
"""


def test_context_messages_state_and_history_reach_the_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "record.json"
    monkeypatch.setenv("AG_RECORD_FILE", str(record))
    agent = tmp_path / "recording_agent.py"
    agent.write_text(RECORDING_AGENT)
    evalset = _set(
        tmp_path / "s.evalset.json",
        {
            "evalId": "conv",
            "contextMessages": [{"role": "system", "content": "You are terse."}],
            "conversation": [
                _inv("first", "answer to first"),
                _inv("second", "answer to second", contextMessages=[{"role": "user", "content": "example"}]),
            ],
            "sessionInput": {"appName": "rec", "userId": "alice", "state": {"plan": "gold"}},
        },
    )
    _write(tmp_path / "s.metrics.json", FINAL_ONLY)
    result = _eval(agent, evalset, "--output-dir", tmp_path / "out")
    assert result.exit_code == 0, result.output
    first, second = json.loads(record.read_text())
    assert first["session"] == second["session"]
    assert (first["user"], second["user"]) == ("alice", "alice")
    assert first["state"] == {"plan": "gold"}
    assert second["state"] == {"plan": "gold", "turns": 1}
    assert first["context"] == [["system", "You are terse."]]
    assert second["context"] == [["system", "You are terse."], ["user", "example"]]
    assert first["history"] == []
    assert second["history"] == [["first", "answer to first"]]
    [saved] = _saved(tmp_path / "out" / "rec")
    assert saved["evalCaseResults"][0]["sessionId"] == first["session"]
    assert saved["evalCaseResults"][0]["userId"] == "alice"


def test_trace_mode_runs_without_an_agent(tmp_path: Path) -> None:
    evalset = _set(
        tmp_path / "trace.evalset.json",
        {
            "evalId": "recorded",
            "evalMode": "trace",
            "conversation": [_inv("q", "expected answer")],
            "actualConversation": [_inv("q", "expected answer")],
        },
        {
            "evalId": "recorded_wrong",
            "evalMode": "trace",
            "conversation": [_inv("q", "expected answer")],
            "actualConversation": [_inv("q", "something else")],
        },
        set_id="trace",
    )
    _write(tmp_path / "trace.metrics.json", FINAL_ONLY)
    result = _eval(evalset, "--output-dir", tmp_path / "out")
    assert result.exit_code == 1, result.output
    [saved] = _saved(tmp_path / "out")
    assert _statuses(saved) == {"recorded": "passed", "recorded_wrong": "failed"}
    assert _eval(f"{evalset}:recorded", "--output-dir", tmp_path / "out2").exit_code == 0


def test_adk_eval_set_with_test_config_uses_adk_semantics(tmp_path: Path) -> None:
    adk_set = {
        "eval_set_id": "adk_calc",
        "eval_cases": [
            {
                "eval_id": "add",
                "conversation": [
                    {
                        "invocation_id": "i1",
                        "user_content": {"role": "user", "parts": [{"text": "calc add 2 3"}]},
                        "final_response": {"role": "model", "parts": [{"text": "calc result: 5"}]},
                        # ADK compares names and args only: the result is absent here and never compared.
                        "intermediate_data": {
                            "tool_uses": [{"name": "calculator", "args": {"operation": "add", "a": 2, "b": 3}}]
                        },
                    }
                ],
                "session_input": {"app_name": "adk_app", "user_id": "u", "state": {}},
            }
        ],
    }
    evalset = _write(tmp_path / "adk_calc.evalset.json", adk_set)
    _write(tmp_path / "test_config.json", {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}})
    result = _eval(CALC_AGENT, evalset, "--output-dir", tmp_path / "out")
    assert result.exit_code == 0, result.output
    [saved] = _saved(tmp_path / "out" / "adk_app")
    metrics = {m["metricName"]: m for m in saved["evalCaseResults"][0]["overallEvalMetricResults"]}
    # ADK 2.x appends its four informational efficiency metrics to every test_config.json
    assert list(metrics) == ["tool_trajectory_avg_score", "response_match_score", *ADK_EFFICIENCY_METRICS]
    assert {metrics[name]["evalStatus"] for name in ADK_EFFICIENCY_METRICS} == {"informational"}
    assert metrics["tool_call_count_v1"]["score"] == 1.0  # the agent made one tool call
    assert metrics["invocation_duration_v1"]["details"]["durationDetails"]["total_seconds"] >= 0
    assert metrics["tool_trajectory_avg_score"]["criterion"]["adk"]["threshold"] == 1.0
    assert metrics["response_match_score"]["score"] == 1.0
    assert "test_config.json" in result.output


def test_config_lookup_order(tmp_path: Path) -> None:
    evalset = _set(
        tmp_path / "s.evalset.json", {"evalId": "c", "conversation": [_inv("calc add 1 1", "calc result: 2")]}
    )
    out = tmp_path / "out"

    def metric_names() -> list[str]:
        saved = max(out.rglob("*.evalset_result.json"), key=lambda p: p.stat().st_mtime_ns)
        data = json.loads(saved.read_text())
        saved.unlink()
        return [m["metricName"] for m in data["evalCaseResults"][0]["overallEvalMetricResults"]]

    assert _eval(CALC_AGENT, evalset, "--output-dir", out).exit_code == 1  # ADK defaults: trajectory expects no tools
    assert metric_names() == ["tool_trajectory_avg_score", "response_match_score", *ADK_EFFICIENCY_METRICS]
    _write(tmp_path / "test_config.json", {"criteria": {"response_match_score": 0.5}})
    assert _eval(CALC_AGENT, evalset, "--output-dir", out).exit_code == 0
    assert metric_names() == ["response_match_score", *ADK_EFFICIENCY_METRICS]
    _write(tmp_path / "s.metrics.json", FINAL_ONLY)
    assert _eval(CALC_AGENT, evalset, "--output-dir", out).exit_code == 0
    assert metric_names() == ["final_response_avg_score"]
    explicit = _write(tmp_path / "other.json", {"criteria": {"response_match_score": 0.1}})
    assert _eval(CALC_AGENT, evalset, "--metrics", explicit, "--output-dir", out).exit_code == 0
    assert metric_names() == ["response_match_score", *ADK_EFFICIENCY_METRICS]


def test_json_output_is_one_document_equal_to_the_saved_result(tmp_path: Path) -> None:
    result = _eval(CALC_AGENT, f"{CALC_DIR / 'calculator.evalset.json'}:calc_add", "--json", "--output-dir", tmp_path)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    [saved] = _saved(tmp_path)
    assert document == saved
    assert "Results saved to" in result.stderr
    assert "Results saved to" not in result.stdout


def test_report_files(tmp_path: Path) -> None:
    result = _eval(
        CALC_AGENT,
        f"{CALC_DIR / 'calculator.evalset.json'}:calc_add",
        "--output-dir", tmp_path / "out",
        "--junit", tmp_path / "r.xml",
        "--html", tmp_path / "r.html",
        "--markdown", tmp_path / "r.md",
        "--no-cache",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "<testsuite" in (tmp_path / "r.xml").read_text()
    assert "<html" in (tmp_path / "r.html").read_text().lower()
    assert "## agentgauge: `calculator`" in (tmp_path / "r.md").read_text()


def test_several_eval_sets(tmp_path: Path) -> None:
    a = _set(
        tmp_path / "a.evalset.json",
        {"evalId": "x", "conversation": [_inv("calc add 1 2", "calc result: 3")]},
        set_id="a",
    )
    b = _set(tmp_path / "b.evalset.json", {"evalId": "y", "conversation": [_inv("calc add 1 2", "wrong")]}, set_id="b")
    for name in ("a", "b"):
        _write(tmp_path / f"{name}.metrics.json", FINAL_ONLY)
    result = _eval(CALC_AGENT, a, b, "--json", "--output-dir", tmp_path / "out")
    assert result.exit_code == 1
    documents = json.loads(result.stdout)
    assert [(d["evalSetId"], _statuses(d)) for d in documents] == [("a", {"x": "passed"}), ("b", {"y": "failed"})]


CALC_SET = CALC_DIR / "calculator.evalset.json"
BAD_SET = {"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{"userContent": 5}]}]}
UNKNOWN_METRIC = [{"metricName": "no_such_metric", "threshold": 1}]
BAD_MATCH_TYPE = {"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "SOMETIMES"}}}
BAD_INPUTS: dict[str, tuple[Any, str]] = {
    "missing set": (lambda d: [CALC_AGENT, d / "missing.evalset.json"], "missing.evalset.json"),
    "invalid set": (
        lambda d: [CALC_AGENT, _write(d / "bad.evalset.json", BAD_SET)],
        "bad.evalset.json: evalCases[0].conversation[0].userContent",
    ),
    "unknown case": (
        lambda d: [CALC_AGENT, f"{CALC_SET}:calc_add,nope"],
        "has no case 'nope'; valid ids: calc_add, calc_natural_multiply",
    ),
    "unknown metric": (
        lambda d: [CALC_AGENT, CALC_SET, "--metrics", _write(d / "m.json", UNKNOWN_METRIC)],
        "m.json: [0].metricName: unknown metric 'no_such_metric'; valid metrics:",
    ),
    "bad match_type": (
        lambda d: [CALC_AGENT, CALC_SET, "--metrics", _write(d / "m.json", BAD_MATCH_TYPE)],
        "invalid match_type 'SOMETIMES'",
    ),
    "agent needed": (lambda d: [CALC_SET], "an agent is required: case(s) calc_add"),
    "missing agent": (lambda d: [d / "nope_agent.py", CALC_SET], "nope_agent.py: agent file not found"),
    "num runs": (lambda d: [CALC_AGENT, CALC_SET, "--num-runs", "0"], "--num-runs must be between 1 and 1000, got 0"),
    "parallelism": (lambda d: [CALC_AGENT, CALC_SET, "--parallelism", "0"], "--parallelism must be at least 1"),
    "app name": (lambda d: [CALC_AGENT, CALC_SET, "--app-name", "a/b"], "invalid app name 'a/b'"),
    "negative timeout": (lambda d: [CALC_AGENT, CALC_SET, "--timeout", "-1"], "--timeout must be positive, got -1"),
    "agent only": (lambda d: [CALC_AGENT], "no eval set given: usage: agentgauge eval [AGENT] EVAL_SET"),
    "nan timeout": (lambda d: [CALC_AGENT, CALC_SET, "--timeout", "nan"], "--timeout must be positive, got nan"),
}


@pytest.mark.parametrize(("make_args", "message"), list(BAD_INPUTS.values()), ids=list(BAD_INPUTS))
def test_bad_inputs_exit_2_with_a_precise_message(tmp_path: Path, make_args: Any, message: str) -> None:
    out = tmp_path / "out"
    result = _eval(*make_args(tmp_path), "--output-dir", out)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


def test_an_output_dir_that_is_a_file_is_refused_before_running(tmp_path: Path) -> None:
    taken = _write(tmp_path / "taken", [])
    result = _eval(CALC_AGENT, CALC_SET, "--output-dir", taken)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: --output-dir {taken}: not a directory\n"
    assert result.stdout == ""


def test_agent_after_the_eval_set_is_named_as_misplaced(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _eval("examples/calculator/calculator.evalset.json", "examples/calculator/agent.py", "--output-dir", out)
    assert result.exit_code == 2
    assert result.output.strip() == (
        "error: examples/calculator/agent.py: this looks like an agent, but the agent comes first: "
        "agentgauge eval AGENT EVAL_SET[:case1,case2]..."
    )
    assert not out.exists()


def test_garbage_collector_is_on_again_after_eval(tmp_path: Path) -> None:
    import gc

    assert gc.isenabled()
    ok = _eval("examples/trace_mode/calculator_traces.evalset.json", "--output-dir", tmp_path / "a")
    bad = _eval("examples/trace_mode/calculator_traces.evalset.json", "--num-runs", "0")
    assert (ok.exit_code, bad.exit_code) == (1, 2)
    assert gc.isenabled()
