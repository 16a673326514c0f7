"""Fixed costs of ``agentgauge eval`` that do not depend on the cases: what a plain run imports, and the garbage
collector's walks over the loaded data at the start of the run and at exit."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import agentgauge.cli as cli
from agentgauge.cli._eval_run import run_phase_starts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TRACES = EXAMPLES / "trace_mode" / "calculator_traces.evalset.json"

_PROBE = """
import sys
from agentgauge.cli import main
sys.argv = ["agentgauge", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print("LOADED=" + ",".join(sorted(m for m in sys.modules if m.startswith(("agentgauge.simulation", "tomllib")))),
      file=sys.stderr)
"""


def _loaded(args: list[str], cwd: Path) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k != "AGENTGAUGE_STORE"}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )
    line = next(ln for ln in done.stderr.splitlines() if ln.startswith("LOADED="))
    return {m for m in line.removeprefix("LOADED=").split(",") if m}


def test_plain_eval_does_not_import_user_simulation(tmp_path: Path) -> None:
    loaded = _loaded(["eval", str(TRACES), "--output-dir", str(tmp_path / "out")], tmp_path)
    assert not {m for m in loaded if m.startswith("agentgauge.simulation")}, loaded


def test_run_start_moves_start_up_objects_out_of_the_collectors_way() -> None:
    enabled = gc.isenabled()
    gc.disable()
    gc.unfreeze()
    try:
        run_phase_starts()
        assert gc.isenabled()
        # Everything allocated so far is frozen: the first collection of the run does not walk it.
        assert gc.get_freeze_count() > 0
        assert gc.get_count()[0] < 50
    finally:
        gc.unfreeze()
        if not enabled:
            gc.disable()


def test_main_skips_the_final_collection_once(monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[Callable[[], None]] = []
    monkeypatch.setattr(cli.atexit, "register", registered.append)
    monkeypatch.setattr(cli, "_final_collection_skipped", False)
    monkeypatch.setattr(sys, "argv", ["agentgauge", "--help"])
    for _ in range(2):
        with pytest.raises(SystemExit) as stop:
            cli.main()
        assert stop.value.code == 0
    assert registered == [gc.freeze]


def test_eval_with_frozen_exit_still_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "eval", str(TRACES), "--output-dir", str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    results = list(out.rglob("*.evalset_result.json"))
    assert len(results) == 1
    assert not list(out.rglob("*.progress.jsonl"))
    assert results[0].read_text(encoding="utf-8").endswith("}\n")
