"""The id rules of the storage managers hold in the command line too: an eval set whose case id is too long or holds
control characters, or whose evalSetId holds one, exits 2 with one line naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "calculator"
runner = CliRunner()


def _eval_set(tmp_path: Path, key: str, value: str) -> Path:
    doc = json.loads((EXAMPLES / "calculator.evalset.json").read_text(encoding="utf-8"))
    doc["evalCases"] = doc["evalCases"][:2]
    if key == "evalSetId":
        doc["evalSetId"] = value
    else:
        doc["evalCases"][1]["evalId"] = value
    path = tmp_path / "ids.evalset.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("key", "value", "location", "message"),
    [
        ("evalId", "c" * 300, "evalCases[1].evalId", "too long (300 characters; at most 255)"),
        ("evalId", "agpwn\r\nX-Injected:1", "evalCases[1].evalId", r"control characters (found '\r' at position 5)"),
        ("evalId", "red\x1b[31m", "evalCases[1].evalId", r"control characters (found '\x1b' at position 3)"),
        ("evalSetId", "agpwn\r\nX-Injected:1", "evalSetId", r"control characters (found '\r' at position 5)"),
    ],
)
@pytest.mark.parametrize("command", ["eval", "validate"])
def test_a_bad_id_exits_2_naming_the_file_and_json_path(
    tmp_path: Path, command: str, key: str, value: str, location: str, message: str
) -> None:
    path = _eval_set(tmp_path, key, value)
    out = tmp_path / "out"
    args = [str(EXAMPLES / "agent.py"), str(path), "--output-dir", str(out)] if command == "eval" else [str(path)]
    res = runner.invoke(app, [command, *args])
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: {location}: invalid "), res.stderr
    assert message in lines[0] and "\r" not in res.stderr and "\x1b" not in res.stderr
    assert not out.exists()


def test_a_case_id_at_the_limit_still_runs(tmp_path: Path) -> None:
    path = _eval_set(tmp_path, "evalId", "c" * 255)
    res = runner.invoke(app, ["eval", str(EXAMPLES / "agent.py"), str(path), "--output-dir", str(tmp_path / "out")])
    assert res.exit_code in (0, 1), res.output  # runs (and may fail its expectations), never refused
    assert list((tmp_path / "out").rglob("*.evalset_result.json"))
