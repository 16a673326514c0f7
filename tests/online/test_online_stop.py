"""A server scoring online stops whole: stopped by SIGTERM while its worker processes score, it exits and no worker
outlives it (one left running would hold the server's output open: a caller reading it would wait forever)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from _browser import free_port

ROOT = Path(__file__).resolve().parents[2]
ONLINE = ROOT / "examples" / "online"


def _get(url: str) -> dict[str, object]:
    with urllib.request.urlopen(url, timeout=5) as answer:
        found: dict[str, object] = json.load(answer)
        return found


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_while_scoring_leaves_no_worker_behind(tmp_path: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-c", "from agentgauge.cli import main; main()", "serve", "--port", str(port),
               "--online", str(ONLINE / "rules.yaml"), "--data-dir", str(tmp_path / "live")]  # fmt: skip
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(f"{url}/health")
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        loop = [sys.executable, str(ONLINE / "weather_loop.py"), url, "--sessions", "20"]
        subprocess.run(loop, check=True, timeout=60, env=env)
        while _get(f"{url}/api/live/online")["rules"][0]["counts"]["sampled"] == 0:  # type: ignore[index]
            assert time.monotonic() < deadline, "nothing was sampled"
            time.sleep(0.05)
        workers = _children(server.pid)
        assert workers, "the scoring worker processes run beside the server"
    finally:
        server.send_signal(signal.SIGTERM)
    # The output closes when the server and every process it started are gone: communicate() returns.
    output, _ = server.communicate(timeout=30)
    assert server.returncode in (-signal.SIGTERM, 0), output
    assert b"Traceback" not in output, output
    # An orphan is re-parented, not ended, when its parent dies; multiprocessing's resource tracker ends on its own
    # once the workers are gone: a few seconds for the last exits.
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in workers if _alive(pid)] == []
