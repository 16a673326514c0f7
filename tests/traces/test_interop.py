"""agentevals interop in ``eval --traces``: its case attribute, its ``eval_config.yaml`` (built-in metrics, Python
code evaluators, refusals), its one-case pairing, and turn-count mismatches scored turn by turn."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.errors import InputError
from agentgauge.formats import load_agentevals_config

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
HAND = DATA / "handmade"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces"
runner = CliRunner()


def _run(*args: str | Path) -> Any:
    return runner.invoke(app, [*map(str, args)])


def _cases(stdout: str) -> dict[str, dict[str, Any]]:
    return {case["evalId"]: case for case in json.loads(stdout)["evalCaseResults"]}


def _metrics(case: dict[str, Any]) -> dict[str, tuple[float | None, str]]:
    return {m["metricName"]: (m["score"], m["evalStatus"]) for m in case["overallEvalMetricResults"]}


# --- the case attribute and the one-case pairing ------------------------------------------------------------------


def test_agentevals_case_attribute_names_the_case(tmp_path: Path) -> None:
    # genai_parts.otlp.json names its case with agentgauge.eval_id on the resource; rename it to agentevals' key.
    trace = tmp_path / "trace.otlp.json"
    trace.write_text(
        (HAND / "genai_parts.otlp.json").read_text().replace("agentgauge.eval_id", "agentevals.eval.case.id")
    )
    golden = tmp_path / "golden.evalset.json"
    assert _run("traces", "to-evalset", HAND / "genai_parts.otlp.json", golden).exit_code == 0
    [case_id] = [c["evalId"] for c in json.loads(golden.read_text())["evalCases"]]
    result = _run("eval", "--traces", trace, "--eval-set", golden, "--output-dir", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert f"-> case {case_id} (by agentevals.eval.case.id attribute)" in result.output
    # A name that is no case is an error naming agentevals' attribute.
    trace.write_text(trace.read_text().replace(case_id, "no_such_case"))
    result = _run("eval", "--traces", trace, "--eval-set", golden, "--output-dir", tmp_path / "out")
    assert result.exit_code == 2
    assert "agentevals.eval.case.id='no_such_case' names no selected case" in result.output


def test_one_case_set_and_one_trace_are_paired_as_agentevals_does(tmp_path: Path) -> None:
    # helm_2.json starts with another question than the set's only case: agentevals pairs them, and so do we, saying so.
    result = _run("eval", "--traces", AE / "helm_2.json", "--eval-set", AE / "eval_set_helm.json",
                  "--output-dir", tmp_path)  # fmt: skip
    assert "-> case helm_list_releases (by the set's only case and the only trace, as agentevals pairs them)" in (
        result.output
    )
    assert result.exit_code == 1  # scored (trajectory 0.0), not refused


# --- eval_config.yaml ---------------------------------------------------------------------------------------------

CODE_EVALUATOR = """
import json, sys
data = json.load(sys.stdin)
invocations = data["invocations"]
expected = data["expected_invocations"] or []
calls = [c["name"] for inv in invocations for c in inv["intermediate_steps"]["tool_calls"]]
allowed = set(data["config"]["allowed"])
scores = [1.0 if all(c["name"] in allowed for c in inv["intermediate_steps"]["tool_calls"]) else 0.0
          for inv in invocations]
print(json.dumps({"score": sum(scores) / len(scores), "per_invocation_scores": scores,
                  "details": {"calls": calls, "threshold": data["threshold"], "expected": len(expected),
                              "metric": data["metric_name"], "protocol": data["protocol_version"]}}))
