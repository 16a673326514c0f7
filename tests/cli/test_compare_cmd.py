"""``agentgauge compare``: exit codes, --json, --markdown, --html, result ids, ADK files and bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result, to_adk_result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "compare"


def _copy(tmp_path: Path) -> tuple[Path, Path]:
    base = shutil.copy(EXAMPLES / "base.evalset_result.json", tmp_path / "base.evalset_result.json")
    new = shutil.copy(EXAMPLES / "new.evalset_result.json", tmp_path / "new.evalset_result.json")
    return Path(base), Path(new)


def test_regression_exits_1_and_writes_reports(tmp_path: Path) -> None:
    base, new = _copy(tmp_path)
    md, page = tmp_path / "c.md", tmp_path / "c.html"
    result = CliRunner().invoke(app, ["compare", str(base), str(new), "--markdown", str(md), "--html", str(page)])
    assert result.exit_code == 1, result.output
    assert "REGRESSED: 2 broken, 4 still passing" in result.output
    assert "calc_natural_multiply" in result.output
    assert "| calc_natural_multiply | broken | passed | failed | 1/1 → 0/1 |" in md.read_text()
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_same_result_exits_0_and_json_on_stdout(tmp_path: Path) -> None:
    base, _ = _copy(tmp_path)
    result = CliRunner().invoke(app, ["compare", str(base), str(base), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["regressed"] is False
    assert {c["change"] for c in doc["cases"]} == {"still_passing"}
    assert all(m["delta"] == 0 for m in doc["metrics"])


def test_adk_against_native_and_ids_under_output_dir(tmp_path: Path) -> None:
    base, new = _copy(tmp_path)
    adk = tmp_path / "adk.evalset_result.json"
    adk.write_text(json.dumps(to_adk_result(load_result(base))))
    store = tmp_path / "results" / "calculator"
    store.mkdir(parents=True)
    result_id = load_result(new).eval_set_result_id
    shutil.copy(new, store / f"{result_id}.evalset_result.json")
    result = CliRunner().invoke(
        app, ["compare", str(adk), result_id, "--output-dir", str(tmp_path / "results"), "--json"]
    )
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert [c["evalId"] for c in doc["cases"] if c["change"] == "broken"] == [
        "calc_natural_multiply",
        "calc_multi_turn",
    ]


def test_bad_input_exit_2_one_line_nothing_written(tmp_path: Path) -> None:
    base, _ = _copy(tmp_path)
    broken = tmp_path / "broken.json"
    broken.write_text('{"evalSetId": "x", "evalCaseResults": [{"evalId": 3, "finalEvalStatus": "maybe"}]}')
    md = tmp_path / "c.md"
    for args in (
        [str(base), str(tmp_path / "missing.json")],
        [str(base), str(broken), "--markdown", str(md)],
        [str(base), str(tmp_path)],
        [str(base), str(base), "--html", str(tmp_path)],
    ):
        result = CliRunner().invoke(app, ["compare", *args])
        assert result.exit_code == 2, (args, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), result.output
        assert "Traceback" not in result.output
    assert not md.exists()
    result = CliRunner().invoke(app, ["compare", str(base), str(broken)])
    assert "broken.json" in result.output
