"""An agent that closes ``sys.stdout`` or ``sys.stderr`` cannot take the command's output with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"

CASE = {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "finalResponse": {"content": "echo: q"}}]}


def _eval(folder: Path, stream: str, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "agent.py").write_text(
        "import sys\n\n\n"
        "def agent(request):\n"
        f"    print('before', file=sys.{stream})\n"
        f"    sys.{stream}.close()\n"
        "    return 'echo: ' + request.user_content.content\n"
    )
    (folder / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [CASE]}))
    (folder / "s.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.5}]))
    return subprocess.run(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", "agent.py", "s.evalset.json",
         "--output-dir", "out", *options],
        cwd=folder, env={**os.environ, "PYTHONPATH": str(SRC), "NO_COLOR": "1"},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_json_is_written_whole_when_the_agent_closes_a_standard_stream(tmp_path: Path, stream: str) -> None:
    done = _eval(tmp_path, stream, "--json")
    assert done.returncode == 0, done.stderr
    assert "lost sys.stderr" not in done.stderr and "Traceback" not in done.stderr
    document = json.loads(done.stdout)
    assert document["evalSetId"] == "s"
    assert [case["finalEvalStatus"] for case in document["evalCaseResults"]] == ["passed"]
    assert "before" in done.stderr  # the agent's own print went to stderr, as every print does with --json
    assert "Cases: 1 passed" in done.stderr  # the summary too


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_summary_is_printed_when_the_agent_closes_a_standard_stream(tmp_path: Path, stream: str) -> None:
    done = _eval(tmp_path, stream)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "Cases: 1 passed" in done.stdout
    assert "Results saved to out/s/" in done.stdout
