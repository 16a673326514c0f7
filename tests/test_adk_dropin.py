"""``agentgauge.adk.AgentEvaluator`` on ADK-style test folders with tiny deterministic agents."""

from __future__ import annotations

import csv
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgauge.adk import AgentEvaluator, EvalConfig
from agentgauge.adk._verdict import failure_lines
from agentgauge.formats import ADK_EFFICIENCY_METRICS, load_eval_set
from agentgauge.model import (
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalSetResult,
    EvalStatus,
    Invocation,
    Message,
)
from agentgauge.storage import InMemoryEvalResultManager

_AGENT = '''
"""A calculator agent: "add 2 3" -> add({{"a": 2, "b": 3}}) -> "5". {doc}"""

import operator

OPS = {{"add": operator.add, "multiply": operator.mul}}
BUGGY = {buggy}


def root_agent(request):
    words = request.user_content.content.split()
    if words[0] == "hello":
        return "hello " + request.state.get("user", "stranger")
    if words[0] == "crash":
        raise RuntimeError("agent crashed")
    op = "add" if BUGGY else words[0]
    a, b = int(words[1]), int(words[2])
    return {{
        "final_response": str(OPS[op](a, b)),
        "tools": [{{"name": op, "arguments": {{"a": a, "b": b}}, "result": OPS[op](a, b)}}],
    }}
'''


def _rows(*queries: tuple[str, str, str]) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for query, tool, reference in queries:
        a, b = (int(x) for x in query.split()[1:3])
        rows.append(
            {
                "query": query,
                "expected_tool_use": [{"tool_name": tool, "tool_input": {"a": a, "b": b}, "mock_tool_output": None}],
                "expected_intermediate_agent_responses": [],
                "reference": reference,
            }
        )
    return rows


