"""``eval`` keeps its outputs where they belong whatever the agent does: prints, ``os.chdir``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentgauge.cli._stdout import stdout_reserved


def write_project(tmp_path: Path, agent_source: str) -> tuple[Path, Path]:
    """An agent file and a two-case eval set answered by ``ok``, with an exact-match metric."""
    agent = tmp_path / "agent.py"
    agent.write_text("import sys\n" + textwrap.dedent(agent_source))
    cases = [
        {
            "evalId": eval_id,
            "conversation": [
                {
                    "userContent": {"role": "user", "content": "hi"},
                    "finalResponse": {"role": "assistant", "content": "ok"},
                }
            ],
        }
        for eval_id in ("bad", "good")
    ]
    eval_set = tmp_path / "faults.evalset.json"
    eval_set.write_text(json.dumps({"evalSetId": "faults", "evalCases": cases}))
    (tmp_path / "faults.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 1}]))
    return agent, eval_set


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``agentgauge ARGS`` in a fresh interpreter."""
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=cwd)


PRINTING_AGENT = """
import os, subprocess
print("printed at import")

def agent(request):
    print("printed by print()")
    os.write(1, b"written to fd 1\\n")
    subprocess.run([sys.executable, "-c", "print('printed by a subprocess')"], check=True)
    return "ok"
"""


def test_json_stdout_carries_only_the_document_and_agent_prints_reach_stderr(tmp_path: Path) -> None:
    agent, eval_set = write_project(tmp_path, PRINTING_AGENT)
    done = run_cli("eval", agent, eval_set, "--output-dir", tmp_path / "out", "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert {c["evalId"] for c in document["evalCaseResults"]} == {"bad", "good"}
    for text in ("printed at import", "printed by print()", "written to fd 1", "printed by a subprocess"):
        assert text in done.stderr
        assert text not in done.stdout


def test_without_json_agent_prints_stay_on_stdout(tmp_path: Path) -> None:
    agent, eval_set = write_project(tmp_path, PRINTING_AGENT)
    done = run_cli("eval", agent, eval_set, "--output-dir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "printed by print()" in done.stdout
    assert "written to fd 1" in done.stdout


def test_stdout_reserved_routes_both_levels_and_restores(capfd: pytest.CaptureFixture[str]) -> None:
    before = sys.stdout
    with stdout_reserved() as out:
        print("python level")
        os.write(1, b"fd level\n")
        out.write("the document\n")
    assert sys.stdout is before
    print("after")
    captured = capfd.readouterr()
    assert captured.out == "the document\nafter\n"
    assert "python level" in captured.err
    assert "fd level" in captured.err


def test_agent_changing_directory_does_not_move_results_or_reports(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    agent, eval_set = write_project(
        tmp_path,
        f"""
        import os
        def agent(request):
            os.chdir({str(elsewhere)!r})
            return "ok"
        """,
    )
    done = run_cli(
        "eval",
        agent,
        eval_set,
        "--output-dir",
        "out",
        "--junit",
        "report.xml",
        "--html",
        "report.html",
        "--markdown",
        "report.md",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "out").rglob("*.evalset_result.json"))) == 1
    for name in ("report.xml", "report.html", "report.md"):
        assert (tmp_path / name).is_file()
    assert list(elsewhere.iterdir()) == []
