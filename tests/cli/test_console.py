"""The consoles of ``agentgauge eval``: rich is imported only when something is printed, and without a terminal
nothing is printed before the first agent call (the run's header comes once the agents are at work)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agentgauge.cli._console import deferred_console, progress_bar_console

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
_OVERRIDES = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


@pytest.fixture(autouse=True)
def _no_terminal_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Outputs here are not terminals; an override in the caller's environment (rich's) must not say otherwise."""
    for name in _OVERRIDES:
        monkeypatch.delenv(name, raising=False)


def test_a_deferred_console_behaves_as_the_console_it_stands_for(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    console = deferred_console(soft_wrap=False, emoji=False)
    console.print("plain :fire: [b]x[/b]", markup=False)
    assert out.getvalue() == "plain :fire: [b]x[/b]\n"
    assert console.is_terminal is False


@pytest.mark.parametrize(
    ("env", "bar"),
    [({}, False), ({"FORCE_COLOR": "1"}, True), ({"TTY_COMPATIBLE": "1"}, True), ({"TTY_COMPATIBLE": "0"}, False)],
)
def test_the_progress_bar_shows_where_rich_sees_a_terminal(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], bar: bool
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a TTY
    console = progress_bar_console()
    assert (console is not None) is bar
    if console is not None:
        assert console.is_terminal


_PROBING_AGENT = """
import sys

from agentgauge.agents import AgentOutput
from agentgauge.model import Message

seen = []


async def agent(request):
    if not seen:
        seen.append(1)
        with open({probe!r}, "w", encoding="utf-8") as out:
            out.write(str("rich.console" in sys.modules))
    return AgentOutput(final_response=Message(role="assistant", content="ok"))
"""


@pytest.mark.parametrize("json_out", [False, True])
def test_without_a_terminal_the_header_waits_for_the_agents(tmp_path: Path, json_out: bool) -> None:
    probe = tmp_path / "probe.txt"
    agent = tmp_path / "agent.py"
    agent.write_text(_PROBING_AGENT.format(probe=str(probe)), encoding="utf-8")
    evalset = EXAMPLES / "calculator" / "calculator.evalset.json"
    entry = "import sys\nfrom agentgauge.cli import main\nsys.argv = ['agentgauge', *sys.argv[1:]]\nmain()\n"
    command = [sys.executable, "-c", entry, "eval", str(agent), str(evalset), "--output-dir", str(tmp_path)]
    done = subprocess.run(
        command + (["--json"] if json_out else []), capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert done.returncode in (0, 1), done.stderr
    assert probe.read_text(encoding="utf-8") == "False"  # the first agent call came before rich was imported
    text = done.stderr if json_out else done.stdout
    set_id = json.loads(evalset.read_text(encoding="utf-8"))["evalSetId"]
    assert text.splitlines()[0] == f"{set_id} ({evalset}): metrics from {evalset.with_name('calculator.metrics.json')}"
    if json_out:
        assert json.loads(done.stdout)["evalSetId"] == set_id


def test_a_copy_of_a_deferred_console_does_not_recurse() -> None:
    import copy

    console = deferred_console(emoji=False)
    assert copy.copy(console).is_terminal is False
