"""``examples/remote/run.sh``: from the checkout, with the project's virtual environment, it starts the calculator
server, evaluates it over A2A (or AG-UI), stops the server and exits with the eval's exit code."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from _servers import ROOT, require

SCRIPT = ROOT / "examples" / "remote" / "run.sh"


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    require("a2a.server")
    require("ag_ui.core")
    if not (ROOT / ".venv" / "bin" / "python").exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("CI=true but the checkout has no .venv", pytrace=False)
        pytest.skip("the checkout has no .venv (make test creates it)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "VIRTUAL_ENV")}
    return subprocess.run(
        ["bash", str(SCRIPT), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )


@pytest.mark.parametrize("protocol", ["a2a", "agui"])
def test_run_sh_evaluates_the_calculator_over_the_wire(tmp_path: Path, protocol: str) -> None:
    done = _run(tmp_path, protocol)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Cases: 6 passed, 0 failed, 0 error, 0 not evaluated, 6 total" in done.stdout
    assert len(list((tmp_path / ".agentgauge" / "results" / "calculator").glob("*.evalset_result.json"))) == 1


def test_run_sh_exits_with_the_eval_exit_code(tmp_path: Path) -> None:
    done = _run(tmp_path, "--no-such-option")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "No such option: --no-such-option" in done.stderr


def test_docs_show_the_commands_and_output_tested_here() -> None:
    """docs/agents.md documents run.sh with the arguments these tests run and the summary line they check."""
    docs = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    assert "```bash\nbash examples/remote/run.sh\n```" in docs
    assert "```bash\nbash examples/remote/run.sh agui\n```" in docs
    assert "  Cases: 6 passed, 0 failed, 0 error, 0 not evaluated, 6 total\n" in docs
