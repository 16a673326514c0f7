"""Ctrl-C during ``agentgauge eval``: a real SIGINT stops the run cleanly and saves the finished cases."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

AGENT = """
import asyncio


async def agent(request):
    await asyncio.sleep(0.2)
    return "echo: " + request.user_content.content
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_saves_finished_cases_marked_interrupted(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    cases = [
        {
            "evalId": f"c{i:02d}",
            "conversation": [
                {
                    "userContent": {"role": "user", "content": f"q{i}"},
                    "finalResponse": {"role": "assistant", "content": f"echo: q{i}"},
                }
            ],
        }
        for i in range(60)
    ]
    (tmp_path / "slow.evalset.json").write_text(json.dumps({"evalSetId": "slow", "evalCases": cases}))
    (tmp_path / "slow.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.5}]))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = ["eval", "agent.py", "slow.evalset.json", "--parallelism", "2", "--output-dir", "out"]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", *command],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    # Wait until the run is under way (the result directory's temporary file exists), then press Ctrl-C.
    while not list(tmp_path.glob("out/slow/.*.tmp")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run never started"
        time.sleep(0.05)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in out + err
    (saved_path,) = tmp_path.glob("out/slow/*.evalset_result.json")
    assert f"Interrupted: the cases finished before the stop were saved to out/slow/{saved_path.name}" in out
    saved = json.loads(saved_path.read_text())
    assert saved["interrupted"] is True
    finished = [r["evalId"] for r in saved["evalCaseResults"]]
    assert 0 < len(finished) < 60
    assert all(r["finalEvalStatus"] == "passed" for r in saved["evalCaseResults"])
    assert saved["summary"]["overallStatus"] == "not_evaluated"  # the cases that never ran
    assert not list(tmp_path.glob("out/slow/.*.tmp"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigint_while_loading_ends_without_traceback(tmp_path: Path) -> None:
    # The agent file takes long to import: Ctrl-C arrives before any case runs.
    (tmp_path / "agent.py").write_text(
        "import time\n\nopen('importing', 'w').close()\ntime.sleep(30)\n\n\ndef agent(request):\n    return 'x'\n"
    )
    case = {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "finalResponse": {"content": "x"}}]}
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [case]}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", "agent.py", "s.evalset.json",
         "--output-dir", "out"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (tmp_path / "importing").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the agent was never imported"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "Interrupted." in err and "Traceback" not in out + err
    assert not (tmp_path / "out").exists()
