"""One history of results: the server's own runs, ``agentgauge eval``'s results, a SQL store and ADK's eval history.

The server saves its runs in one place (``--store``, else ``--output-dir``, else ``<data-dir>/results``) and lists
and opens results from every place they may be, first place first when two hold the same result id:

1. where the server saves (a store given with ``--store`` is read only there: results go to it);
2. ``<data-dir>/results/<app>/`` (with the default data directory, ``.agentgauge/results/<app>/``: where
   ``agentgauge eval`` saves by default) and any further result folders given (``serve`` adds the CLI's default
   folder under the current directory when ``--data-dir`` is elsewhere);
3. ``--output-dir`` when results go to a store;
4. result files beside the eval sets, ``<evals-dir>/<app>/*.evalset_result.json`` (where servers before
   ``--data-dir`` saved them);
5. ADK's eval history, ``<app dir>/.adk/eval_history/*.evalset_result.json`` (``adk eval``, ``adk web``);
6. result files in the folders of ``<evals-dir>/<app>/results/`` (``eval --output-dir <app folder>/results``, the
   shipped ``examples/calibration/results/``).
"""

from __future__ import annotations

import builtins
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFoundError
from ..model import EvalSetResult
from ..storage import RESULT_SUFFIX, EvalResultManager, LocalEvalResultManager, SuffixLocator, check_segment
from ._cache import FileMemo
from ._digest import ResultDigest, digest_of_result
from ._digest_index import INDEX_FILE, load_index, save_index
from ._digest_read import read_digest

if TYPE_CHECKING:  # pragma: no cover
    from ._config import ServerConfig

__all__ = ["ADK_HISTORY_DIR", "AdkHistoryLocator", "ResultHistory", "ResultSource"]

ADK_HISTORY_DIR = Path(".adk") / "eval_history"
"""Where ADK keeps an app's results, under the app's folder."""

NESTED_RESULTS_DIR = "results"
"""The folder of an app's eval set folder whose sub-folders hold result files (:class:`NestedResultsLocator`)."""

_FINAL_STORE_STATES = frozenset({"completed", "interrupted", "cancelled", "aborted"})


class AdkHistoryLocator(SuffixLocator):
    """ADK's layout: ``<app folder>/.adk/eval_history/<id>.evalset_result.json``; the app folder is
    ``<base_dir>/<app>`` unless ``app_dirs`` names another (an agent served from elsewhere)."""

    def __init__(self, app_dirs: dict[str, Path] | None = None) -> None:
        super().__init__(RESULT_SUFFIX)
        self.app_dirs = dict(app_dirs or {})

    def _folder(self, base_dir: Path, app: str) -> Path:
        return self.app_dirs.get(app, Path(base_dir) / app) / ADK_HISTORY_DIR

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        """``<app folder>/.adk/eval_history/<id>.evalset_result.json``."""
        return self._folder(base_dir, app) / f"{id}{self.suffix}"

    def list(self, base_dir: Path, app: str) -> list[str]:
        """Ids of the app's ADK result files."""
        folder = self._folder(base_dir, app)
        return super().list(folder.parent, folder.name)


class NestedResultsLocator(SuffixLocator):
    """Results kept beside an app's eval sets, one folder further in (what ``eval --output-dir <app folder>/results``
    writes, as the shipped ``examples/calibration/results/capitals/``):
    ``<base_dir>/<app>/results/<any folder>/<id>.evalset_result.json``."""

    def __init__(self) -> None:
        super().__init__(RESULT_SUFFIX)

    def _folders(self, base_dir: Path, app: str) -> list[Path]:
        root = Path(base_dir) / app / NESTED_RESULTS_DIR
        try:
            return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
        except OSError:
            return []

    def build(self, base_dir: Path, app: str, id: str) -> Path:
        """The file of ``id`` in the first folder holding it (else where the first folder would hold it)."""
        folders = self._folders(base_dir, app) or [Path(base_dir) / app / NESTED_RESULTS_DIR / app]
        for folder in folders:
            path = folder / f"{id}{self.suffix}"
            if path.is_file():
                return path
        return folders[0] / f"{id}{self.suffix}"

    def list(self, base_dir: Path, app: str) -> list[str]:
        """Ids of the result files of every folder under ``<base_dir>/<app>/results/``."""
        found: set[str] = set()
        for folder in self._folders(base_dir, app):
            found.update(super().list(folder.parent, folder.name))
        return sorted(found)


