"""Crash-safe file writes: a temporary file in the target directory, fsync, then an atomic rename."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

from .._redact import redact_bytes

__all__ = ["atomic_write"]


def atomic_write(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers (and a crash) only ever see the old file or the complete new one.

    The bytes go to a temporary file in the same directory (same file system, so the rename is atomic), are flushed
    and fsynced, and the temporary file then replaces ``path`` with :func:`os.replace`. The directory is fsynced
    too so the rename itself survives a power loss. Missing parent directories are created. A new file gets the
    usual permissions (``0o666`` less the umask), not the owner-only ones of :func:`tempfile.mkstemp`.

    ``durable=False`` skips both fsyncs: still never a torn file, but a power loss may lose the write. For data that
    is cheap to recreate (e.g. judge cache entries), where an fsync per write would dominate.
    """
    data = redact_bytes(data)  # no registered secret (API key) ever reaches a file
    target = Path(path)
    if target.is_dir():
        # Otherwise os.replace fails naming the temporary file, which tells the user nothing.
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = _create_temp(target)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if durable:
        _fsync_dir(target.parent)


def _create_temp(target: Path) -> tuple[int, str]:
    # O_EXCL with mode 0o666 lets the umask decide the permissions, as for any file the user creates.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.fspath(target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue


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
