"""``eval --label`` and the run metadata on the command line: ``show`` prints it, ``results --label`` filters the
store, ``compare label:KEY=VALUE`` picks runs by label (result files and the store)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.formats import load_result

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
AGENT = str(EXAMPLES / "calculator" / "agent.py")
EVALSET = str(EXAMPLES / "calculator" / "calculator.evalset.json")
FAST = ["--bootstrap-resamples", "0"]


def _eval(*args: str) -> str:
    ran = CliRunner().invoke(app, ["eval", AGENT, EVALSET, *FAST, *args])
    assert ran.exit_code == 0, ran.output
    saved = re.search(r"(calculator_calculator_[0-9a-f-]+)", ran.output)
    assert saved is not None, ran.output
    return saved.group(1)


def test_a_bad_label_exits_2_naming_it(tmp_path: Path) -> None:
    ran = CliRunner().invoke(app, ["eval", AGENT, EVALSET, "--label", "env=prod", "--label", "team", "--output-dir",
                                   str(tmp_path)])  # fmt: skip
    assert ran.exit_code == 2
    assert ran.output == "error: --label: label 'team' is not KEY=VALUE\n"
    assert not tmp_path.joinpath("calculator").exists()  # nothing ran


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_show_prints_labels_and_git_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q", "-b", "main"], check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "one"], check=True
    )
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    result_id = _eval("--label", "env=prod", "--label", "team=core")
    (path,) = Path(".agentgauge/results/calculator").glob(f"{result_id}*")
    metadata = load_result(path).run_metadata
    assert metadata is not None and metadata.git_commit == commit and metadata.git_dirty is False
    shown = CliRunner().invoke(app, ["show", str(path), *FAST])
    lines = shown.output.splitlines()
    start = lines.index("Run metadata:")
    assert lines[start + 1 : start + 4] == [
        "  labels      env=prod, team=core",
        f"  git         {commit[:12]} on main (clean)",
        f"  agent       {AGENT} (source {metadata.agent_source_hash[:12]})",  # type: ignore[index]
    ]
    assert lines[start + 4] == "  agentgauge  0.1.0" and lines[start + 5].startswith("  started     ")


def test_compare_picks_result_files_by_label(tmp_path: Path) -> None:
    out = ["--output-dir", str(tmp_path)]
    prod = _eval("--label", "env=prod", *out)
    staging = _eval("--label", "env=staging", "--label", "team=core", *out)
    ran = CliRunner().invoke(app, ["compare", "label:env=prod", "label:env=staging,team=core", *out, *FAST, "--json"])
    assert ran.exit_code == 0, ran.output
    doc = json.loads(ran.stdout)
    assert (doc["base"]["evalSetResultId"], doc["new"]["evalSetResultId"]) == (prod, staging)
    assert doc["base"]["source"].endswith(f"{prod}.evalset_result.json")
    missing = CliRunner().invoke(app, ["compare", "label:env=prod", "label:env=dev", *out])
    assert missing.exit_code == 2
    message = f"error: label:env=dev: no result of eval set 'calculator' with these labels under {tmp_path}"
    assert message in missing.output
    bad = CliRunner().invoke(app, ["compare", "label:env", "label:env=dev", *out])
    assert bad.exit_code == 2 and "error: 'label:env': label 'env' is not KEY=VALUE" in bad.output


def test_results_filter_and_compare_in_the_store(tmp_path: Path) -> None:
    store = ["--store", f"sqlite:///{tmp_path / 'r.db'}"]
    prod = _eval("--label", "env=prod", *store)
    staging = _eval("--label", "env=staging", "--label", "team=core", *store)
    listed = CliRunner().invoke(app, ["results", *store, "--label", "team=core"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert len(lines) == 2 and "env=staging,team=core" in lines[1] and lines[1].endswith(staging)
    rows = json.loads(CliRunner().invoke(app, ["results", *store, "--json"]).stdout)
    assert [(r["evalSetResultId"], r["labels"]) for r in rows] == [
        (staging, {"env": "staging", "team": "core"}),
        (prod, {"env": "prod"}),
    ]
    both = CliRunner().invoke(app, ["results", *store, "--label", "env=prod", "--label", "team=core"])
    assert both.output == "no results stored with env=prod, team=core\n"
    bad = CliRunner().invoke(app, ["results", *store, "--label", "a b=c"])
    assert bad.exit_code == 2 and bad.output.startswith("error: --label: label 'a b=c': label key 'a b' is not valid")
    ran = CliRunner().invoke(app, ["compare", "label:env=prod", "label:team=core", *store, *FAST, "--json"])
    assert ran.exit_code == 0, ran.output
    doc = json.loads(ran.stdout)
    assert (doc["base"]["source"], doc["new"]["source"]) == (prod, staging)
