"""Fixtures shared by the storage tests."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest


@pytest.fixture
def char_device(tmp_path: Path) -> Path:
    """A character device that a broken write could not harm.

    As root, a private copy of ``/dev/full`` made in the test's folder: a regression that replaced the node must
    never destroy a real device of the machine. Otherwise ``/dev/null``, which an unprivileged user cannot replace.
    """
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        node = tmp_path / "full"
        try:
            os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        except OSError as exc:
            pytest.skip(f"cannot create a device node: {exc}")
        return node
    if os.name != "posix" or os.access("/dev", os.W_OK):
        pytest.skip("no character device that is safe to test against")
    return Path("/dev/null")
