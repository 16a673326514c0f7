"""Files parsed once per version: eval sets and result rows are read again only when their file changes.

A file's version is its key ``(inode, size, mtime_ns)``: an atomic write (every writer of agentgauge, most editors)
replaces the inode, an in-place edit changes the size or the modification time. The server also drops the entry of
a file it writes itself, so its own changes are seen at once whatever the file system's timestamp resolution.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from fastapi.responses import JSONResponse

from ..errors import InputError
from ..model import EvalSet
from ..storage import LocalEvalSetManager, check_segment

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import InputProblem

__all__ = ["CachedSet", "FileMemo", "ServerEvalSets", "file_key"]

T = TypeVar("T")

FileKey = tuple[int, int, int]


def file_key(path: Path) -> FileKey | None:
    """``(inode, size, mtime_ns)`` of a regular file; ``None`` when there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # ValueError: a path with NUL (ids are checked before, but never crash here)
        return None
    if not os.path.isfile(path):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class FileMemo(Generic[T]):
    """Values computed from files, kept while the file's key stays the same (at most ``max_entries``, the least
    recently used dropped first). Thread-safe; concurrent readers of a changed file wait for one computation."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, tuple[FileKey, T]] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[str, threading.Lock] = {}

    def get(self, path: Path, compute: Callable[[Path], T]) -> T | None:
        """The value for the file's current version (``compute(path)`` when it changed); ``None`` when the file does
        not exist. Errors of ``compute`` propagate and nothing is kept."""
        name = os.fspath(path)
        key = file_key(path)
        if key is None:
            self.invalidate(path)
            return None
        found = self._lookup(name, key)
        if found is not None:
            return found[1]
        with self._lock:
            gate = self._computing.setdefault(name, threading.Lock())
        with gate:
            found = self._lookup(name, key)  # another request may have just computed it
            if found is not None:
                return found[1]
            # The key read before computing is stored: a file replaced meanwhile is computed again next time.
            value = compute(path)
            with self._lock:
                self._entries[name] = (key, value)
                self._entries.move_to_end(name)
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
            return value

    def _lookup(self, name: str, key: FileKey) -> tuple[FileKey, T] | None:
        with self._lock:
            found = self._entries.get(name)
            if found is None or found[0] != key:
                return None
            self._entries.move_to_end(name)
            return found

    def seed(self, name: str, key: FileKey, value: T) -> bool:
        """Keep ``value`` for the version ``key`` of the file ``name`` (made earlier, e.g. read from a saved index)
        unless a value is kept already; whether it was kept."""
        with self._lock:
            if name in self._entries or len(self._entries) >= self.max_entries:
                return False
            self._entries[name] = (key, value)
            return True

    def items(self) -> list[tuple[str, FileKey, T]]:
        """``(file name, version key, value)`` of every kept value, least recently used first."""
        with self._lock:
            return [(name, key, value) for name, (key, value) in self._entries.items()]

    def invalidate(self, path: Path) -> None:
        """Forget the file's value (the server has just written or removed it)."""
        with self._lock:
            self._entries.pop(os.fspath(path), None)


class CachedSet:
    """One version of an eval set file, parsed: the :class:`EvalSet` (shared: never change it) and the answers
    made from it, each made once (``view``)."""

    def __init__(
        self, eval_set: EvalSet | None, error: InputError | None = None, problems: list[InputProblem] | None = None
    ) -> None:
        self._eval_set = eval_set
        self.error = error
        self.problems = problems or []
        """What the input checks found in this version of the file (unknown keys), as the file's tool judges them."""
        self._views: dict[str, Any] = {}
        self._lock = threading.Lock()

    @property
    def eval_set(self) -> EvalSet:
        """The parsed eval set; the file's :class:`InputError` when it could not be read."""
        if self._eval_set is None:
            assert self.error is not None
            raise self.error.with_traceback(None)  # a kept error must not collect the frames of every raise
        return self._eval_set

    def view(self, name: str, make: Callable[[EvalSet], Any]) -> Any:
        """``make(eval_set)``, computed on first use and kept with this version of the file."""
        eval_set = self.eval_set
        with self._lock:
            if name not in self._views:
                self._views[name] = make(eval_set)
            return self._views[name]

    def json_view(self, name: str, make: Callable[[EvalSet], Any]) -> bytes:
        """The JSON body of ``make(eval_set)`` as FastAPI's ``JSONResponse`` renders it, made once."""
        body: bytes = self.view(name, lambda s: bytes(JSONResponse(make(s)).body))
        return body


class ServerEvalSets(LocalEvalSetManager):
    """The server's eval set manager: local files (any dialect) under the eval set folder, lock files in the data
    directory, and :meth:`snapshot` for the read routes, which parses each version of a file once."""

    def __init__(self, base_dir: Path, lock_dir: Path, *, max_cached: int = 32) -> None:
        super().__init__(base_dir, lock_dir=lock_dir)
        self._memo: FileMemo[CachedSet] = FileMemo(max_cached)

    @property
    def max_cached(self) -> int:
        """How many parsed eval sets are kept at most (the least recently used are dropped first)."""
        return self._memo.max_entries

    def snapshot(self, app: str, set_id: str) -> CachedSet:
        """The eval set as parsed from its file's current version (shared with other readers: never change it);
        :class:`NotFoundError` when it does not exist."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")

        def parse(_: Path) -> CachedSet:
            from ..formats import InputReport

            report = InputReport()
            try:
                found = super(ServerEvalSets, self)._read(app, set_id, report)
            except InputError as exc:  # kept too: a broken file is not parsed again until it changes
                return CachedSet(None, exc, report.problems)
            if found is None:
                raise self._not_found(app, set_id)
            return CachedSet(found, problems=report.problems)

        cached = self._memo.get(self.path_for(app, set_id), parse)
        if cached is None:
            raise self._not_found(app, set_id)
        if cached.error is not None:
            raise cached.error.with_traceback(None)
        return cached

    def _save(self, app: str, eval_set: EvalSet, changed: Collection[str] | None) -> None:
        # Every write of the local manager (_write included) ends here.
        try:
            super()._save(app, eval_set, changed)
        finally:
            self._memo.invalidate(self.path_for(app, eval_set.eval_set_id))

    def _remove(self, app: str, set_id: str) -> bool:
        try:
            return super()._remove(app, set_id)
        finally:
            self._memo.invalidate(self.path_for(app, set_id))
