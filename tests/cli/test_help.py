"""``--help`` at 80 columns: nothing clipped, options grouped in the same panels by every command."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from agentgauge.cli._help import PANELS, panel_of

COMMANDS = [
    ["eval"], ["serve"], ["generate"], ["show"], ["compare"], ["results"], ["validate"], ["convert"], ["plan"],
    ["calibrate"], ["list-metrics"], ["traces", "export"], ["traces", "doctor"], ["traces", "to-evalset"],
    ["replay-set"], ["diff"], ["triage"], [],
]  # fmt: skip


def _help(args: list[str], columns: int = 80) -> str:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    done = subprocess.run(
        [sys.executable, "-c", "from agentgauge.cli import main; main()", *args, "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "agentgauge")
def test_help_fits_80_columns_without_clipping(args: list[str]) -> None:
    text = _help(args)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text  # typer clips option names it cannot fit ("--config,--metrics,--con…")


def test_eval_groups_its_options_in_the_panels_in_order() -> None:
    text = _help(["eval"])
    titles = re.findall(r"╭─ (\w+) ─", text)
    assert titles == ["Arguments", "Options", *PANELS]
    options = text[text.index("╭─ Options") : text.index("╭─ Input")]
    assert re.findall(r"--[\w-]+", options) == ["--help"]  # every other option is in a named panel
    for name, panel in [("--judge-model", "Judges"), ("--num-runs", "Execution"), ("--junit", "Output")]:
        section = text[text.index(f"╭─ {panel}") :]
        assert name in section[: section.index("╰")], (name, panel)
    assert "--config, --metrics," in text  # aliases wrap between names instead of being clipped


def test_every_option_of_every_command_has_a_panel() -> None:
    from typer.main import get_command

    from agentgauge.cli import app

    missing: list[str] = []

    def walk(command: object, path: str) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")
        for param in getattr(command, "params", []):
            if param.opts[0].startswith("--") and param.opts[0] != "--help" and panel_of(param) is None:
                missing.append(f"{path.strip()}: {param.opts[0]}")

    walk(get_command(app), "")
    assert missing == []
