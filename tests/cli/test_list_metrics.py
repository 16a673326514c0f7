"""``agentgauge list-metrics``: table and JSON listing of the registered metrics."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.evaluators import Registry


def test_json_lists_every_registered_metric() -> None:
    result = CliRunner().invoke(app, ["list-metrics", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["name"] for r in rows] == Registry().names()
    by_name = {r["name"]: r for r in rows}
    assert by_name["tool_trajectory_avg_score"] == {
        "name": "tool_trajectory_avg_score",
        "needsExpected": True,
        "needsJudge": False,
        "minValue": 0.0,
        "maxValue": 1.0,
        "description": "Tool calls match the expected trajectory (1/0 per invocation, mean).",
    }
    assert by_name["response_match_score"]["needsJudge"] is False
    assert all(set(r) == {"name", "needsExpected", "needsJudge", "minValue", "maxValue", "description"} for r in rows)
    assert all(r["description"] for r in rows)


def test_table_shows_names_needs_and_ranges() -> None:
    result = CliRunner().invoke(app, ["list-metrics"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    out = result.stdout
    for name in Registry().names():
        assert name in out
    line = next(ln for ln in out.splitlines() if "response_match_score" in ln)
    assert "yes" in line and "no" in line and "0–1" in line and "ROUGE-1" in line
    assert "expected" in out and "judge" in out and "range" in out


def test_command_module_import_stays_light() -> None:
    code = (
        "import sys; import agentgauge.cli._metrics_cmds; "
        "heavy = [m for m in ('rouge_score', 'nltk', 'jsonschema', 'rich.table', 'agentgauge.evaluators') "
        "if m in sys.modules]; print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