@pytest.fixture
def agents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Two ADK-style agent packages, ``adk_calc_ok`` and ``adk_calc_bad`` (which always adds)."""
    root = tmp_path / "agents"
    for name, buggy in (("adk_calc_ok", False), ("adk_calc_bad", True)):
        package = root / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("from . import agent\n", encoding="utf-8")
        (package / "agent.py").write_text(textwrap.dedent(_AGENT.format(doc=name, buggy=buggy)), encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [m for m in sys.modules if m.startswith(("adk_calc_ok", "adk_calc_bad"))]:
        del sys.modules[name]


@pytest.fixture
def evals(tmp_path: Path) -> Path:
    """A test folder: a legacy ``.test.json`` with its test_config.json, and a nested ADK ``.evalset.json``."""
    folder = tmp_path / "evals"
    folder.mkdir()
    rows = _rows(("add 2 3", "add", "5"), ("multiply 2 3", "multiply", "6"))
    (folder / "math.test.json").write_text(json.dumps(rows), encoding="utf-8")
    config = {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
    (folder / "test_config.json").write_text(json.dumps(config), encoding="utf-8")
    nested = folder / "nested"
    nested.mkdir()
    eval_set = {
        "eval_set_id": "adders",
        "eval_cases": [
            {
                "eval_id": "one_plus_one",
                "conversation": [
                    {
                        "invocation_id": "i-1",
                        "user_content": {"role": "user", "parts": [{"text": "add 1 1"}]},
                        "final_response": {"role": "model", "parts": [{"text": "2"}]},
                        "intermediate_data": {"tool_uses": [{"name": "add", "args": {"a": 1, "b": 1}}]},
                    }
                ],
                "session_input": {"app_name": "calc", "user_id": "u1", "state": {}},
            }
        ],
    }
    (nested / "adders.evalset.json").write_text(json.dumps(eval_set), encoding="utf-8")
    return folder


async def test_passing_folder_raises_nothing(agents: Path, evals: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manager = InMemoryEvalResultManager()
    await AgentEvaluator.evaluate("adk_calc_ok", str(evals), num_runs=2, eval_set_results_manager=manager)
    # One saved result per eval file, each holding two runs of every case.
    saved = [manager.get("test_app", result_id) for result_id in manager.list("test_app")]
    assert sorted(r.eval_set_id for r in saved) == ["adders", "math"]
    assert all(sorted(c.run_id for c in r.eval_case_results) == [1, 2] for r in saved)
    out = capsys.readouterr().out
    assert "Summary: `EvalStatus.PASSED` for Metric: `tool_trajectory_avg_score`. Expected threshold: `1.0`, " in out
    assert "actual value: `1.0`." in out
    assert "expected_tool_calls" in out


async def test_failing_file_raises_adk_assertion(agents: Path, evals: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate("adk_calc_bad", str(evals / "math.test.json"), num_runs=2)
    # Two runs x two invocations: the multiply turn scores 0 on both metrics, the add turn 1.
    assert str(info.value).splitlines() == [
        "Following are all the test failures.",
        "tool_trajectory_avg_score for adk_calc_bad Failed. Expected 1.0, but got 0.5.",
        "response_match_score for adk_calc_bad Failed. Expected 0.8, but got 0.5.",
    ]
    out = capsys.readouterr().out
    assert (
        "Summary: `EvalStatus.FAILED` for Metric: `response_match_score`. Expected threshold: `0.8`, "
        "actual value: `0.5`." in out
    )


async def test_hint_when_details_are_off_and_csv_rows(agents: Path, evals: Path, tmp_path: Path) -> None:
    output = tmp_path / "out" / "results.csv"
    output.parent.mkdir()
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate(
            "adk_calc_bad",
            str(evals / "math.test.json"),
            num_runs=1,
            print_detailed_results=False,
            output_file=str(output),
        )
    first = str(info.value).splitlines()[0]
    assert first == (
        "Following are all the test failures. If you looking to get more details on the failures, then please "
        "re-run this test with `print_detailed_results` set to `True`."
    )
    with output.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert list(rows[0]) == [
        "eval_set_id", "eval_id", "metric_name", "threshold", "score", "eval_status", "prompt",
        "expected_response", "actual_response", "expected_tool_calls", "actual_tool_calls",
    ]  # fmt: skip
    assert len(rows) == 4  # one run x two invocations x two metrics
    multiply = [r for r in rows if r["prompt"] == "multiply 2 3"]
    assert {r["metric_name"]: (r["score"], r["eval_status"]) for r in multiply} == {
        "tool_trajectory_avg_score": ("0.0", "FAILED"),
        "response_match_score": ("0.0", "FAILED"),
    }
    row = multiply[0]
    assert row["eval_id"] == str(evals / "math.test.json")
    assert (row["expected_response"], row["actual_response"]) == ("6", "5")
    assert (row["expected_tool_calls"], row["actual_tool_calls"]) == (
        'multiply({"a": 2, "b": 3})',
        'add({"a": 2, "b": 3})',
    )
    assert row["threshold"] in {"1.0", "0.8"}
    # A second evaluation appends rows without repeating the header.
    with pytest.raises(AssertionError):
        await AgentEvaluator.evaluate(
            "adk_calc_bad",
            str(evals / "math.test.json"),
            num_runs=1,
            print_detailed_results=False,
            output_file=str(output),
        )
    lines = output.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 + 8
    assert lines.count(lines[0]) == 1


async def test_runs_without_metric_results_line(agents: Path, tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "crash.test.json").write_text(json.dumps(_rows(("crash 1 2", "add", "3"))), encoding="utf-8")
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0}}))
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate("adk_calc_ok", str(folder), num_runs=2, print_detailed_results=False)
    assert str(info.value).splitlines()[1:] == [
        f"{folder / 'crash.test.json'} for adk_calc_ok Failed. 2 of 2 runs were recorded as failed without "
        "producing any metric results."
    ]


async def test_initial_session_file_for_legacy_rows(agents: Path, tmp_path: Path) -> None:
    folder = tmp_path / "session"
    folder.mkdir()
    rows = [{"query": "hello there", "expected_tool_use": [], "reference": "hello Ada"}]
    (folder / "greet.test.json").write_text(json.dumps(rows), encoding="utf-8")
    session = tmp_path / "initial.session.json"
    session.write_text(json.dumps({"state": {"user": "Ada"}, "app_name": "calc", "user_id": "u"}), encoding="utf-8")
    await AgentEvaluator.evaluate("adk_calc_ok", str(folder), num_runs=1, initial_session_file=str(session))
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate("adk_calc_ok", str(folder), num_runs=1, print_detailed_results=False)
    assert "response_match_score for adk_calc_ok Failed. Expected 0.8, but got 0.5." in str(info.value)


async def test_initial_session_with_new_schema_is_rejected(agents: Path, evals: Path, tmp_path: Path) -> None:
    session = tmp_path / "initial.session.json"
    session.write_text(json.dumps({"state": {}, "app_name": "calc", "user_id": "u"}), encoding="utf-8")
    with pytest.raises(AssertionError, match="Initial session should be specified as a part of EvalSet file"):
        await AgentEvaluator.evaluate(
            "adk_calc_ok", str(evals / "nested" / "adders.evalset.json"), initial_session_file=str(session)
        )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_runs": 0}, "num_runs must be at least 1."),
        ({"agent_name": "advisor"}, "Sub-Agent 'advisor' not found."),
    ],
)
async def test_invalid_arguments(agents: Path, evals: Path, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        await AgentEvaluator.evaluate("adk_calc_ok", str(evals), **kwargs)  # type: ignore[arg-type]


async def test_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"No `\*\.test\.json` eval files found in"):
        await AgentEvaluator.evaluate("adk_calc_ok", str(tmp_path))


async def test_evaluate_eval_set_with_callable_and_criteria(evals: Path) -> None:
    def agent(request: object) -> str:
        return "2"

    eval_set = load_eval_set(evals / "nested" / "adders.evalset.json")
    await AgentEvaluator.evaluate_eval_set(agent, eval_set, criteria={"response_match_score": 0.8}, num_runs=1)
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate_eval_set(
            agent,
            eval_set,
            eval_config=EvalConfig(criteria={"tool_trajectory_avg_score": 1.0}),
            num_runs=1,
        )
    assert str(info.value).splitlines()[1] == "tool_trajectory_avg_score for agent Failed. Expected 1.0, but got 0.0."


def test_find_config_for_test_file(evals: Path, tmp_path: Path) -> None:
    found = AgentEvaluator.find_config_for_test_file(str(evals / "math.test.json"))
    assert found.criteria == {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}
    default = AgentEvaluator.find_config_for_test_file(str(evals / "nested" / "adders.evalset.json"))
    assert default == EvalConfig.default()
    assert [(m.metric_name, m.threshold) for m in found.to_metrics()] == [
        ("tool_trajectory_avg_score", 1.0),
        ("response_match_score", 0.8),
        *((name, 0.0) for name in ADK_EFFICIENCY_METRICS),  # appended, as ADK 2.x does
    ]


def test_migrate_eval_data_to_new_schema(evals: Path, tmp_path: Path) -> None:
    session = tmp_path / "initial.session.json"
    session.write_text(json.dumps({"state": {"k": 1}, "app_name": "calc", "user_id": "u7"}), encoding="utf-8")
    target = tmp_path / "math.evalset.json"
    AgentEvaluator.migrate_eval_data_to_new_schema(str(evals / "math.test.json"), str(target), str(session))
    written = json.loads(target.read_text(encoding="utf-8"))
    assert "eval_cases" in written
    migrated = load_eval_set(target)
    (case,) = migrated.eval_cases
    assert [inv.user_content.content for inv in case.conversation or []] == ["add 2 3", "multiply 2 3"]
    assert [t.name for inv in case.conversation or [] for t in inv.tools] == ["add", "multiply"]
    assert case.session_input is not None and (case.session_input.user_id, case.session_input.state) == ("u7", {"k": 1})
    with pytest.raises(ValueError, match="old eval data file"):
        AgentEvaluator.migrate_eval_data_to_new_schema("", str(target))


def _scored(eval_id: str, run_id: int, *scores: tuple[float | None, str]) -> EvalCaseResult:
    inv = Invocation(user_content=Message(content="q"))
    per_inv = [
        EvalMetricResultPerInvocation(
            actual_invocation=inv,
            expected_invocation=inv,
            eval_metric_results=[
                EvalMetricResult(metric_name="m", score=score, threshold=0.5, eval_status=EvalStatus(status))
            ],
        )
        for score, status in scores
    ]
    return EvalCaseResult(eval_set_id="s", eval_id=eval_id, run_id=run_id, eval_metric_result_per_invocation=per_inv)


@pytest.mark.parametrize(
    ("runs", "expected"),
    [
        # Mean of every non-None per-invocation score over all runs: (1 + 0 + 0.2) / 3.
        (
            [
                _scored("c", 1, (1.0, "passed"), (None, "not_evaluated")),
                _scored("c", 2, (0.0, "failed"), (0.2, "failed")),
            ],
            ["m for agent_x Failed. Expected 0.5, but got 0.4."],
        ),
        (
            [_scored("c", 1, (None, "not_evaluated"))],
            [
                "m for agent_x was not evaluated. No score was produced, so the threshold of 0.5 was never checked and "
                "this is not a score regression. See the logs for why the metric could not run."
            ],
        ),
        ([_scored("c", 1, (0.9, "informational"))], []),
        # A pass below the threshold means lower is better: mean 0.3 <= 0.5 passes, 0.7 fails.
        ([_scored("c", 1, (0.2, "passed"), (0.4, "passed"))], []),
        ([_scored("c", 1, (0.2, "passed"), (1.2, "failed"))], ["m for agent_x Failed. Expected 0.5, but got 0.7."]),
    ],
    ids=["mean", "not-evaluated", "informational", "lower-better-pass", "lower-better-fail"],
)
def test_failure_lines(runs: list[EvalCaseResult], expected: list[str]) -> None:
    failures, _ = failure_lines(EvalSetResult(eval_set_id="s", eval_case_results=runs), "agent_x")
    assert failures == expected


async def test_accepts_adk_eval_set_and_eval_config_objects() -> None:
    pytest.importorskip("google.adk")
    from google.adk.evaluation.eval_config import EvalConfig as AdkEvalConfig
    from google.adk.evaluation.eval_set import EvalSet as AdkEvalSet

    invocation = {
        "invocation_id": "i",
        "user_content": {"role": "user", "parts": [{"text": "add 1 1"}]},
        "final_response": {"role": "model", "parts": [{"text": "2"}]},
        "intermediate_data": {"tool_uses": [{"name": "add", "args": {"a": 1, "b": 1}}]},
    }
    eval_set = AdkEvalSet.model_validate(
        {"eval_set_id": "a", "eval_cases": [{"eval_id": "c", "conversation": [invocation]}]}
    )
    config = AdkEvalConfig(criteria={"tool_trajectory_avg_score": 1.0, "response_match_score": {"threshold": 0.8}})

    def adds(request: object) -> dict[str, object]:
        return {"final_response": "2", "tools": [{"name": "add", "arguments": {"a": 1, "b": 1}}]}

    def subtracts(request: object) -> dict[str, object]:
        return {"final_response": "0", "tools": [{"name": "sub", "arguments": {"a": 1, "b": 1}}]}

    await AgentEvaluator.evaluate_eval_set(adds, eval_set, eval_config=config, num_runs=1)
    with pytest.raises(AssertionError) as info:
        await AgentEvaluator.evaluate_eval_set(subtracts, eval_set, eval_config=config, num_runs=1)
    assert str(info.value).splitlines()[1:] == [
        "tool_trajectory_avg_score for subtracts Failed. Expected 1.0, but got 0.0.",
        "response_match_score for subtracts Failed. Expected 0.8, but got 0.0.",
    ]
