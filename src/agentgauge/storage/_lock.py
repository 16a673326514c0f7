"""One lock per stored file, held across threads, manager instances and processes during a read-modify-write.

Two layers, always taken in this order:

1. an in-process :class:`threading.RLock` per lock file (shared by every manager instance of the process), so the
   threads of one process queue without polling and only one of them at a time contends for the file lock;
2. a ``filelock`` lock (``flock`` on POSIX, ``msvcrt`` on Windows) on ``<folder>/.agentgauge-locks/<file>.lock``,
   which excludes other processes. The operating system drops it when its process dies, so a crash never leaves a
   stale lock behind.

The lock file lives with the data (not in a temporary directory), so that every process that can write the data
agrees on it, whatever its ``TMPDIR``, user or container. Paths are resolved first: two managers that reach the same
file through different paths or symbolic links share one lock. Lock files are empty and kept after use (removing a
lock file another process waits on would let two writers in at once).
"""

from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .._util.fileio import resolve_symlinks
from ._ids import check_file_name, check_segment
from ._locator import Locator

if TYPE_CHECKING:  # pragma: no cover
    from filelock import BaseFileLock

    from ..errors import NotFoundError

__all__ = ["DEFAULT_LOCK_TIMEOUT", "LOCK_DIR_NAME", "LockedFiles", "file_lock", "lock_file_for"]

LOCK_DIR_NAME = ".agentgauge-locks"
"""The hidden folder, beside the stored files, that holds their lock files."""

DEFAULT_LOCK_TIMEOUT = 120.0
"""Seconds a write waits for another writer of the same file before giving up with :class:`TimeoutError`."""

# Waiting processes retry the (non-blocking) file lock this often; the in-process layer needs no polling.
_POLL_INTERVAL = 0.005


@dataclass
class _Entry:
    """The in-process lock of one lock file and the single ``filelock`` object used under it."""

    path: Path
    thread_lock: threading.RLock = field(default_factory=threading.RLock)
    _file_lock: BaseFileLock | None = None

    def file_lock(self) -> BaseFileLock:
        if self._file_lock is None:
            from filelock import FileLock

            # thread_local=False: the object is only used under thread_lock, and a nested acquire by the same thread
            # must count up on the same object instead of waiting for itself.
            self._file_lock = FileLock(self.path, thread_local=False)
        return self._file_lock


_entries: dict[str, _Entry] = {}
_entries_guard = threading.Lock()


def _reset_after_fork() -> None:
    # A forked child inherits the parent's lock objects in whatever state other threads left them; it holds none.
    global _entries_guard
    _entries.clear()
    _entries_guard = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


_LOCK_PREFIX_BYTES = 80


def lock_file_for(data_path: str | os.PathLike[str], lock_dir: str | os.PathLike[str] | None = None) -> Path:
    """The lock file guarding ``data_path``: ``<folder of its final target>/.agentgauge-locks/<name>.lock``, or with
    ``lock_dir`` a file in that folder named after the final target's whole path (so the data's folder gets no lock
    folder; only writers that use the same ``lock_dir`` exclude each other then)."""
    final = resolve_symlinks(data_path)
    if lock_dir is None:
        return final.parent / LOCK_DIR_NAME / f"{final.name}.lock"
    import hashlib

    digest = hashlib.sha256(os.fsencode(os.path.normcase(os.fspath(final)))).hexdigest()[:32]
    # The name is kept short whatever the data file's name: the digest tells files apart, the prefix helps a reader.
    # The prefix is cut in bytes, not characters: 80 CJK characters are 240 bytes, over the 255-byte name limit.
    prefix = final.name
    while len(os.fsencode(prefix)) > _LOCK_PREFIX_BYTES:
        prefix = prefix[:-1]
    return Path(lock_dir).absolute() / f"{prefix}.{digest}.lock"


def _entry(lock_path: Path) -> _Entry:
    key = os.path.normcase(os.fspath(lock_path))
    with _entries_guard:
        found = _entries.get(key)
        if found is None:
            found = _entries[key] = _Entry(lock_path)
        return found


@contextmanager
def file_lock(
    data_path: str | os.PathLike[str],
    *,
    timeout: float = DEFAULT_LOCK_TIMEOUT,
    lock_dir: str | os.PathLike[str] | None = None,
) -> Iterator[None]:
    """Hold the lock of ``data_path`` for the block (reentrant within a thread).

    Creates the lock folder (and the data's folder) when missing; ``lock_dir``: see :func:`lock_file_for`. Raises
    :class:`TimeoutError` naming the file when another writer holds the lock for more than ``timeout`` seconds (a
    negative timeout waits forever).
    """
    lock_path = lock_file_for(data_path, lock_dir)
    entry = _entry(lock_path)
    deadline = None if timeout < 0 else time.monotonic() + timeout
    if not entry.thread_lock.acquire(timeout=-1 if deadline is None else timeout):
        raise _timed_out(data_path, lock_path, timeout)
    try:
        lock = entry.file_lock()
        if not lock.is_locked:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
        from filelock import Timeout

        remaining = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            lock.acquire(timeout=remaining, poll_interval=_POLL_INTERVAL)
        except Timeout:
            raise _timed_out(data_path, lock_path, timeout) from None
        try:
            yield
        finally:
            lock.release()
    finally:
        entry.thread_lock.release()


def _timed_out(data_path: str | os.PathLike[str], lock_path: Path, timeout: float) -> TimeoutError:
    return TimeoutError(
        errno.ETIMEDOUT,
        f"another writer held its lock ({lock_path}) for more than {timeout:g} s; try again later",
        os.fspath(data_path),
    )


class LockedFiles:
    """The file side of a local eval set or metrics manager: one file per ``(app, eval set)`` under ``base_dir``,
    named by a locator, changed while holding that file's lock. Mixed in before the manager's base class."""

    _not_found: Callable[[str, str], NotFoundError]  # the manager base class's "not found" error

    def __init__(
        self,
        base_dir: str | os.PathLike[str],
        locator: Locator | None,
        default_locator: Callable[[], Locator],
        lock_timeout: float,
        lock_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__()
        self.base_dir = Path(base_dir).absolute()  # an agent calling os.chdir() must not move the files
        self.locator: Locator = locator if locator is not None else default_locator()
        self.lock_timeout = lock_timeout
        self.lock_dir = None if lock_dir is None else Path(lock_dir).absolute()

    def _mutation(self, app: str, set_id: str, *, creating: bool) -> AbstractContextManager[object]:
        path = self.path_for(app, set_id)
        if not creating and not path.is_file():
            # Not found now is a valid answer, and it creates no lock file for data that does not exist.
            raise self._not_found(app, set_id)
        return file_lock(path, timeout=self.lock_timeout, lock_dir=self.lock_dir)

    def path_for(self, app: str, set_id: str) -> Path:
        """The file that holds this data of an eval set (ids are validated)."""
        path = self.locator.build(self.base_dir, check_segment(app, "app name"), check_segment(set_id, "eval set id"))
        return check_file_name(path, set_id, "eval set id", extra=len(".lock"))
