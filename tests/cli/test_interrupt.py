"""Ctrl-C at any moment of the ``agentgauge`` console script: ``Interrupted.`` on stderr, exit code 130, no traceback.

The command runs as the console script does (a script named ``agentgauge`` that imports ``agentgauge.cli:main``).
Delays are counted from the end of the ``agentgauge`` package's import, seen on stderr through
``PYTHONPROFILEIMPORTTIME``: before it, the interpreter itself is starting (site, path search), which no code of
the package can cover. Every delay has the same expected outcome wherever the signal lands (importing the command
line, parsing options, loading inputs, importing the agent), so none depends on how fast the machine is.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SRC = Path(__file__).resolve().parents[2] / "src"

# What pip writes for ``agentgauge = "agentgauge.cli:main"`` (the real script's name matters: see agentgauge/__init__)
CONSOLE_SCRIPT = """import sys
from agentgauge.cli import main
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(main())
"""

CASE = {"evalId": "c", "conversation": [{"userContent": {"content": "q"}, "finalResponse": {"content": "echo: q"}}]}
METRICS = [{"metricName": "response_match_score", "threshold": 0.5}]


class _Command:
    """The console script running ``args`` in ``folder``; stderr is read as it comes (the import-time lines)."""

    def __init__(self, folder: Path, args: list[str]) -> None:
        script = folder / "bin" / "agentgauge"
        script.parent.mkdir(exist_ok=True)
        script.write_text(CONSOLE_SCRIPT)
        env = {**os.environ, "PYTHONPATH": str(SRC), "PYTHONPROFILEIMPORTTIME": "1", "NO_COLOR": "1"}
        self.process = subprocess.Popen(
            [sys.executable, str(script), *args],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.package_imported = threading.Event()
        self._err: list[bytes] = []
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if not line.startswith(b"import time:"):
                self._err.append(line)
            elif line.split(b"|")[-1].strip() == b"agentgauge":
                self.package_imported.set()
        self.package_imported.set()  # the process ended: no need to wait any longer

    def finish(self) -> tuple[int, str, str]:
        """Wait for the end: exit code, stdout, stderr without the import-time lines."""
        assert self.process.stdout is not None
        out = self.process.stdout.read()
        code = self.process.wait(timeout=120)
        self._reader.join(timeout=30)
        return code, out.decode(errors="replace"), b"".join(self._err).decode(errors="replace")


def _interrupt(folder: Path, args: list[str], delay: float) -> tuple[int, str, str]:
    command = _Command(folder, args)
    try:
        assert command.package_imported.wait(timeout=60), "the package was never imported"
        time.sleep(delay)
        if command.process.poll() is None:
            command.process.send_signal(signal.SIGINT)
        return command.finish()
    finally:
        if command.process.poll() is None:
            command.process.kill()


def _files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


DELAYS = [0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.6, 1.0, 1.5]


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_before_any_case_runs_ends_cleanly_and_writes_nothing(tmp_path: Path, delay: float) -> None:
    # The agent never finishes importing: whenever the signal lands, no case has started.
    (tmp_path / "agent.py").write_text("import time\n\ntime.sleep(120)\n\n\ndef agent(request):\n    return 'x'\n")
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [CASE]}))
    (tmp_path / "s.metrics.json").write_text(json.dumps(METRICS))
    code, out, err = _interrupt(tmp_path, ["eval", "agent.py", "s.evalset.json", "--output-dir", "out"], delay)
    assert code == 130, (out, err)
    assert err.strip() == "Interrupted.", err
    assert out == ""
    assert "Traceback" not in out + err
    assert not (tmp_path / "out").exists()
    assert not list(tmp_path.glob("**/*.tmp"))


@pytest.mark.parametrize("delay", DELAYS)
def test_ctrl_c_at_any_moment_of_a_short_run_never_shows_a_traceback(tmp_path: Path, delay: float) -> None:
    # The run may be starting, running, reporting or over when the signal lands: each allowed outcome is clean.
    (tmp_path / "agent.py").write_text("def agent(request):\n    return 'echo: ' + request.user_content.content\n")
    (tmp_path / "s.evalset.json").write_text(json.dumps({"evalSetId": "s", "evalCases": [CASE]}))
    (tmp_path / "s.metrics.json").write_text(json.dumps(METRICS))
    code, out, err = _interrupt(tmp_path, ["eval", "agent.py", "s.evalset.json", "--output-dir", "out"], delay)
    assert "Traceback" not in out + err and "Exception ignored" not in err, (out, err)
    assert code in (0, 130), (code, out, err)
    if code == 130:
        assert "Interrupted" in out + err
    else:
        assert "Results saved to" in out
    for saved in _files(tmp_path / "out"):  # whatever was written is whole
        assert not saved.name.endswith(".tmp")
        if saved.suffix == ".json":
            json.loads(saved.read_text())


def test_ctrl_c_while_help_is_shown_or_after_it(tmp_path: Path) -> None:
    for delay in (0.0, 0.1, 0.3):
        code, out, err = _interrupt(tmp_path, ["--help"], delay)
        assert "Traceback" not in out + err, (out, err)
        assert code in (0, 130), (code, err)
        assert code == 0 or "Interrupted." in err


def test_ctrl_c_during_an_atomic_write_leaves_the_target_as_it_was_and_no_temporary_file(tmp_path: Path) -> None:
    # The handler ends the process at once (a KeyboardInterrupt could be swallowed where it lands); the write under
    # way must not leave its temporary file behind, and the file it was to replace keeps its content.
    (tmp_path / "report.html").write_text("old")
    code = (
        "import os, signal, time, agentgauge\n"
        "from agentgauge._util.fileio import AtomicFile\n"
        "signal.signal(signal.SIGINT, agentgauge._ctrl_c_ends_the_process)\n"
        "handle = AtomicFile('report.html')\n"
        "handle.write(b'half of the new')\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(60)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (130, "Interrupted.\n")
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]
    assert (tmp_path / "report.html").read_text() == "old"


LATE_SCRIPT = """import os, signal, sys
sys.argv[0] = "agentgauge"
import agentgauge


class _FreedLast:
    def __del__(self):  # runs while the interpreter frees its modules, after it has reset the signal handlers
        os.kill(os.getpid(), signal.SIGINT)


cycle = [_FreedLast()]
cycle.append(cycle)
print("done", flush=True)
"""


def test_ctrl_c_while_the_interpreter_shuts_down_after_the_command_keeps_its_exit_code(tmp_path: Path) -> None:
    # The interpreter resets Python-handled signals to the system default before it frees its modules; a Ctrl-C
    # landing then killed the finished command (status -2) instead of leaving its exit code.
    script = tmp_path / "late.py"
    script.write_text(LATE_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, timeout=60)
    assert done.stdout == b"done\n"
    assert done.returncode == 0, done.stderr
