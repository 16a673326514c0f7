"""Low-level file output shared by every layer: crash-safe writes and checks of user-given output paths.

Nothing here imports the rest of agentgauge (only the equally low-level secret masking of ``_redact``), so formats,
storage, reporting and the CLI can all use it.

* :func:`atomic_write` writes through symbolic links to their final target (the link is kept) and refuses targets
  that are not regular files (FIFOs, devices, sockets, directories): replacing such a node would destroy it, and
  writing into it could block forever or fail half-way.
* :func:`check_output_target` runs the same checks without writing, so a command can refuse a bad ``--html`` path
  before it starts any work.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from .redact import redact_bytes

__all__ = [
    "AtomicFile",
    "NotARegularFileError",
    "atomic_write",
    "check_output_target",
    "check_output_targets",
    "resolve_symlinks",
]

# The kernel's own limit on links followed while resolving one path (Linux MAXSYMLINKS).
_MAX_LINKS = 40

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotARegularFileError(OSError):
    """An output path names an existing FIFO, device or socket (or links to one): agentgauge refuses to write it.

    ``filename`` is the path as given; the message says what the node is.
    """


def resolve_symlinks(path: str | os.PathLike[str]) -> Path:
    """The absolute path a write to ``path`` lands on: symbolic links are followed, the last component included.

    Unlike :meth:`Path.resolve`, a dangling link resolves to the missing file it points to (that is the file a write
    creates). Following a link is refused, as Linux's ``fs.protected_symlinks`` does, when the link sits in a
    sticky world-writable directory (such as ``/tmp``) and belongs neither to this user nor to the directory's owner.
    """
    return _resolve(os.fspath(path))[0]


def _resolve(given: str) -> tuple[Path, bool]:
    """The final path and whether the last component was a symbolic link."""
    current = Path(os.path.abspath(given))
    followed = False
    for _ in range(_MAX_LINKS):
        # The directories on the way are resolved by the OS; only the last component is followed here, so that a
        # relative link target is read against the physical directory that holds the link.
        current = Path(os.path.realpath(current.parent)) / current.name
        try:
            info = os.lstat(current)
        except (FileNotFoundError, NotADirectoryError):
            return current, followed
        if not stat.S_ISLNK(info.st_mode):
            return current, followed
        _check_may_follow(current, info, given)
        current = Path(os.path.abspath(current.parent / os.readlink(current)))
        followed = True
    raise OSError(errno.ELOOP, "too many levels of symbolic links", given)


def _check_may_follow(link: Path, info: os.stat_result, given: str) -> None:
    if not hasattr(os, "geteuid"):  # Windows has no sticky directories
        return
    folder = os.stat(link.parent)
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and info.st_uid not in (os.geteuid(), folder.st_uid):
        raise PermissionError(
            errno.EACCES,
            f"is a symbolic link owned by another user in the shared directory {link.parent}; not following it",
            given,
        )


def check_output_target(path: str | os.PathLike[str]) -> Path:
    """Check that ``path`` can be (re)written as a regular file and return the file a write would replace.

    Symbolic links are followed (see :func:`resolve_symlinks`). Raises :class:`IsADirectoryError` for a directory,
    :class:`NotARegularFileError` for a FIFO, device or socket, :class:`NotADirectoryError` when a parent is a file,
    and :class:`FileNotFoundError` for a dangling link whose target directory does not exist. A missing file (and
    missing parent directories of the path as given) are fine: a write creates them. Nothing is created here.
    """
    given = os.fspath(path)
    final, followed = _resolve(given)
    where = f"links to {final}, which is" if followed else "is"
    try:
        info = os.stat(final)
    except FileNotFoundError:
        info = None
    except NotADirectoryError:
        raise NotADirectoryError(errno.ENOTDIR, "a parent of this path is a file, not a directory", given) from None
    if info is None:
        _check_parent(final, given, followed)
        return final
    if stat.S_ISDIR(info.st_mode):
        # Otherwise os.replace fails naming the temporary file, which tells the user nothing.
        message = os.strerror(errno.EISDIR) if not followed else f"{where} a directory"
        raise IsADirectoryError(errno.EISDIR, message, given)
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise NotARegularFileError(
            errno.EINVAL, f"{where} {kind}, not a regular file; refusing to write to it (give a file path)", given
        )
    return final


def _check_parent(final: Path, given: str, followed: bool) -> None:
    """A new file: its nearest existing ancestor must be a directory; a dangling link's own folder must exist."""
    if followed and not final.parent.is_dir():
        raise FileNotFoundError(
            errno.ENOENT, f"is a symbolic link to {final}, whose directory does not exist (not created)", given
        )
    for ancestor in final.parents:
        if ancestor.exists():
            if not ancestor.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"{ancestor} is a file, not a directory", given)
            return


