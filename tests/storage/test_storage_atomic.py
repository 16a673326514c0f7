"""atomic_write: readers and crashes only ever see the old file or the complete new one."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.storage import atomic_write

WRITER = r"""
import sys
from agentgauge.storage import atomic_write
path = sys.argv[1]
n = 0
while True:
    n += 1
    marker = str(n % 10).encode()
    atomic_write(path, b"[" + marker * (8 * 1024 * 1024) + b"]")
"""


def test_replaces_content_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "dir" / "f.json"
    atomic_write(target, b"one")
    atomic_write(target, b"two")
    assert target.read_bytes() == b"two"
    assert [p.name for p in target.parent.iterdir()] == ["f.json"]


@settings(max_examples=25, deadline=None)
@given(st.binary(max_size=4096))
def test_any_bytes_round_trip(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    target = tmp_path_factory.mktemp("w") / "f.bin"
    atomic_write(target, data)
    assert target.read_bytes() == data


def _is_complete(data: bytes) -> bool:
    if len(data) != 8 * 1024 * 1024 + 2 or data[:1] != b"[" or data[-1:] != b"]":
        return False
    body = data[1:-1]
    return body == body[:1] * len(body)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_write_never_leaves_a_torn_file(tmp_path: Path) -> None:
    target = tmp_path / "big.json"
    env = dict(os.environ)
    for round_ in range(6):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target)], env=env)
        # The first round waits for a completed file (a loaded machine may need seconds to start the writer), so
        # the later kills, at varying moments, always have an old file that must survive intact.
        deadline = time.monotonic() + (60 if round_ == 0 else 0)
        while round_ == 0 and not target.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.25 + 0.1 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if target.exists():
            assert _is_complete(target.read_bytes()), f"torn file after kill #{round_}"
    assert target.exists(), "the writer never completed a file; the test proved nothing"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_new_files_follow_the_umask_not_owner_only(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        atomic_write(tmp_path / "report.xml", b"<x/>")
    finally:
        os.umask(previous)
    assert (tmp_path / "report.xml").stat().st_mode & 0o777 == 0o644


def test_a_directory_target_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(IsADirectoryError) as info:
        atomic_write(tmp_path / "out", b"{}")
    assert info.value.filename == str(tmp_path / "out")
    assert [p.name for p in tmp_path.iterdir()] == ["out"]
