"""``agentgauge eval`` refuses bad input with one line that names the input: the file and JSON path, or the
argument and what was expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from agentgauge.cli import app

ROOT = Path(__file__).resolve().parents[2]
CALC_AGENT = str(ROOT / "examples" / "calculator" / "agent.py")

runner = CliRunner()


def _case(eval_id: str = "c", **extra: Any) -> dict[str, Any]:
    return {
        "evalId": eval_id,
        "conversation": [{"userContent": {"content": "1+1"}, "finalResponse": {"content": "calc result: 2"}}],
        **extra,
    }


def _refused(tmp_path: Path, *args: str) -> str:
    out = tmp_path / "out"
    result = runner.invoke(app, ["eval", *args, "--output-dir", str(out)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert not out.exists()
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_an_invalid_app_name_of_a_case_names_the_file_and_json_path(tmp_path: Path) -> None:
    cases = [_case("ok"), _case("bad", sessionInput={"appName": "a/b", "userId": "u", "state": {}})]
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": cases}))
    line = _refused(tmp_path, CALC_AGENT, str(path))
    assert line.startswith(f"error: {path}: evalCases[1].sessionInput.appName: invalid app name 'a/b'"), line


def test_an_invalid_app_name_option_names_the_option(tmp_path: Path) -> None:
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps({"evalSetId": "s", "evalCases": [_case()]}))
    line = _refused(tmp_path, CALC_AGENT, str(path), "--app-name", "x/y")
    assert line.startswith("error: --app-name: invalid app name 'x/y'"), line


def test_a_directory_given_as_the_only_argument_says_it_was_taken_as_the_agent(tmp_path: Path) -> None:
    folder = tmp_path / "sets"
    folder.mkdir()
    line = _refused(tmp_path, str(folder))
    assert line.startswith(f"error: no eval set given: {folder} is a directory, so it was taken as the agent"), line
    assert "EVAL_SET must be an eval set file" in line


def test_a_directory_given_as_the_eval_set_after_the_agent_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "sets"
    folder.mkdir()
    line = _refused(tmp_path, CALC_AGENT, str(folder))
    assert line.startswith(f"error: {folder}: is a directory, not an eval set: EVAL_SET must be an eval set file"), line


def test_a_second_python_file_is_not_called_a_misplaced_agent(tmp_path: Path) -> None:
    line = _refused(tmp_path, CALC_AGENT, str(tmp_path / "other.py"))
    assert line.startswith(f"error: {tmp_path / 'other.py'}: a Python file, not an eval set (the agent is "), line


def test_an_eval_set_id_too_long_for_a_file_name_names_the_eval_set_not_a_metrics_file(tmp_path: Path) -> None:
    path = tmp_path / "long.evalset.json"
    path.write_text(json.dumps({"evalSetId": "x" * 300, "evalCases": [_case()]}))
    for extra in ([], ["--app-name", "calc"]):  # the id names the app too, unless --app-name does
        line = _refused(tmp_path, CALC_AGENT, str(path), *extra)
        assert line.startswith(f"error: {path}: evalSetId: "), line
        assert "too long" in line
        assert ".metrics.json" not in line
