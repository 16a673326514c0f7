"""``agentgauge plan``: cases and runs needed from a result's variance."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from agentgauge.cli._plan_cmd import plan_rows
from agentgauge.formats import load_result
from agentgauge.stats import cases_for_proportions

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NEW = EXAMPLES / "compare" / "new.evalset_result.json"


def test_plan_rows_use_the_two_proportion_formula_for_one_run() -> None:
    rows = {r["name"]: r for r in plan_rows(load_result(NEW), 0.1, 0.05, 0.8)}
    rate = rows["pass rate (runs)"]
    assert rate["mean"] == 4 / 6 and rate["sdWithinCase"] is None
    assert rate["casesNeeded"] == cases_for_proportions(4 / 6, 4 / 6 + 0.1)
    assert rows["tool_trajectory_avg_score"]["mean"] == 0.75


def test_plan_needs_two_cases(tmp_path: Path) -> None:
    one = load_result(NEW)
    one.eval_case_results = one.eval_case_results[:1]
    (tmp_path / "one.json").write_text(one.model_dump_json())
    done = subprocess.run(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", "plan", str(tmp_path / "one.json")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "at least two cases" in done.stderr


def test_plan_cli_text_json_and_errors() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "from agentgauge.cli import main; main()", "plan", *args],
            capture_output=True,
            text=True,
        )

    text = run(str(NEW), "--delta", "0.1")
    assert text.returncode == 0 and "To detect a change of 0.1" in text.stdout and "pass rate (runs)" in text.stdout
    data = json.loads(run(str(NEW), "--delta", "0.1", "--metric", "pass rate", "--json").stdout)
    assert [e["name"] for e in data["estimates"]] == ["pass rate (runs)"]
    assert run(str(NEW), "--metric", "nope").returncode == 2
    assert run(str(NEW), "--delta", "0").returncode == 2
    assert run("missing.evalset_result.json").returncode == 2