def check_output_targets(*paths: str | os.PathLike[str] | None) -> None:
    """:func:`check_output_target` for each path that is not ``None`` (for a command's optional output options)."""
    for path in paths:
        if path is not None:
            check_output_target(path)


def atomic_write(path: str | os.PathLike[str], data: bytes, *, durable: bool = True) -> None:
    """Write ``data`` to ``path`` so that readers (and a crash) only ever see the old file or the complete new one.

    The bytes go to a temporary file in the same directory as the final target (same file system, so the rename is
    atomic), are flushed and fsynced, and the temporary file then replaces the target with :func:`os.replace`. The
    directory is fsynced too so the rename itself survives a power loss. Missing parent directories are created.

    ``path`` may be a symbolic link: the file it points to is replaced and the link is kept (a dangling link gets its
    target created, if that file's directory exists). A target that exists but is not a regular file is refused
    before anything is written: see :func:`check_output_target`. A new file gets the usual permissions (``0o666``
    less the umask), not the owner-only ones of :func:`tempfile.mkstemp`; a replaced file keeps its permissions.

    ``durable=False`` skips both fsyncs: still never a torn file, but a power loss may lose the write. For data that
    is cheap to recreate (e.g. judge cache entries), where an fsync per write would dominate.
    """
    with AtomicFile(path, durable=durable) as handle:
        handle.write(data)


class AtomicFile:
    """A file written in pieces with the guarantees of :func:`atomic_write` (which is this class in one call).

    ``write`` appends bytes (registered secrets masked, as in every file agentgauge writes), ``commit`` flushes,
    fsyncs (unless ``durable=False``) and renames the temporary file over the target; ``abort`` (or leaving the
    ``with`` block with an exception) deletes the temporary file and leaves the target as it was. Leaving the block
    normally commits. For documents too large to build in memory (streamed results and reports).
    """

    def __init__(self, path: str | os.PathLike[str], *, durable: bool = True) -> None:
        self.path = check_output_target(path)
        self.durable = durable
        try:
            previous_mode: int | None = stat.S_IMODE(os.stat(self.path).st_mode)
        except FileNotFoundError:
            previous_mode = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, self._tmp = _create_temp(self.path)
        self._file: BinaryIO | None = os.fdopen(fd, "wb")
        if previous_mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, previous_mode)

    @property
    def closed(self) -> bool:
        """True once the file was committed or aborted."""
        return self._file is None

    def write(self, data: bytes) -> None:
        """Append ``data`` (with registered secrets masked)."""
        if self._file is None:
            raise ValueError(f"{os.fspath(self.path)}: written after commit or abort")
        self._file.write(redact_bytes(data))  # no registered secret (API key) ever reaches a file

    def commit(self) -> Path:
        """Move the complete file into place; return the final path."""
        if self._file is None:
            raise ValueError(f"{os.fspath(self.path)}: committed after commit or abort")
        try:
            if self.durable:
                self._file.flush()
                os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            os.replace(self._tmp, self.path)
            _UNFINISHED.discard(self._tmp)
        except BaseException:
            self.abort()
            raise
        if self.durable:
            _fsync_dir(self.path.parent)
        return self.path

    def abort(self) -> None:
        """Drop the temporary file (the target is left as it was). Safe to call more than once."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        with contextlib.suppress(OSError):
            os.unlink(self._tmp)
        _UNFINISHED.discard(self._tmp)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._file is None:
            return
        if kind is None:
            self.commit()
        else:
            self.abort()


def _create_temp(target: Path) -> tuple[int, str]:
    # O_EXCL with mode 0o666 lets the umask decide the permissions, as for any file the user creates. The name is
    # cut so that a target name near the file system's limit (255 bytes) still leaves room for the suffix.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = os.fspath(target.parent / f".{target.name[:64]}.{secrets.token_hex(6)}.tmp")
        try:
            fd = os.open(name, flags, 0o666)
        except FileExistsError:
            continue
        _UNFINISHED.add(name)
        return fd, name


_UNFINISHED: set[str] = set()
"""Temporary files of atomic writes neither committed nor aborted yet."""


def remove_unfinished() -> None:
    """Delete the temporary files of the atomic writes under way, leaving their targets as they were: the process
    is about to end at once (Ctrl-C in the command line), without unwinding to their ``abort``."""
    for name in list(_UNFINISHED):
        with contextlib.suppress(OSError):
            os.unlink(name)
    _UNFINISHED.clear()


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
