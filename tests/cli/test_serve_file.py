"""The serve file: ``agentgauge serve`` says where it listens beside the results folders it reads, and ``eval``
without ``--ui-url`` links its cases there: only to a live server of the folder it saves to; a stale, torn, foreign
or other folder's file gives no link and no message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentgauge.cli import app
from agentgauge.cli._serve_file import advertised, discover_ui_url, serve_file, serve_url, served_folders
from agentgauge.server import ServerConfig

ROOT = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8765"


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def _write(folder: Path, **fields: Any) -> None:
    body = {"url": URL, "pid": os.getpid(), "results": [str(folder)], **fields}
    serve_file(folder).write_text(json.dumps(body))


def test_a_live_server_of_the_folder_is_found(tmp_path: Path) -> None:
    results = tmp_path / ".agentgauge" / "results"
    results.mkdir(parents=True)
    assert discover_ui_url(results) is None  # no file
    _write(results, url=URL + "/")
    assert serve_file(results) == tmp_path / ".agentgauge" / "serve.json"
    assert discover_ui_url(results) == URL
    assert discover_ui_url(tmp_path / ".agentgauge" / "." / "results") == URL  # the same folder, written otherwise


@pytest.mark.parametrize(
    "content",
    [
        '{"url": "http://127.0.0.1:8765", "pid": ',  # torn
        "not json at all",
        "[1, 2]",
        '{"url": "ftp://x", "pid": 1, "results": []}',
        '{"url": "http://x", "pid": "12", "results": []}',
        '{"url": "http://x", "pid": 0, "results": []}',
        '{"url": "http://x", "pid": 1, "results": "nope"}',
        "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
        " " * 70_000,
    ],
    ids=["torn", "garbage", "list", "scheme", "pid-text", "pid-zero", "folders", "bytes", "huge"],
)
def test_a_file_that_is_not_a_serve_file_is_ignored(tmp_path: Path, content: str) -> None:
    results = tmp_path / "results"
    results.mkdir()
    serve_file(results).write_text(content, encoding="latin-1")
    assert discover_ui_url(results) is None


def test_a_stale_or_foreign_file_is_ignored(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    _write(results, pid=_dead_pid())  # the server was killed: its process is gone
    assert discover_ui_url(results) is None
    _write(results, results=[str(tmp_path / "other")])  # a live server of another folder beside it
    assert discover_ui_url(results) is None
    serve_file(results).unlink()
    serve_file(results).mkdir()  # a directory in its place
    assert discover_ui_url(results) is None


def test_advertised_writes_and_removes_its_files(tmp_path: Path) -> None:
    data, extra = tmp_path / "data" / "results", tmp_path / ".agentgauge" / "results"
    data.parent.mkdir()
    with advertised(URL, [data, extra, data]) as written:
        assert written == [tmp_path / "data" / "serve.json"]  # once, and not beside a folder that does not exist
        found = json.loads(written[0].read_text())
        assert (found["url"], found["pid"], found["results"]) == (URL, os.getpid(), [str(data), str(extra), str(data)])
        assert discover_ui_url(data) == URL
    assert not (tmp_path / "data" / "serve.json").exists()
    with advertised(URL, [data]) as written:
        _write(data, pid=_dead_pid())  # replaced meanwhile by another server's: left to it
    assert serve_file(data).exists()
    with advertised(None, [data]) as written:  # a port the system picks: not known, no file
        assert written == []


def test_serve_url() -> None:
    assert serve_url("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert serve_url("0.0.0.0", 80) == "http://127.0.0.1:80"
    assert serve_url("::", 8000) == "http://[::1]:8000"
    assert serve_url("localhost", 1) == "http://localhost:1"


def _eval(tmp_path: Path, *extra: str) -> str:
    agent = ROOT / "examples" / "compare" / "broken_agent.py"
    evalset = ROOT / "examples" / "calculator" / "calculator.evalset.json"
    done = CliRunner().invoke(app, ["eval", str(agent), str(evalset), "--output-dir", str(tmp_path / "out"), *extra])
    assert done.exit_code == 1, done.output
    return done.output


def test_eval_links_to_the_server_of_its_results_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTGAUGE_UI_URL", raising=False)
    (tmp_path / "out").mkdir()
    assert "replay: " not in _eval(tmp_path)  # no server
    with advertised(URL, [tmp_path / "out"]):
        output = _eval(tmp_path)
        assert "  Did not pass (2):" in output
        assert f"replay: {URL}/#app=calculator&set=calculator&tab=replay&result=" in output
        assert "case=calc_natural_multiply" in output
        assert "replay: " not in _eval(tmp_path, "--ui-url", "")  # '' switches the links off
        assert "replay: http://elsewhere:1/#" in _eval(tmp_path, "--ui-url", "http://elsewhere:1")
    _write(tmp_path / "out", pid=_dead_pid())
    assert "replay: " not in _eval(tmp_path)  # left by a server that was killed


def test_only_folders_eval_saves_to_get_a_serve_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder the server only lists (a shipped example's results, in a checkout) is not written beside.
    monkeypatch.chdir(tmp_path)
    listed = tmp_path / "examples" / "calibration" / "results"
    config = ServerConfig(data_dir=tmp_path / "data", result_dirs=[Path(".agentgauge/results"), listed])
    assert served_folders(config) == [tmp_path / "data" / "results", Path(".agentgauge/results")]
