"""``agentgauge validate / convert / migrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def test_validate_ok_lines() -> None:
    files = [
        EXAMPLES / "math_basic/math-basic.evalset.json",
        EXAMPLES / "math_basic/math-basic.metrics.json",
        EXAMPLES / "home_automation/test_config.json",
        EXAMPLES / "math_basic/math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json",
        EXAMPLES / "dice_prime/eval_set_example_with_multiple_sessions.evalset.json",
    ]
    res = runner.invoke(app, ["validate", *map(str, files)])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines == [
        f"ok: {files[0]} (eval set, 1 cases)",
        f"ok: {files[1]} (metrics, 1 metrics)",
        f"ok: {files[2]} (metrics, 2 metrics)",
        f"ok: {files[3]} (result, 1 case results)",
        f"ok: {files[4]} (eval set, 2 cases)",
    ]


def test_validate_reports_one_line_per_bad_file(tmp_path: Path) -> None:
    bad1 = tmp_path / "a.evalset.json"
    bad1.write_text('{"evalSetId": "s", "evalCases": [{"evalId": "c", "conversation": [{}]}]}')
    bad2 = tmp_path / "b.json"
    bad2.write_text("{not json")
    good = EXAMPLES / "helm/helm_eval_set.evalset.json"
    res = runner.invoke(app, ["validate", str(bad1), str(good), str(bad2)])
    assert res.exit_code == 2
    assert res.stdout.splitlines() == [f"ok: {good} (eval set, 1 cases)"]
    assert res.stderr.splitlines() == [
        f"error: {bad1}: evalCases[0].conversation[0].userContent: missing required field",
        f"error: {bad2}: line 1 column 2: invalid JSON: unexpected character, expected a string key",
    ]
    assert "Traceback" not in res.output


def test_convert_adk_to_native_and_back(tmp_path: Path) -> None:
    source = EXAMPLES / "dice_prime/eval_set_example_with_multiple_sessions.evalset.json"
    native = tmp_path / "out" / "dice.evalset.json"
    res = runner.invoke(app, ["convert", str(source), str(native)])
    assert res.exit_code == 0, res.output
    doc = json.loads(native.read_text())
    assert doc["evalSetId"] == "eval_set_example_with_multiple_sessions"
    assert doc["evalCases"][1]["conversation"][1]["tools"][2]["name"] == "check_prime"
    adk_file = tmp_path / "dice.adk.json"
    res = runner.invoke(app, ["convert", str(native), str(adk_file), "--to", "adk"])
    assert res.exit_code == 0, res.output
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    original = adk.EvalSet.model_validate_json(source.read_text())
    assert adk.EvalSet.model_validate_json(adk_file.read_text()).model_dump() == original.model_dump()


def test_convert_metrics_to_adk(tmp_path: Path) -> None:
    out = tmp_path / "test_config.json"
    res = runner.invoke(app, ["convert", str(EXAMPLES / "home_automation/test_config.json"), str(out), "--to", "adk"])
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text()) == {"criteria": {"tool_trajectory_avg_score": 1.0, "response_match_score": 0.8}}
    native = EXAMPLES / "math_basic/math-basic.metrics.json"
    res = runner.invoke(app, ["convert", str(native), str(out), "--to", "adk"])
    assert res.exit_code == 2 and "native criterion" in res.stderr
    assert res.stderr.startswith(f"error: {native}: [0]: metric ")  # names the input file, not a placeholder


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"evalSetId": "s", "evalCases": [{"evalId": 3}]}', "evalCases[0].evalId: input should be a valid string"),
        ("[1, 2]", "unrecognised file"),
        (
            '{"evalSetResultId": "r", "evalSetId": "s", "evalCaseResults": [{"finalEvalStatus": "meh"}]}',
            "evalCaseResults[0].finalEvalStatus: unknown status 'meh'",
        ),
    ],
)
def test_convert_invalid_input_writes_nothing(tmp_path: Path, content: str, message: str) -> None:
    source = tmp_path / "in.json"
    source.write_text(content)
    target = tmp_path / "sub" / "out.json"
    res = runner.invoke(app, ["convert", str(source), str(target)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {source}: ") and message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not target.exists() and not target.parent.exists()


def test_convert_rejects_unknown_format(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["convert", str(EXAMPLES / "helm/helm_eval_set.evalset.json"), str(tmp_path / "o"), "--to", "x"]
    )
    assert res.exit_code == 2 and "--to must be" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_migrate_with_initial_session(tmp_path: Path) -> None:
    target = tmp_path / "home.evalset.json"
    res = runner.invoke(
        app,
        [
            "migrate",
            str(EXAMPLES / "legacy/home_automation.test.json"),
            str(target),
            "--initial-session",
            str(EXAMPLES / "legacy/initial.session.json"),
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(target.read_text())
    case = doc["evalCases"][0]
    assert case["evalId"] == "home_automation"
    assert case["sessionInput"] == {
        "appName": "home_automation_agent",
        "userId": "test_user",
        "state": {"home": "demo"},
    }
    assert case["conversation"][0]["tools"][0]["name"] == "set_device_info"


def test_migrate_adk_output_is_valid_adk(tmp_path: Path) -> None:
    adk = pytest.importorskip("google.adk.evaluation.eval_set")
    target = tmp_path / "home.evalset.json"
    res = runner.invoke(
        app, ["migrate", str(EXAMPLES / "legacy/home_automation.test.json"), str(target), "--to", "adk"]
    )
    assert res.exit_code == 0, res.output
    parsed = adk.EvalSet.model_validate_json(target.read_text())
    assert parsed.eval_cases[0].conversation[1].final_response.parts[0].text == "Device device_2 is off."


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("new.evalset.json", '{"evalSetId": "s", "evalCases": []}', "not a legacy ADK test file"),
        ("bad.test.json", '[{"query": ["x"]}]', "[0].query: expected a string (got array)"),
    ],
)
def test_migrate_invalid_input_writes_nothing(tmp_path: Path, name: str, content: str, message: str) -> None:
    source = tmp_path / name
    source.write_text(content)
    target = tmp_path / "out.evalset.json"
    res = runner.invoke(app, ["migrate", str(source), str(target)])
    assert res.exit_code == 2 and message in res.stderr
    assert not target.exists()


def test_migrate_bad_initial_session_writes_nothing(tmp_path: Path) -> None:
    session = tmp_path / "s.json"
    session.write_text('{"app_name": 5}')
    target = tmp_path / "out.evalset.json"
    res = runner.invoke(
        app,
        ["migrate", str(EXAMPLES / "legacy/home_automation.test.json"), str(target), "--initial-session", str(session)],
    )
    assert res.exit_code == 2 and f"{session}: appName" in res.stderr
    assert not target.exists()


@pytest.mark.parametrize("command", ["validate", "convert", "migrate"])
def test_help_has_an_example(command: str) -> None:
    res = runner.invoke(app, [command, "--help"])
    assert res.exit_code == 0
    assert "Example" in res.stdout and f"agentgauge {command}" in res.stdout


def test_validate_checks_metric_names_and_criteria(tmp_path: Path) -> None:
    unknown = tmp_path / "x.metrics.json"
    unknown.write_text('[{"metricName": "nope", "threshold": 1}]')
    config = tmp_path / "test_config.json"
    config.write_text('{"criteria": {"tool_trajectory_avg_score": {"threshold": 1, "match_type": "WEIRD"}}}')
    custom = tmp_path / "custom" / "test_config.json"
    custom.parent.mkdir()
    custom.write_text('{"criteria": {"mine": 0.5}, "custom_metrics": {"mine": {"code_config": {"name": "m.f"}}}}')
    res = runner.invoke(app, ["validate", str(unknown), str(config), str(custom)])
    assert res.exit_code == 2
    errors = res.stderr.splitlines()
    assert errors[0].startswith(f"error: {unknown}: [0].metricName: unknown metric 'nope'; valid metrics: ")
    assert errors[1].startswith(f"error: {config}: criteria.tool_trajectory_avg_score: ") and "WEIRD" in errors[1]
    assert res.stdout.splitlines() == [f"ok: {custom} (metrics, 1 metrics)"]


def test_validate_initial_session_and_convert_refuses_it(tmp_path: Path) -> None:
    session = EXAMPLES / "legacy/initial.session.json"
    res = runner.invoke(app, ["validate", str(session)])
    assert res.exit_code == 0 and res.stdout.strip() == f"ok: {session} (initial session, app 'home_automation_agent')"
    res = runner.invoke(app, ["convert", str(session), str(tmp_path / "o.json")])
    assert res.exit_code == 2 and "nothing to convert" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_validate_initial_session_saved_from_a_session() -> None:
    # ADK's own trip_planner_agent fixture: a saved Session (id, events, last_update_time) that ADK's
    # AgentEvaluator reads as an initial session; only app_name, user_id and state are used.
    session = Path(__file__).parent / "data/seed_files/trip_planner.initial.session.json"
    res = runner.invoke(app, ["validate", str(session)])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip() == f"ok: {session} (initial session, app 'trip_planner_agent')"


def test_validate_refuses_a_session_like_object_with_other_keys(tmp_path: Path) -> None:
    odd = tmp_path / "odd.json"
    odd.write_text('{"app_name": "a", "id": "x", "events": [], "turns": 3}')
    res = runner.invoke(app, ["validate", str(odd)])
    assert res.exit_code == 2 and "unrecognised file" in res.stderr


def test_validate_names_the_lower_case_metric_for_an_enum_spelling() -> None:
    # ADK-TS's sample spells the enum members; ADK registers only the lower-case values, so both refuse it.
    config = Path(__file__).parent / "data/seed_files/adk_ts_guardrails.test_config.json"
    res = runner.invoke(app, ["validate", str(config)])
    assert res.exit_code == 2
    assert res.stderr.startswith(
        f"error: {config}: criteria.TOOL_TRAJECTORY_AVG_SCORE: unknown metric 'TOOL_TRAJECTORY_AVG_SCORE' "
        "(did you mean 'tool_trajectory_avg_score'? metric names are case-sensitive); valid metrics: "
    )
