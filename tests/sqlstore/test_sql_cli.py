"""``--store`` on ``agentgauge eval`` and ``agentgauge show``; start-up without SQLAlchemy; URLs never leak."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import parse_result
from agentgauge.sqlstore import SCHEMA_VERSION, normalize_url, redact_url, resolve_store_url

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENT = str(EXAMPLES / "calculator" / "agent.py")
EVALSET = str(EXAMPLES / "calculator" / "calculator.evalset.json")
TRACES = str(EXAMPLES / "trace_mode" / "calculator_traces.evalset.json")


def _saved_id(output: str) -> str:
    found = re.search(r"Results saved to store \S+ as (\S+)", output)
    assert found, output
    return found.group(1)


def test_eval_saves_to_the_store_and_show_reads_it_back(store_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    ran = runner.invoke(app, ["eval", AGENT, EVALSET, "--store", store_url, "--output-dir", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    result_id = _saved_id(ran.output)
    assert not (tmp_path / "out" / "calculator").exists()  # nothing written as a file
    shown = runner.invoke(app, ["show", result_id, "--store", store_url, "--json"])
    assert shown.exit_code == 0, shown.output
    doc = json.loads(shown.stdout)
    assert doc["evalSetResultId"] == result_id
    assert len(doc["evalCaseResults"]) == 6
    # The terminal summary of show is that of the run.
    table = [line for line in ran.output.splitlines() if "_avg_score" in line]
    assert table and all(line in shown.output for line in table)


def test_env_names_the_store_and_a_failing_run_exits_1(sqlite_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_STORE", sqlite_url)
    runner = CliRunner()
    ran = runner.invoke(app, ["eval", TRACES])
    assert ran.exit_code == 1, ran.output  # two recorded regressions
    result_id = _saved_id(ran.output)
    shown = runner.invoke(app, ["show", result_id])
    assert shown.exit_code == 1
    assert result_id in shown.output


def test_show_unknown_id_and_existing_files(sqlite_url: str) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["show", "nope", "--store", sqlite_url])
    assert missing.exit_code == 2
    assert missing.output.strip() == f"error: eval set result 'nope' not found in store {sqlite_url}"
    # A file argument stays a file even when a store is given.
    result_file = (
        EXAMPLES / "math_basic" / "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"
    )
    shown = runner.invoke(app, ["show", str(result_file), "--store", sqlite_url, "--json"])
    assert shown.exit_code == 0
    assert parse_result(shown.stdout) == parse_result(result_file.read_bytes())


def test_a_store_of_a_newer_schema_stops_eval_before_it_runs(sqlite_url: str) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["eval", TRACES, "--store", sqlite_url]).exit_code == 1
    engine = sa.create_engine(sqlite_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = 99"))
        before = conn.execute(sa.text("SELECT count(*) FROM evaluation_eval_set_results")).scalar_one()
    ran = runner.invoke(app, ["eval", TRACES, "--store", sqlite_url])
    assert ran.exit_code == 2
    assert ran.output.strip() == (
        f"error: store {sqlite_url}: schema version 99 is newer than the version {SCHEMA_VERSION} this agentgauge "
        "supports; upgrade agentgauge to use this store (nothing was changed)"
    )
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM evaluation_eval_set_results")).scalar_one() == before
    engine.dispose()


def test_password_never_shown() -> None:
    url = "postgresql://alice:s3cret-pass-77@127.0.0.1:1/evals"
    ran = CliRunner().invoke(app, ["eval", TRACES, "--store", url])
    assert ran.exit_code == 2
    assert "s3cret-pass-77" not in ran.output
    assert ran.output.startswith("error: store postgresql+psycopg://alice:***@127.0.0.1:1/evals: connection failed")


def test_url_resolution_and_masking(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert redact_url("postgresql+psycopg://u:p@h/db") == "postgresql+psycopg://u:***@h/db"
    assert redact_url("postgresql+psycopg://h/db?password=p&sslmode=require") == (
        "postgresql+psycopg://h/db?password=***&sslmode=require"
    )
    assert redact_url("sqlite:///x.db") == "sqlite:///x.db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    monkeypatch.chdir(tmp_path)
    assert normalize_url("r.db") == f"sqlite:///{tmp_path / 'r.db'}"
    monkeypatch.delenv("AGENTGAUGE_STORE", raising=False)
    assert resolve_store_url(None) is None
    monkeypatch.setenv("AGENTGAUGE_STORE", "sqlite:///env.db")
    assert resolve_store_url(None) == "sqlite:///env.db"
    assert resolve_store_url("sqlite:///opt.db") == "sqlite:///opt.db"


def test_password_is_registered_for_masking() -> None:
    from agentgauge._util.redact import redact

    normalize_url("postgresql://bob:another-long-secret@h/db")
    assert redact("leaked another-long-secret here") == "leaked *** here"


_PROBE = """
import sys
from agentgauge.cli import main
sys.argv = ["agentgauge", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("SQLALCHEMY_LOADED=" + str(any(m == "sqlalchemy" or m.startswith("sqlalchemy.") for m in sys.modules)),
      file=sys.stderr)
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["eval", "--help"], ["show", "--help"], ["eval", TRACES, "--output-dir", "{tmp}"]]
)
def test_no_store_no_sqlalchemy_import(args: list[str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AGENTGAUGE_STORE"}
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path
    )
    assert "SQLALCHEMY_LOADED=False" in proc.stderr, proc.stderr[-2000:]


def test_results_lists_newest_first(store_url: str) -> None:
    runner = CliRunner()
    first = _saved_id(runner.invoke(app, ["eval", TRACES, "--store", store_url]).output)
    second = _saved_id(runner.invoke(app, ["eval", AGENT, EVALSET, "--store", store_url]).output)
    listed = runner.invoke(app, ["results", "--store", store_url, "--json"])
    assert listed.exit_code == 0, listed.output
    rows = json.loads(listed.stdout)
    assert [(r["evalSetResultId"], r["status"]) for r in rows] == [(second, "completed"), (first, "completed")]
    first_cases = parse_result(runner.invoke(app, ["show", first, "--store", store_url, "--json"]).stdout)
    assert [r["numCases"] for r in rows] == [6, len(first_cases.eval_case_results)]  # case runs
    counts = first_cases.summary.case_status_counts if first_cases.summary is not None else None
    assert counts is not None  # the cases by status, read from the stored summary
    fields = ("passed", "failed", "error", "not_evaluated")
    assert rows[1]["caseStatusCounts"] == {name: getattr(counts, name) for name in fields}
    assert rows[0]["caseStatusCounts"] == {"passed": 6, "failed": 0, "error": 0, "not_evaluated": 0}
    table = runner.invoke(app, ["results", "--store", store_url, "--eval-set", "calculator"]).output.splitlines()
    header = ["Created", "(UTC)", "App", "Eval", "set", "Status", "Cases", "Case", "runs", "Labels", "Result", "id"]
    assert table[0].split() == header
    assert len(table) == 2 and table[1].endswith(second) and " 6/6 passed " in table[1]
    assert runner.invoke(app, ["results", "--store", store_url, "--app-name", "none"]).output == "no results stored\n"
    missing = runner.invoke(app, ["results"], env={"AGENTGAUGE_STORE": ""})
    assert missing.exit_code == 2
    assert missing.output == "error: no store given: use --store URL or set AGENTGAUGE_STORE\n"


def test_scored_traces_go_to_the_store(sqlite_url: str, tmp_path: Path) -> None:
    traces, eval_set = EXAMPLES / "traces", EXAMPLES / "traces" / "weather.evalset.json"
    runner = CliRunner()
    ran = runner.invoke(
        app, ["eval", "--traces", str(traces), "--eval-set", str(eval_set), "--store", sqlite_url, "--output-dir",
              str(tmp_path / "out")],
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    result_id = _saved_id(ran.output)
    assert runner.invoke(app, ["show", result_id, "--store", sqlite_url]).exit_code == 0
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.evalset_result.json"))
