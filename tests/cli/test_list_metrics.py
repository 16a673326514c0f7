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


def test_listing_is_readable_at_80_columns() -> None:
    result = CliRunner().invoke(app, ["list-metrics"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    names = Registry().names()
    heads = [line for line in lines if line and not line.startswith(" ") and line != "agentgauge metrics"]
    assert [h.split()[0] for h in heads] == names
    assert "response_match_score  expected: yes  judge: no  range: 0–1" in lines
    # Descriptions wrap as prose under their metric (at most three lines each), never a word per line.
    blocks: dict[str, int] = {}
    current = ""
    for line in lines[2:]:
        if line.startswith("  "):
            blocks[current] += 1
        else:
            current = line.split()[0]
            blocks[current] = 0
    assert all(1 <= n <= 3 for n in blocks.values()), blocks
    i = lines.index("final_response_avg_score  expected: yes  judge: no  range: 0–1")
    assert lines[i + 1].startswith("  Final response matches the expected one by text/JSON/ROUGE rules")


def test_table_at_wide_terminals_keeps_descriptions_on_one_line() -> None:
    result = CliRunner().invoke(app, ["list-metrics"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    row = next(ln for ln in result.stdout.splitlines() if "tool_trajectory_avg_score" in ln)
    assert "Tool calls match the expected trajectory (1/0 per invocation, mean)." in row


ADK_ADDED = {
    # name: (needs judge, max value; None = unbounded)
    "tool_call_count_v1": (False, None),
    "inference_call_count_v1": (False, None),
    "token_usage_v1": (False, None),
    "invocation_duration_v1": (False, None),
    "multi_turn_task_success_v1": (True, 1.0),
    "multi_turn_trajectory_quality_v1": (True, 1.0),
    "multi_turn_tool_use_quality_v1": (True, 1.0),
    "rubric_based_multi_turn_trajectory_quality_v1": (True, 1.0),
    "per_turn_user_simulator_quality_v1": (True, 1.0),
}


def test_adk_efficiency_and_multi_turn_metrics_are_listed() -> None:
    rows = {r["name"]: r for r in json.loads(CliRunner().invoke(app, ["list-metrics", "--json"]).stdout)}
    assert {name: (rows[name]["needsJudge"], rows[name]["maxValue"]) for name in ADK_ADDED} == ADK_ADDED
    text = CliRunner().invoke(app, ["list-metrics"], env={"COLUMNS": "80"}).stdout
    assert "tool_call_count_v1  expected: no  judge: no  range: ≥ 0" in text
    assert all(name in text for name in ADK_ADDED)