@dataclass
class ResultSource:
    """One place results are read from: a label for the UI, its manager, and for files the folder it reads."""

    label: str
    manager: EvalResultManager
    folder: Path | None = None

    def path_for(self, app: str, result_id: str) -> Path | None:
        """The file of a result in a file source (``None`` for a store)."""
        path_for = getattr(self.manager, "path_for", None)
        return None if path_for is None else Path(path_for(app, result_id))


class ResultHistory:
    """Every result the server can show, from :attr:`sources` (the first one is where its runs save: :attr:`writer`).
    Each result file is read once per version of the file into one :class:`ResultDigest`, which the result list,
    the case list and the history share."""

    def __init__(self, sources: list[ResultSource], *, index: Path | None = None) -> None:
        if not sources:
            raise ValueError("a result history needs at least one source")
        self.sources = sources
        self.index = index
        """Where the digests are kept between two runs of the server (:mod:`._digest_index`); ``None``: nowhere."""
        self.files_read = 0
        """How many result files were read into a digest (the index and the memo spare the others)."""
        self._saved_at = 0  # files_read when the index was last written or read
        self._count_lock = threading.Lock()
        self._digests: FileMemo[ResultDigest] = FileMemo(4096)
        self._store_digests: dict[tuple[str, str, str], ResultDigest] = {}
        self._store_lock = threading.Lock()

    @classmethod
    def for_config(cls, config: ServerConfig, app_dirs: dict[str, Path] | None = None) -> ResultHistory:
        """The sources of a server (see the module's docstring for the order)."""
        sources: list[ResultSource] = []
        seen: set[tuple[str, str]] = set()

        def add_folder(label: str, folder: Path, locator: SuffixLocator | None = None) -> None:
            key = (os.path.normcase(os.path.realpath(folder)), type(locator).__name__)
            if key not in seen:
                seen.add(key)
                manager = LocalEvalResultManager(folder, locator)
                sources.append(ResultSource(label, manager, folder))

        if config.store:
            from ..sqlstore import open_store

            sources.append(ResultSource("store", open_store(config.store).results()))
        elif config.output_dir is not None:
            add_folder("output dir", config.output_dir)
        add_folder("data dir", config.data_dir / "results")
        for folder in config.result_dirs:
            add_folder("results", folder)
        if config.output_dir is not None:
            add_folder("output dir", config.output_dir)
        add_folder("eval sets folder", config.eval_root)
        add_folder("ADK eval history", config.eval_root, AdkHistoryLocator(app_dirs))
        add_folder("results beside the eval sets", config.eval_root, NestedResultsLocator())
        return cls(sources, index=config.data_dir / INDEX_FILE)

    def load_index(self) -> int:
        """Keep the digests of the saved index whose file has not changed since (see :mod:`._digest_index`);
        returns how many."""
        if self.index is None:
            return 0
        kept = sum(self._digests.seed(name, key, digest) for name, (key, digest) in load_index(self.index).items())
        with self._count_lock:
            self._saved_at = self.files_read
        return kept

    def save_index(self) -> bool:
        """Write the index of the digests kept, when result files were read since it was last written or read;
        whether it was written (an index that cannot be written is left out: it only saves time)."""
        with self._count_lock:
            read = self.files_read
            if self.index is None or read == self._saved_at:
                return False
        try:
            save_index(self.index, self._digests.items())
        except (InputError, OSError):
            return False
        with self._count_lock:
            self._saved_at = read
        return True

    @property
    def digests_kept(self) -> int:
        """How many digests of result files are kept at most (the least recently used are dropped first)."""
        return self._digests.max_entries

    @property
    def writer(self) -> EvalResultManager:
        """Where the server's runs save their results."""
        return self.sources[0].manager

    def list(self, app: str) -> list[str]:
        """Every result id of the app, sorted (each once)."""
        check_segment(app, "app name")
        found: set[str] = set()
        for source in self.sources:
            found.update(source.manager.list(app))
        return sorted(found)

    def _find(self, app: str, result_id: str) -> ResultSource | None:
        check_segment(app, "app name")
        check_segment(result_id, "eval set result id")
        for source in self.sources:
            path = source.path_for(app, result_id)
            if path is None:
                if result_id in source.manager.list(app):
                    return source
            elif path.is_file():
                return source
        return None

    def source_of(self, app: str, result_id: str) -> ResultSource:
        """The first source holding the result (where its labels are kept); :class:`NotFoundError` when none does."""
        source = self._find(app, result_id)
        if source is None:
            raise NotFoundError(f"eval set result {result_id!r} of app {app!r} not found")
        return source

    def get(self, app: str, result_id: str) -> EvalSetResult:
        """The result (from the first source holding it); :class:`NotFoundError` when none does."""
        source = self._find(app, result_id)
        if source is None:
            raise NotFoundError(f"eval set result {result_id!r} of app {app!r} not found")
        return source.manager.get(app, result_id)

    def digest(self, app: str, result_id: str) -> ResultDigest:
        """The digest of the result (from the first source holding it); :class:`NotFoundError` when none does, the
        file's :class:`InputError` when it is not a readable result."""
        return self._digest(self.source_of(app, result_id), app, result_id)

    def rows(self, app: str) -> builtins.list[dict[str, Any]]:
        """One row per result of the app (see :meth:`ResultDigest.row`), newest first; unreadable files are left
        out."""
        return [row for row, _ in self.listed(app)]

    def listed(self, app: str) -> builtins.list[tuple[dict[str, Any], ResultDigest]]:
        """Each result of the app as its row (see :meth:`rows`) and its digest, newest first; unreadable files
        are left out."""
        found = [
            # The id is the one the result is opened by (an ADK file's name), whatever the file holds.
            (digest.row(result_id, source.label), digest)
            for result_id, source, digest in self._each_digest(app)
        ]
        return sorted(found, key=lambda pair: pair[0]["creationTimestamp"] or 0.0, reverse=True)

    def warm(self, app: str, *, limit: int, pause: Callable[[], bool]) -> int:
        """Make the digests :meth:`listed` reads (in its order, into the same memo: a request listing meanwhile
        waits for a file being read instead of reading it again), at most ``limit`` of them; ``pause()`` is called
        after each and stops the warming when it answers ``True``. Returns how many digests were made or found."""
        made = 0
        for _ in self._each_digest(app):
            made += 1
            if made >= limit or pause():
                break
        return made

    def _each_digest(self, app: str) -> Iterator[tuple[str, ResultSource, ResultDigest]]:
        """``(result id, source, digest)`` of each readable result of the app, first source first, each id once."""
        check_segment(app, "app name")
        seen: set[str] = set()
        for source in self.sources:
            for result_id in source.manager.list(app):
                if result_id in seen:
                    continue
                try:
                    digest = self._digest(source, app, result_id)
                except (InputError, NotFoundError, OSError, ValueError):
                    continue  # a damaged or vanished file hides one row (a later source's copy may show), not the list
                seen.add(result_id)
                yield result_id, source, digest

    def _digest(self, source: ResultSource, app: str, result_id: str) -> ResultDigest:
        path = source.path_for(app, result_id)
        if path is None:
            return self._store_digest(source, app, result_id)
        found = self._digests.get(path, self._read_digest)
        if found is None:
            raise NotFoundError(f"eval set result {result_id!r} of app {app!r} not found")
        return found

    def _read_digest(self, path: Path) -> ResultDigest:
        with self._count_lock:
            self.files_read += 1
        return read_digest(path)

    def _store_digest(self, source: ResultSource, app: str, result_id: str) -> ResultDigest:
        # A store result that has ended never changes: its digest is kept; a running one is read each time.
        find = getattr(source.manager, "find", None)
        infos = find(result_id, app=app) if find is not None else []
        state = infos[0].status if infos else "unknown"
        key = (app, result_id, state)
        with self._store_lock:
            kept = self._store_digests.get(key)
        if kept is not None:
            return kept
        digest = digest_of_result(source.manager.get(app, result_id))
        if state in _FINAL_STORE_STATES:
            with self._store_lock:
                self._store_digests[key] = digest
        return digest
