"""The repository sweep: files found in a git repository are validated, scored, and recorded scores compared."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MATH = ROOT / "examples" / "math_basic"
RESULT = "math-eval-app_math-basic_538cdf6e-925d-41cf-943b-2849982b195e.evalset_result.json"


def _repo(tmp_path: Path, *, tamper: bool = False) -> Path:
    work = tmp_path / "work"
    data, output = work / "ex" / "data" / "math-eval-app", work / "ex" / "output" / "math-eval-app"
    data.mkdir(parents=True)
    output.mkdir(parents=True)
    shutil.copy(MATH / "math-basic.evalset.json", data)
    shutil.copy(MATH / "math-basic.metrics.json", data)
    result = json.loads((MATH / RESULT).read_text())
    if tamper:  # a recorded score the metric cannot give: the sweep must report it
        result["evalCaseResults"][0]["overallEvalMetricResults"][0]["score"] = 0.25
    (output / RESULT).write_text(json.dumps(result))
    (work / "notes.json").write_text("{}")  # not an eval file: not picked up
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "data"]):
        subprocess.run(["git", "-C", str(work), *args], check=True, env=env)
    return work / ".git"


def _sweep(tmp_path: Path, git_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "sweep_seed_files.py"),
            "--out",
            str(tmp_path / "o"),
            f"r={git_dir}",
        ],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_sweep_validates_scores_and_compares_recorded_scores(tmp_path: Path) -> None:
    proc = _sweep(tmp_path, _repo(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| r |")]
    assert len(rows) == 4, proc.stdout
    assert (
        "| ex/data/math-eval-app/math-basic.evalset.json | eval set | ok | all passed (math-basic.metrics.json"
        in rows[0]
    )
    assert "| metrics | ok | - |" in rows[1]
    assert f"| ex/output/math-eval-app/{RESULT} | result | ok | 1 case scores equal (1 metrics) |" in rows[2]
    assert rows[3] == "| r | 3 | 3 | 2 | 0 | 0 |"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_sweep_reports_a_recorded_score_it_does_not_reproduce(tmp_path: Path) -> None:
    proc = _sweep(tmp_path, _repo(tmp_path, tamper=True))
    assert proc.returncode == 1
    assert "SCORES DIFFER: " in proc.stdout and "!= 0.25" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "| r | 3 | 3 | 2 | 0 | 1 |"