"""


def _config(folder: Path, body: str) -> Path:
    path = folder / "eval_config.yaml"
    path.write_text(textwrap.dedent(body))
    return path


def test_eval_config_builtin_metrics_thresholds_and_match_type(tmp_path: Path) -> None:
    config = _config(tmp_path, """\
        evaluators:
          - name: tool_trajectory_avg_score
            type: builtin
            trajectory_match_type: in_order
          - name: response_match_score
            type: builtin
            threshold: 0.9
        """)  # fmt: skip
    result = _run("eval", "--traces", AE / "helm.json", "--eval-set", AE / "eval_set_helm.json",
                  "--config", config, "--output-dir", tmp_path / "out", "--json")  # fmt: skip
    assert result.exit_code == 1, result.output
    case = _cases(result.stdout)["helm_list_releases"]
    assert _metrics(case) == {
        "tool_trajectory_avg_score": (1.0, "passed"),
        "response_match_score": (pytest.approx(0.8118811881188119), "failed"),
    }
    thresholds = {m["metricName"]: m["threshold"] for m in case["overallEvalMetricResults"]}
    assert thresholds == {"tool_trajectory_avg_score": 0.5, "response_match_score": 0.9}  # agentevals' default 0.5
    [metric] = [m for m in load_agentevals_config(config).metrics if m.metric_name == "tool_trajectory_avg_score"]
    assert metric.criterion is not None and metric.criterion.adk == {"threshold": 0.5, "match_type": "IN_ORDER"}


def test_eval_config_judge_model_and_rubrics_become_adk_criteria(tmp_path: Path) -> None:
    config = _config(tmp_path, """\
        evaluators:
          - {name: final_response_match_v2, type: builtin, judge_model: gemini-2.5-flash, threshold: 0.7}
          - name: rubric_based_final_response_quality_v1
            type: builtin
            rubrics: ["Names every release", {id: ns, text: "Gives namespaces"}]
        """)  # fmt: skip
    judged, rubric = load_agentevals_config(config).metrics
    assert judged.threshold == 0.7
    assert judged.criterion is not None and judged.criterion.adk == {
        "threshold": 0.7, "judge_model_options": {"judge_model": "gemini-2.5-flash"},
    }  # fmt: skip
    assert rubric.criterion is not None and rubric.criterion.adk is not None
    assert rubric.criterion.adk["rubrics"] == [
        {"rubric_id": "rubric_0", "rubric_content": {"text_property": "Names every release"}},
        {"rubric_id": "ns", "rubric_content": {"text_property": "Gives namespaces"}},
    ]


def test_eval_config_python_code_evaluator_runs_as_a_plugin(tmp_path: Path) -> None:
    (tmp_path / "tools_allowed.py").write_text(CODE_EVALUATOR)
    _config(tmp_path, """\
        evaluators:
          - name: tools_allowed
            type: code
            path: ./tools_allowed.py
            threshold: 0.75
            config: {allowed: [get_weather]}
        """)  # fmt: skip
    (tmp_path / "weather.evalset.json").write_text((EXAMPLES / "weather.evalset.json").read_text())
    # eval_config.yaml beside the eval set is found like test_config.json.
    result = _run("eval", "--traces", EXAMPLES, "--eval-set", tmp_path / "weather.evalset.json",
                  "--output-dir", tmp_path / "out", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"metrics from {tmp_path / 'eval_config.yaml'}" in result.stderr
    cases = _cases(result.stdout)
    [metric] = cases["weather_two_cities"]["overallEvalMetricResults"]
    assert (metric["metricName"], metric["score"], metric["evalStatus"], metric["threshold"]) == (
        "tools_allowed", 1.0, "passed", 0.75,
    )  # fmt: skip
    details = json.loads(metric["details"]["reason"])
    assert details == {"calls": ["get_weather", "get_weather"], "threshold": 0.75, "expected": 2,
                       "metric": "tools_allowed", "protocol": "1.1"}  # fmt: skip


def test_eval_config_code_evaluator_failure_errors_its_metric_only(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("import sys\nsys.exit('no way')\n")
    config = _config(tmp_path, """\
        evaluators:
          - {name: broken, type: code, path: broken.py}
          - {name: tool_trajectory_avg_score, type: builtin}
        """)  # fmt: skip
    result = _run("eval", "--traces", AE / "helm.json", "--eval-set", AE / "eval_set_helm.json",
                  "--config", config, "--output-dir", tmp_path / "out", "--json")  # fmt: skip
    case = _cases(result.stdout)["helm_list_releases"]
    assert _metrics(case) == {"broken": (None, "error"), "tool_trajectory_avg_score": (1.0, "passed")}
    assert "broken.py exited with code 1: no way" in case["errorMessage"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("evaluators:\n  - {name: x, type: remote, ref: evaluators/x.py}\n",
         "evaluators[0].type: evaluator 'x' of type 'remote' is not supported (remote evaluators are fetched"),
        ("evaluators:\n  - {name: x, type: code, path: x.js}\n",
         "evaluators[0].path: code evaluator 'x': only Python (.py) evaluators run in agentgauge, not '.js'"),
        ("metrics: [tool_trajectory_avg_score]\n", "agentevals' legacy keys (metrics) are not read"),
        ("evaluators: []\n", "evaluators: expected a non-empty 'evaluators' list"),
        ("evaluators:\n  - {name: x, type: builtin, threshold: 2}\n",
         "evaluators[0].threshold: threshold must be a number from 0 to 1 (got 2)"),
        ("evaluators:\n  - {name: x, type: code, path: missing.py}\n", "evaluators[0].path: evaluator file not found"),
        ("evaluators: [\n", "invalid YAML"),
    ],
)  # fmt: skip
def test_eval_config_refusals_are_one_line(tmp_path: Path, body: str, message: str) -> None:
    config = tmp_path / "eval_config.yaml"
    config.write_text(body)
    with pytest.raises(InputError) as caught:
        load_agentevals_config(config)
    assert message in str(caught.value)
    assert str(caught.value).startswith(str(config))
    out = tmp_path / "out"
    result = _run("eval", "--traces", AE / "helm.json", "--eval-set", AE / "eval_set_helm.json", "--config", config,
                  "--output-dir", out)  # fmt: skip
    assert result.exit_code == 2
    [error] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert message in error
    assert not out.exists()


# --- turn-count mismatches ----------------------------------------------------------------------------------------


def _weather_case(tmp_path: Path, turns: int) -> Path:
    document = json.loads((EXAMPLES / "weather.evalset.json").read_text())
    [case] = [c for c in document["evalCases"] if c["evalId"] == "weather_two_cities"]
    conversation = case["conversation"]
    extra = json.loads(json.dumps(conversation[-1]))
    extra["userContent"]["content"] = "And in Lima?"
    case["conversation"] = [*conversation, extra][:turns]
    document["evalCases"] = [case]
    path = tmp_path / f"weather_{turns}.evalset.json"
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    ("turns", "reason", "scored"),
    [
        (1, "unexpected turn 2: recorded user message 'And in Tokyo?' has no expected turn (the recording has 2 "
            "turn(s), the expected conversation 1)", 1),
        (3, "missing turn 3: expected user message 'And in Lima?' has no recorded turn (the recording has 2 turn(s), "
            "the expected conversation 3)", 2),
    ],
)  # fmt: skip
def test_turn_count_mismatch_scores_the_turns_that_line_up_and_fails(
    tmp_path: Path, turns: int, reason: str, scored: int
) -> None:
    golden = _weather_case(tmp_path, turns)
    result = _run("eval", "--traces", EXAMPLES / "adk_weather.otlp.jsonl", "--eval-set", golden,
                  "--output-dir", tmp_path / "out", "--json")  # fmt: skip
    assert result.exit_code == 1
    case = _cases(result.stdout)["weather_two_cities"]
    assert case["finalEvalStatus"] == "failed"
    assert case["errorMessage"] == reason
    metrics = _metrics(case)
    assert metrics["tool_trajectory_avg_score"] == (1.0, "passed")  # the turns that line up are right
    assert metrics["response_match_score"] == (1.0, "passed")
    per_invocation = case["evalMetricResultPerInvocation"]
    assert [bool(p.get("evalMetricResults")) for p in per_invocation] == [True] * scored + [False] * (2 - scored)
    assert "unexpected turn" in reason or len(per_invocation) == 2
