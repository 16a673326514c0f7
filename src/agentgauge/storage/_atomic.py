"""Crash-safe file writes: a temporary file in the target directory, fsync, then an atomic rename."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write"]


def atomic_write(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers (and a crash) only ever see the old file or the complete new one.

    The bytes go to a temporary file in the same directory (same file system, so the rename is atomic), are flushed
    and fsynced, and the temporary file then replaces ``path`` with :func:`os.replace`. The directory is fsynced
    too so the rename itself survives a power loss. Missing parent directories are created.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    # Not every platform lets a directory be opened for fsync (Windows); the rename is still atomic there.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
