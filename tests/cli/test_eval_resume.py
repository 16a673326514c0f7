"""``agentgauge eval --resume``: a run killed with SIGKILL (or stopped with Ctrl-C) is continued into one result equal
to an uninterrupted run's, calling the agent only for the case runs that were lost."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentgauge.run._resume import read_progress

AGENT = """
import time
from pathlib import Path


def agent(request):
    with open(Path(__file__).with_name("calls.txt"), "a") as calls:
        calls.write(request.user_content.content + "\\n")
    time.sleep(0.15)
    text = request.user_content.content
    return "echo: " + text if not text.endswith("7") else "something else"
"""

VOLATILE = {"sessionId", "invocationId", "creationTimestamp", "evalSetResultId", "evalSetResultName"}
VOLATILE |= {"startedAt", "finishedAt"}  # the run metadata's times


def _setup(tmp_path: Path, cases: int = 24) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    doc = {
        "evalSetId": "slow",
        "evalCases": [
            {
                "evalId": f"c{i:02d}",
                "conversation": [
                    {
                        "userContent": {"role": "user", "content": f"q{i}"},
                        "finalResponse": {"role": "assistant", "content": f"echo: q{i}"},
                    }
                ],
            }
            for i in range(cases)
        ],
    }
    (tmp_path / "slow.evalset.json").write_text(json.dumps(doc))
    (tmp_path / "slow.metrics.json").write_text(json.dumps([{"metricName": "response_match_score", "threshold": 0.5}]))


def _command(*args: str) -> list[str]:
    return [sys.executable, "-c", "from agentgauge.cli import main; main()", "eval", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_command(*args), cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120)


def _normalised(value: Any) -> Any:
    """A result without what legitimately differs between two runs: ids, session ids, timestamps, durations."""
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if k not in VOLATILE and "duration" not in k.lower()}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    return value


def _wait_for_lines(log_glob: str, tmp_path: Path, proc: subprocess.Popen[str], lines: int) -> Path:
    deadline = time.monotonic() + 60
    while True:
        found = list(tmp_path.glob(log_glob))
        if found and found[0].read_bytes().count(b"\n") >= lines:
            return found[0]
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the run made no progress"
        time.sleep(0.02)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    _setup(tmp_path)
    args = ["agent.py", "slow.evalset.json", "--parallelism", "3", "--num-runs", "2"]
    reference = _run(tmp_path, *args, "--output-dir", "ref")
    assert reference.returncode == 1, reference.stderr  # c07 fails on purpose in both runs
    (tmp_path / "calls.txt").unlink()

    proc = subprocess.Popen(
        _command(*args, "--output-dir", "out"),
        cwd=tmp_path,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    log = _wait_for_lines("out/slow/*.progress.jsonl", tmp_path, proc, 1 + 10)  # header + 10 case runs
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not list(tmp_path.glob("out/slow/*.evalset_result.json"))  # the run never finished
    header, kept = read_progress(log)  # the partial file is readable
    assert header["evalSetId"] == "slow" and header["numRuns"] == 2
    assert 10 <= len(kept) < 48
    assert len({(r.eval_id, r.run_id) for r in kept}) == len(kept)
    calls_before = (tmp_path / "calls.txt").read_text().splitlines()

    result_id = log.name.removesuffix(".progress.jsonl")
    resumed = _run(tmp_path, *args, "--output-dir", "out", "--resume", result_id)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert f"Resuming {result_id}: {len(kept)} case run(s) already scored are kept" in resumed.stdout
    assert "Traceback" not in resumed.stdout + resumed.stderr
    # Only the case runs that were not scored ran again (those in flight at the kill included).
    calls_after = (tmp_path / "calls.txt").read_text().splitlines()[len(calls_before) :]
    assert len(calls_after) == 48 - len(kept)
    (saved,) = tmp_path.glob("out/slow/*.evalset_result.json")
    assert saved.name == f"{result_id}.evalset_result.json"
    assert sorted(p.name for p in (tmp_path / "out" / "slow").iterdir()) == [saved.name]  # no log, no temp file
    (ref_file,) = tmp_path.glob("ref/slow/*.evalset_result.json")
    got, want = json.loads(saved.read_text()), json.loads(ref_file.read_text())
    assert got["evalSetResultId"] == result_id and "interrupted" not in got
    assert _normalised(got) == _normalised(want)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_then_resume_by_file(tmp_path: Path) -> None:
    _setup(tmp_path, cases=16)
    args = ["agent.py", "slow.evalset.json", "--parallelism", "2", "--output-dir", "out"]
    proc = subprocess.Popen(
        _command(*args), cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    _wait_for_lines("out/slow/*.progress.jsonl", tmp_path, proc, 1 + 3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    (saved,) = tmp_path.glob("out/slow/*.evalset_result.json")
    assert not list(tmp_path.glob("out/slow/*.progress.jsonl"))  # the interrupted result holds everything
    first = json.loads(saved.read_text())
    assert first["interrupted"] is True
    calls_before = len((tmp_path / "calls.txt").read_text().splitlines())
    resumed = _run(tmp_path, *args, "--resume", str(saved.relative_to(tmp_path)))
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    final = json.loads(saved.read_text())
    assert "interrupted" not in final and final["evalSetResultId"] == first["evalSetResultId"]
    assert [r["evalId"] for r in final["evalCaseResults"]] == [f"c{i:02d}" for i in range(16)]
    # The resumed run asked the agent only for the cases the interrupted result lacks.
    calls = len((tmp_path / "calls.txt").read_text().splitlines()) - calls_before
    assert calls == 16 - len(first["evalCaseResults"])
    # Resuming a complete run is refused.
    again = _run(tmp_path, *args, "--resume", str(saved.relative_to(tmp_path)))
    assert again.returncode == 2 and "complete (not interrupted): nothing to resume" in again.stderr


def test_resume_an_unfinished_run_of_a_sql_store(tmp_path: Path) -> None:
    pytest.importorskip("sqlalchemy")
    from agentgauge.formats import load_result
    from agentgauge.sqlstore import open_store

    _setup(tmp_path, cases=8)
    args = ["agent.py", "slow.evalset.json", "--parallelism", "2", "--num-runs", "2"]
    reference = _run(tmp_path, *args, "--output-dir", "ref")
    assert reference.returncode == 1, reference.stderr
    (ref_file,) = tmp_path.glob("ref/slow/*.evalset_result.json")
    finished = load_result(ref_file).eval_case_results[:5]
    # A run killed after five case runs: the store holds them, committed one by one, and no summary.
    url = f"sqlite:///{tmp_path / 'results.db'}"
    writer = open_store(url).results().open_writer("slow", "slow", "slow_slow_killed")
    for case in finished:
        writer.add(case)
    (tmp_path / "calls.txt").unlink()

    resumed = _run(tmp_path, *args, "--store", url, "--resume", "slow_slow_killed")
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    assert "Resuming slow_slow_killed: 5 case run(s) already scored are kept" in resumed.stdout
    assert len((tmp_path / "calls.txt").read_text().splitlines()) == 16 - 5
    show = [sys.executable, "-c", "from agentgauge.cli import main; main()", "show", "slow_slow_killed", "--json"]
    shown = subprocess.run(
        [*show, "--store", url], cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=120
    )
    got = json.loads(shown.stdout)
    got["summary"].pop("statistics", None)  # show --json adds the intervals; the saved file has none
    want = json.loads(ref_file.read_text())
    assert "interrupted" not in got
    assert _normalised(got["evalCaseResults"]) == _normalised(want["evalCaseResults"])
    assert _normalised(got["summary"]) == _normalised(want["summary"])
    again = _run(tmp_path, *args, "--store", url, "--resume", "slow_slow_killed")
    assert again.returncode == 2 and "nothing to resume" in again.stderr
