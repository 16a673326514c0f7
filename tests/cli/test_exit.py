"""Objects a command leaves behind are never freed when the process ends right after it, and freed as usual
otherwise."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import types
import weakref
from pathlib import Path

from agentgauge.cli import _exit


class _Thing:
    pass


def test_outside_the_entry_point_objects_are_freed_as_usual() -> None:
    thing = _Thing()
    ref = weakref.ref(thing)
    _exit.leave_to_the_os(thing)
    del thing
    gc.collect()
    assert ref() is None


def test_when_the_process_ends_after_the_command_objects_are_kept() -> None:
    frozen = gc.get_freeze_count()
    try:
        with _exit.process_ends_after_command():
            thing = _Thing()
            ref = weakref.ref(thing)
            _exit.leave_to_the_os(thing)
            del thing
            gc.collect()
            assert ref() is not None
        after = _Thing()
        after_ref = weakref.ref(after)
        _exit.leave_to_the_os(after)  # the block has ended: no longer kept
        del after
        gc.collect()
        assert after_ref() is None
    finally:
        if not frozen:
            gc.unfreeze()


def test_user_modules_are_those_loaded_from_outside_the_installation(tmp_path: Path) -> None:
    import agentgauge.cli

    prefixes = (str(tmp_path / "venv") + "/",)
    user = types.ModuleType("my_agent")
    user.__file__ = str(tmp_path / "project" / "my_agent.py")
    installed = types.ModuleType("some_lib")
    installed.__file__ = str(tmp_path / "venv" / "lib" / "some_lib.py")
    ours = types.ModuleType("agentgauge.fake")
    ours.__file__ = str(tmp_path / "project" / "fake.py")
    assert _exit.is_user_module(user, prefixes)
    assert not _exit.is_user_module(installed, prefixes)
    assert not _exit.is_user_module(ours, prefixes)  # agentgauge itself, even installed in editable mode
    assert not _exit.is_user_module(sys)  # built in: no file
    assert not _exit.is_user_module(json)  # the standard library lives under the interpreter's prefix
    assert not _exit.is_user_module(agentgauge.cli, prefixes)
    assert not _exit.is_user_module("my_agent")


_BUFFERING_AGENT = """
from agentgauge.agents import AgentOutput
from agentgauge.model import Message


class Agent:
    def __init__(self, path):
        self.log = open(path, "w", encoding="utf-8")  # never closed nor flushed: buffered until finalized

    async def __call__(self, request):
        self.log.write("called: " + request.user_content.content + "\\n")
        return AgentOutput(final_response=Message(role="assistant", content="ok"))


agent = Agent({log!r})
"""


def test_the_agents_objects_are_finalized_when_the_command_ends_the_process(tmp_path: Path) -> None:
    # The console-script entry point skips the interpreter's last garbage collection; the agent's module globals
    # must still be finalized, so a file the agent never closed keeps what it wrote.
    log = tmp_path / "agent.log"
    agent = tmp_path / "agent.py"
    agent.write_text(_BUFFERING_AGENT.format(log=str(log)), encoding="utf-8")
    evalset = Path(__file__).resolve().parents[2] / "examples" / "calculator" / "calculator.evalset.json"
    probe = "import sys\nfrom agentgauge.cli import main\nsys.argv = ['agentgauge', *sys.argv[1:]]\nmain()\n"
    done = subprocess.run(
        [sys.executable, "-c", probe, "eval", str(agent), str(evalset), "--output-dir", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    cases = len(json.loads(evalset.read_text(encoding="utf-8"))["evalCases"])
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= cases and all(line.startswith("called: ") for line in lines), lines
