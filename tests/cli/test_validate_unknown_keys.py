"""``agentgauge validate`` and ``agentgauge eval`` run the same input checks, in every dialect: every unknown key named
with its JSON path and a did-you-mean (an error where the file's own tool refuses it, a warning where it accepts
it; ``--strict``: errors too), metric-name typos at the file's own JSON path, thresholds outside a metric's
range refused. Warnings are one line each on stderr and never change the exit code."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
NATIVE = EXAMPLES / "calculator/calculator.evalset.json"
NATIVE_METRICS = EXAMPLES / "calculator/calculator.metrics.json"
AGENT = EXAMPLES / "calculator/agent.py"
ADK = EXAMPLES / "dice_prime/eval_set_example_with_multiple_sessions.evalset.json"
AE = ROOT / "tests/traces/data/agentevals"
runner = CliRunner()


def _cases(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc.get("evalCases") or doc["eval_cases"]


def _typo_case(doc: dict[str, Any]) -> None:
    _cases(doc)[0]["conversaton"] = _cases(doc)[0].pop("conversation")


def _typo_turn(doc: dict[str, Any]) -> None:
    turn = doc["eval_cases"][1]["conversation"][0]
    turn["final_respnse"] = turn.pop("final_response")


def _adk_extras(doc: dict[str, Any]) -> None:
    doc["eval_cases"][0].update(case_id="17", notes="kept by ADK's EvalCase")


def _two_typos(doc: dict[str, Any]) -> None:
    doc["evalCases"][0]["conversation"][0]["finalRespons"] = doc["evalCases"][0]["conversation"][0].pop("finalResponse")
    doc["evalCases"][1]["sesionInput"] = {}


_NATIVE_WHY = "it has no effect (agentgauge and trpc-agent-go ignore it)"

EVAL_SET_CASES: list[tuple[str, Path, Callable[[dict[str, Any]], None], list[str], int, list[str]]] = [
    # (id, file, edit, extra options, exit code, stderr lines)
    (
        "native warning",
        NATIVE,
        _typo_case,
        [],
        0,
        [
            "warning: {f}: evalCases[0].conversaton: unknown key 'conversaton' (did you mean 'conversation'?); "
            f"{_NATIVE_WHY}"
        ],
    ),
    (
        "native strict",
        NATIVE,
        _typo_case,
        ["--strict"],
        2,
        [
            "error: {f}: evalCases[0].conversaton: unknown key 'conversaton' (did you mean 'conversation'?); "
            f"{_NATIVE_WHY} (--strict)"
        ],
    ),
    (
        "native two keys",
        NATIVE,
        _two_typos,
        [],
        0,
        [
            "warning: {f}: evalCases[0].conversation[0].finalRespons: unknown key 'finalRespons' (did you mean "
            f"'finalResponse'?); {_NATIVE_WHY}",
            "warning: {f}: evalCases[1].sesionInput: unknown key 'sesionInput' (did you mean 'sessionInput'?); "
            f"{_NATIVE_WHY}",
        ],
    ),
    (
        "adk case keys ADK keeps",
        ADK,
        _adk_extras,
        [],
        0,
        [
            "warning: {f}: eval_cases[0].case_id: unknown key 'case_id'; it has no effect (ADK's EvalCase keeps it)",
            "warning: {f}: eval_cases[0].notes: unknown key 'notes'; it has no effect (ADK's EvalCase keeps it)",
        ],
    ),
    (
        "adk invocation",
        ADK,
        _typo_turn,
        [],
        2,
        [
            "error: {f}: eval_cases[1].conversation[0].final_respnse: unknown key 'final_respnse' (did you mean "
            "'final_response'?); ADK's Invocation refuses it"
        ],
    ),
    ("native clean", NATIVE, lambda doc: None, ["--strict"], 0, []),
    ("adk clean", ADK, lambda doc: None, ["--strict"], 0, []),
]


@pytest.mark.parametrize(
    ("source", "edit", "options", "code", "expected"),
    [c[1:] for c in EVAL_SET_CASES],
    ids=[c[0] for c in EVAL_SET_CASES],
)
def test_validate_names_unknown_keys_of_eval_sets(
    tmp_path: Path,
    source: Path,
    edit: Callable[[dict[str, Any]], None],
    options: list[str],
    code: int,
    expected: list[str],
) -> None:
    doc = json.loads(source.read_text())
    edit(doc)
    path = tmp_path / source.name
    path.write_text(json.dumps(doc, indent=2))
    res = runner.invoke(app, ["validate", *options, str(path)])
    assert res.exit_code == code, res.output
    assert res.stderr.splitlines() == [line.format(f=path) for line in expected]
    assert res.stdout.splitlines() == ([f"ok: {path} (eval set, {len(_cases(doc))} cases)"] if code == 0 else [])


_TC = "test_config.json"
_YAML = "eval_config.yaml"
_ARRAY = "calc.metrics.json"
_BUILTIN = "evaluators:\n  - name: tool_trajectory_avg_score\n    type: builtin\n"

# (id, file name, content, exit code, the one stderr line)
METRICS_CASES: list[tuple[str, str, str, int, str]] = [
    (
        "test_config metric name",
        _TC,
        '{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match": 0.8}}',
        2,
        "error: {f}: criteria.response_match: unknown metric 'response_match' (did you mean "
        "'response_match_score'?); valid metrics: ",
    ),
    (
        "test_config threshold out of range",
        _TC,
        '{"criteria": {"response_match_score": 80}}',
        2,
        "error: {f}: criteria.response_match_score: threshold 80 is outside the range of response_match_score's "
        "scores, [0, 1]",
    ),
    (
        "test_config criterion key ADK keeps",
        _TC,
        '{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_typ": "IN_ORDER"}}}',
        0,
        "warning: {f}: criteria.tool_trajectory_avg_score.match_typ: unknown key 'match_typ' (did you mean "
        "'match_type'?); it has no effect (ADK's ToolTrajectoryCriterion keeps it)",
    ),
    (
        "test_config judge options ADK refuses",
        _TC,
        '{"criteria": {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": '
        '{"judge_model": "m", "num_sample": 3}}}}',
        2,
        "error: {f}: criteria.final_response_match_v2.judge_model_options.num_sample: unknown key 'num_sample' "
        "(did you mean 'num_samples'?); ADK's JudgeModelOptions refuses it",
    ),
    (
        "test_config top level",
        _TC,
        '{"criteria": {"response_match_score": 0.8}, "custom_metric": {}}',
        0,
        "warning: {f}: custom_metric: unknown key 'custom_metric' (did you mean 'custom_metrics'?); it has no "
        "effect (ADK's EvalConfig ignores it)",
    ),
    (
        "array metric name",
        _ARRAY,
        '[{"metricName": "tool_trajectory_avg_score", "threshold": 1}, {"metricName": "final_respone_avg_score"}]',
        2,
        "error: {f}: [1].metricName: unknown metric 'final_respone_avg_score' (did you mean "
        "'final_response_avg_score'?); valid metrics: ",
    ),
    (
        "array criterion key",
        _ARRAY,
        '[{"metricName": "tool_trajectory_avg_score", "threshold": 1, '
        '"criterion": {"toolTrajectory": {"orderSensitve": true}}}]',
        0,
        "warning: {f}: [0].criterion.toolTrajectory.orderSensitve: unknown key 'orderSensitve' (did you mean "
        "'orderSensitive'?); it has no effect (trpc-agent-go ignores it)",
    ),
    (
        "array metric key",
        _ARRAY,
        '[{"metricName": "tool_trajectory_avg_score", "treshold": 1}]',
        0,
        "warning: {f}: [0].treshold: unknown key 'treshold' (did you mean 'threshold'?); it has no effect "
        "(trpc-agent-go ignores it)",
    ),
    (
        "array threshold out of range",
        _ARRAY,
        '[{"metricName": "final_response_avg_score", "threshold": 80, "criterion": {"finalResponse": {"text": {}}}}]',
        2,
        "error: {f}: [0].threshold: threshold 80 is outside the range of final_response_avg_score's scores, [0, 1]",
    ),
    (
        "eval_config.yaml metric name",
        _YAML,
        _BUILTIN + "  - name: response_match_scor\n    type: builtin\n",
        2,
        "error: {f}: evaluators[1].name: unknown metric 'response_match_scor' (did you mean "
        "'response_match_score'?); valid metrics: ",
    ),
    (
        "eval_config.yaml entry key",
        _YAML,
        _BUILTIN + "    threshhold: 0.5\n",
        0,
        "warning: {f}: evaluators[0].threshhold: unknown key 'threshhold' (did you mean 'threshold'?); it has no "
        "effect (agentevals ignores it)",
    ),
]


@pytest.mark.parametrize(
    ("name", "content", "code", "expected"), [c[1:] for c in METRICS_CASES], ids=[c[0] for c in METRICS_CASES]
)
def test_validate_checks_metrics_files_of_every_dialect(
    tmp_path: Path, name: str, content: str, code: int, expected: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    res = runner.invoke(app, ["validate", str(path)])
    assert res.exit_code == code, res.output
    [line] = res.stderr.splitlines()
    assert line.startswith(expected.format(f=path))
    if code == 0:
        assert res.stdout.startswith(f"ok: {path} (metrics, ")
        strict = runner.invoke(app, ["validate", "--strict", str(path)])
        assert strict.exit_code == 2 and strict.stderr.startswith(f"error: {path}: ")
        assert strict.stderr.rstrip().endswith(" (--strict)")


def _eval(tmp_path: Path, *args: str | Path) -> Any:
    return runner.invoke(app, ["eval", *map(str, args), "--output-dir", str(tmp_path / "out")])


def test_eval_names_a_typo_d_key_and_runs(tmp_path: Path) -> None:
    doc = json.loads(NATIVE.read_text())
    turn = doc["evalCases"][0]["conversation"][0]
    turn["finalRespone"] = turn.pop("finalResponse")
    path = tmp_path / "calc.evalset.json"
    path.write_text(json.dumps(doc))
    res = _eval(tmp_path, AGENT, path, "--config", NATIVE_METRICS)
    assert res.exit_code == 1  # it runs (the typo leaves the case without an expected answer, so it fails)
    assert res.stderr.splitlines()[0] == (
        f"warning: {path}: evalCases[0].conversation[0].finalRespone: unknown key 'finalRespone' (did you mean "
        f"'finalResponse'?); {_NATIVE_WHY}"
    )
    strict = _eval(tmp_path / "strict", AGENT, path, "--config", NATIVE_METRICS, "--strict")
    assert strict.exit_code == 2
    assert strict.stderr.splitlines() == [
        f"error: {path}: evalCases[0].conversation[0].finalRespone: unknown key 'finalRespone' (did you mean "
        f"'finalResponse'?); {_NATIVE_WHY} (--strict)"
    ]
    assert not (tmp_path / "strict" / "out").exists()  # nothing ran, nothing written


def test_eval_warnings_never_change_the_exit_code(tmp_path: Path) -> None:
    doc = json.loads(NATIVE.read_text())
    doc["evalCases"][0]["notes"] = "for me"
    path = tmp_path / "calc.evalset.json"
    path.write_text(json.dumps(doc))
    clean = _eval(tmp_path / "a", AGENT, NATIVE, "--config", NATIVE_METRICS)
    noted = _eval(tmp_path / "b", AGENT, path, "--config", NATIVE_METRICS)
    assert noted.exit_code == clean.exit_code
    assert [line for line in noted.stderr.splitlines() if line.startswith("warning:")] == [
        f"warning: {path}: evalCases[0].notes: unknown key 'notes'; {_NATIVE_WHY}"
    ]


@pytest.mark.parametrize(
    ("config", "location"),
    [
        ('{"criteria": {"tool_trajectory_avg_score": 1.0, "response_match": 0.8}}', "criteria.response_match"),
        ('{"criteria": {"response_match_score": 80}}', "criteria.response_match_score"),
    ],
    ids=["metric name", "threshold"],
)
def test_eval_refuses_what_validate_refuses(tmp_path: Path, config: str, location: str) -> None:
    metrics = tmp_path / "test_config.json"
    metrics.write_text(config)
    res = _eval(tmp_path, AGENT, NATIVE, "--config", metrics)
    assert res.exit_code == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"error: {metrics}: {location}: ")
    assert runner.invoke(app, ["validate", str(metrics)]).stderr.splitlines() == [line]


def test_eval_traces_checks_an_eval_config_yaml(tmp_path: Path) -> None:
    config = tmp_path / "eval_config.yaml"
    config.write_text(textwrap.dedent(_BUILTIN + "    trajectory_match_typ: IN_ORDER\n"))
    res = _eval(tmp_path, "--traces", AE / "helm.json", "--eval-set", AE / "eval_set_helm.json", "--config", config)
    assert res.exit_code in (0, 1), res.output
    assert (
        f"warning: {config}: evaluators[0].trajectory_match_typ: unknown key 'trajectory_match_typ' (did you mean "
        "'trajectory_match_type'?); it has no effect (agentevals ignores it)"
    ) in res.stderr.splitlines()
    config.write_text(_BUILTIN + "  - name: response_match_scor\n    type: builtin\n")
    res = _eval(tmp_path, "--traces", AE / "helm.json", "--eval-set", AE / "eval_set_helm.json", "--config", config)
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {config}: evaluators[1].name: unknown metric 'response_match_scor' (did")
