"""``agentgauge compare --store``: results read back from SQLite and PostgreSQL by id, mixed with files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result
from agentgauge.sqlstore import open_store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "compare"
BASE_FILE = EXAMPLES / "base.evalset_result.json"
NEW_FILE = EXAMPLES / "new.evalset_result.json"


def _store_both(url: str) -> tuple[str, str]:
    """Save the example pair in the store (the new one under another id) and return the two ids."""
    results = open_store(url).results()
    base, new = load_result(BASE_FILE), load_result(NEW_FILE)
    new.eval_set_result_id = "calculator_calculator_broken"
    results.save("calculator", base)
    results.save("calculator", new)
    results.store.dispose()
    return base.eval_set_result_id, new.eval_set_result_id


def test_compare_two_stored_results(store_url: str) -> None:
    base_id, new_id = _store_both(store_url)
    ran = CliRunner().invoke(app, ["compare", base_id, new_id, "--store", store_url, "--json"])
    assert ran.exit_code == 1, ran.output
    doc = json.loads(ran.stdout)
    assert (doc["base"]["source"], doc["new"]["source"]) == (base_id, new_id)
    broken = [c["evalId"] for c in doc["cases"] if c["change"] == "broken"]
    assert broken == ["calc_natural_multiply", "calc_multi_turn"]
    # The same comparison as of the two files.
    from_files = CliRunner().invoke(app, ["compare", str(BASE_FILE), str(NEW_FILE), "--json"])
    assert json.loads(from_files.stdout)["cases"] == doc["cases"]
    assert "REGRESSED: 2 broken, 4 still passing" in ran.stderr


def test_store_from_the_environment_and_mixed_with_a_file(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    base_id, _ = _store_both(sqlite_url)
    monkeypatch.setenv("AGENTGAUGE_STORE", sqlite_url)
    # BASE from the store by id, NEW a file: swapped, the pair is a fix.
    ran = CliRunner().invoke(app, ["compare", base_id, str(BASE_FILE), "--app-name", "calculator"])
    assert ran.exit_code == 0, ran.output
    assert "no regression: 6 still passing" in ran.output
    assert f"Base: {base_id} (6/6 cases passed)" in ran.output


def test_unknown_id_in_the_store_exits_2(sqlite_url: str) -> None:
    base_id, _ = _store_both(sqlite_url)
    ran = CliRunner().invoke(app, ["compare", base_id, "nope", "--store", sqlite_url])
    assert ran.exit_code == 2
    assert ran.output.strip() == f"error: eval set result 'nope' not found in store {sqlite_url}"
    other = CliRunner().invoke(app, ["compare", base_id, "nope", "--store", sqlite_url, "--app-name", "other"])
    assert other.output.strip() == f"error: eval set result {base_id!r} of app 'other' not found in store {sqlite_url}"


def test_eval_baseline_is_a_stored_result(store_url: str, tmp_path: Path) -> None:
    agents = EXAMPLES.parent
    evalset = str(agents / "calculator" / "calculator.evalset.json")
    runner = CliRunner()
    first = runner.invoke(app, ["eval", str(agents / "calculator" / "agent.py"), evalset, "--store", store_url])
    assert first.exit_code == 0, first.output
    found = re.search(r"Results saved to store \S+ as (\S+)", first.output)
    assert found, first.output
    args = ["eval", str(EXAMPLES / "broken_agent.py"), evalset, "--store", store_url, "--baseline", found.group(1)]
    ran = runner.invoke(app, [*args, "--fail-on-regression", "--output-dir", str(tmp_path / "out")])
    assert ran.exit_code == 1, ran.output
    assert f"Compared with {found.group(1)}: 0 fixed, 2 broken" in ran.output
    assert "  broken: calc_natural_multiply: " in ran.output
