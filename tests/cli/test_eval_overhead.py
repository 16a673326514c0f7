"""Fixed costs of ``agentgauge eval`` that do not depend on the cases: what a plain run imports, and the garbage
collector's walks over the loaded data at the start of the run and at exit."""

from __future__ import annotations

import gc
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import agentgauge.cli as cli
from agentgauge.cli._eval_progress import run_phase_starts

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
    assert registered == [cli.skip_final_collection]


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


def _summary_lines(output: str) -> list[str]:
    # Everything but what differs between two runs (result ids, durations) and the report line itself.
    return [
        line
        for line in output.splitlines()
        if "(result " not in line
        and not line.startswith(("  Duration:", "Results saved to", "markdown report written"))
    ]


def test_the_summary_is_the_same_whether_or_not_the_case_results_stay_in_memory(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    runner = CliRunner()
    plain = runner.invoke(cli.app, ["eval", str(TRACES), "--output-dir", str(tmp_path / "a")])
    # A report reads every case result: the run keeps them in memory for it.
    kept = runner.invoke(
        cli.app, ["eval", str(TRACES), "--output-dir", str(tmp_path / "b"), "--markdown", str(tmp_path / "r.md")]
    )
    assert plain.exit_code == kept.exit_code == 1, plain.output + kept.output
    assert "Did not pass (2):" in plain.output
    assert _summary_lines(plain.output) == _summary_lines(kept.output)
    [first] = (tmp_path / "a").rglob("*.evalset_result.json")
    [second] = (tmp_path / "b").rglob("*.evalset_result.json")
    strip = ("evalSetResultId", "evalSetResultName", "creationTimestamp", "sessionId", "invocationId", "duration")
    strip += ("startedAt", "finishedAt")  # the run metadata's times

    def comparable(text: str) -> list[str]:
        return [ln for ln in text.splitlines() if not any(f'"{key}"' in ln for key in strip)]

    assert comparable(first.read_text(encoding="utf-8")) == comparable(second.read_text(encoding="utf-8"))


def test_main_builds_only_the_invoked_command_and_keeps_its_usage_and_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli._invoked_app(["eval", "x"]) is not None
    assert cli._invoked_app(["--help"]) is None and cli._invoked_app(["traces", "score"]) is None
    assert cli._invoked_app(["evl"]) is None  # a typo gets the whole application and its suggestion
    enabled = gc.isenabled()
    monkeypatch.setattr(sys, "argv", ["agentgauge", "eval", "--help"])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 0
    usage = " ".join(capsys.readouterr().out.split())
    assert "eval [OPTIONS] [[AGENT] EVAL_SET" in usage, usage
    monkeypatch.setattr(sys, "argv", ["agentgauge", "eval", "no-such-file.evalset.json"])
    with pytest.raises(SystemExit) as stop:
        cli.main()
    assert stop.value.code == 2
    assert "error:" in capsys.readouterr().err
    # eval keeps the collector off until its run starts; main() gives the caller back the state it had.
    assert gc.isenabled() == enabled


def test_ids_paths_and_metric_names_are_printed_as_they_are(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    odd = tmp_path / "out[red]:fire:"
    doc = json.loads(TRACES.read_text(encoding="utf-8"))
    doc["evalSetId"] = "calc[bold]:smile:"
    traces = tmp_path / "odd.evalset.json"
    traces.write_text(json.dumps(doc), encoding="utf-8")
    shutil.copy(TRACES.with_name("calculator_traces.metrics.json"), tmp_path / "calc[bold]:smile:.metrics.json")
    result = CliRunner().invoke(cli.app, ["eval", str(traces), "--output-dir", str(odd)])
    assert result.exit_code == 1, result.output
    flat = " ".join(result.output.split())
    assert "calc[bold]:smile: (" in flat
    assert "out[red]:fire:" in flat and "🔥" not in flat and "😄" not in flat
