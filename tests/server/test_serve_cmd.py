"""``agentgauge serve``: argument checks (one error line, exit 2), app discovery, and a real start-up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from _browser import free_port
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.cli._serve_file import discover_ui_url
from agentgauge.server import default_data_dir, default_evals_dir, discover_apps

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "examples" / "calculator"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--host", "0.0.0.0"], "error: --host 0.0.0.0 exposes the server beyond this machine: give --token or "),
        (["missing_agent.py"], "error: missing_agent.py: agent file not found"),
        (["nonsense"], "error: nonsense: not an agent or a directory"),
        (["--timeout", "0"], "error: --timeout must be a positive number of seconds, got 0"),
        (["--timeout", "nan"], "error: --timeout must be a positive number of seconds, got nan"),
        (["--data-dir", __file__], f"error: --data-dir {__file__} is not a directory"),
        (["--store", "postgresql://u@127.0.0.1:1/db"], "error: store postgresql+psycopg://u@127.0.0.1:1/db: "),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["serve", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_folder_without_agents(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["serve", str(tmp_path)])
    assert result.exit_code == 2 and "no agent found in" in result.stderr


def test_discovery_and_default_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_data_dir() == tmp_path / ".agentgauge"  # the folder of agentgauge eval's default results/
    assert discover_apps([str(CALCULATOR)]) == {"calculator": str(CALCULATOR / "agent.py")}
    assert discover_apps([str(CALCULATOR / "agent.py")]) == {"calculator": str(CALCULATOR / "agent.py")}
    assert default_evals_dir([str(CALCULATOR)]) == CALCULATOR.parent.resolve()
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "agent.py").write_text("def root_agent(request):\n    return 'hi'\n")
    (tmp_path / "not_an_agent").mkdir()
    assert sorted(discover_apps([str(tmp_path)])) == ["one", "two"]
    assert default_evals_dir([str(tmp_path)]) == tmp_path.resolve()
    assert discover_apps(["examples.calculator.agent:root_agent"]) == {
        "calculator": "examples.calculator.agent:root_agent"
    }
    assert discover_apps(["pkg.tools:weather_agent"]) == {"weather_agent": "pkg.tools:weather_agent"}


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for option in ("--data-dir", "--evals-dir", "--output-dir", "--store", "--timeout", "--host", "--port", "--token",
                   "--insecure-no-auth", "--cors", "--adk-web"):  # fmt: skip
        assert option in result.stdout


def test_serve_starts_and_answers(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "serve", str(CALCULATOR),
               "--data-dir", str(tmp_path / "data"), "--evals-dir", str(tmp_path / "evals"),
               "--port", str(port)]  # fmt: skip
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    serve_file = tmp_path / "data" / "serve.json"  # beside data/results, the folder it reads and saves to
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/list-apps", timeout=2) as response:
                    assert json.load(response) == ["calculator"]
                break
            except OSError:
                assert process.poll() is None, process.stderr.read() if process.stderr else ""
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        written = json.loads(serve_file.read_text())
        assert (written["url"], written["pid"]) == (f"http://127.0.0.1:{port}", process.pid)
        assert str(tmp_path / "data" / "results") in written["results"]
        assert discover_ui_url(tmp_path / "data" / "results") == f"http://127.0.0.1:{port}"
        assert not (tmp_path / "serve.json").exists()  # nothing beside a folder that does not exist
    finally:
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=20)
    assert not serve_file.exists()  # removed as it stopped
    assert (process.returncode, err.splitlines()[-1]) == (130, "Interrupted.")  # Ctrl-C ends it as any command
    assert f"agentgauge: open http://127.0.0.1:{port}/" in err
    assert f"serving calculator from {tmp_path / 'evals'}" in err
    assert f"server data in {tmp_path / 'data'}; results saved to {tmp_path / 'data' / 'results'}" in err


def test_cli_start_up_does_not_import_the_server_stack() -> None:
    code = (
        "import sys, agentgauge.cli, agentgauge.server\n"
        "heavy = [m for m in ('fastapi', 'uvicorn', 'starlette', 'agentgauge.server._app') if m in sys.modules]\n"
        "print(heavy)"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_every_agent_call_is_bounded_by_default() -> None:
    """Without --timeout the server still bounds agent calls (300 s), in the CLI and in the Python API alike."""
    import inspect

    from agentgauge.cli._serve_cmd import serve
    from agentgauge.server import DEFAULT_SERVE_TIMEOUT, ServerConfig

    assert DEFAULT_SERVE_TIMEOUT == 300.0
    assert ServerConfig(data_dir=Path(".")).timeout == DEFAULT_SERVE_TIMEOUT
    assert inspect.signature(serve).parameters["timeout"].default == DEFAULT_SERVE_TIMEOUT


def test_serve_stopped_by_sigterm_removes_its_serve_file(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    (tmp_path / ".agentgauge").mkdir()  # eval's default folder, listed too: the server says it serves it
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "serve",
               "--data-dir", str(tmp_path / "data"), "--evals-dir", str(tmp_path / "evals"),
               "--port", str(port)]  # fmt: skip
    process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    files = [tmp_path / "data" / "serve.json", tmp_path / ".agentgauge" / "serve.json"]
    try:
        deadline = time.monotonic() + 30
        while not all(f.exists() for f in files):
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the server did not write its serve files"
            time.sleep(0.05)
        assert discover_ui_url(tmp_path / ".agentgauge" / "results") == f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=20)
    assert not any(f.exists() for f in files)
