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
5. ADK's eval history, ``<app dir>/.adk/eval_history/*.evalset_result.json`` (``adk eval``, ``adk web``).
"""

from __future__ import annotations

import builtins
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFoundError
from ..model import EvalSetResult
from ..storage import RESULT_SUFFIX, EvalResultManager, LocalEvalResultManager, SuffixLocator, check_segment
from ._cache import FileMemo
from ._rows import result_row

if TYPE_CHECKING:  # pragma: no cover
    from ._config import ServerConfig

__all__ = ["ADK_HISTORY_DIR", "AdkHistoryLocator", "ResultHistory", "ResultSource"]

ADK_HISTORY_DIR = Path(".adk") / "eval_history"
"""Where ADK keeps an app's results, under the app's folder."""

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
    Listing reads each result file once per version of the file (the rows are kept)."""

    def __init__(self, sources: list[ResultSource]) -> None:
        if not sources:
            raise ValueError("a result history needs at least one source")
        self.sources = sources
        self._rows: FileMemo[dict[str, Any]] = FileMemo(4096)
        self._store_rows: dict[tuple[str, str, str], dict[str, Any]] = {}
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
        return cls(sources)

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

    def rows(self, app: str) -> builtins.list[dict[str, Any]]:
        """One row per result of the app (see :func:`result_row`, plus ``source``), newest first; unreadable files
        are left out."""
        check_segment(app, "app name")
        rows: dict[str, dict[str, Any]] = {}
        for source in self.sources:
            for result_id in source.manager.list(app):
                if result_id in rows:
                    continue
                row = self._row(source, app, result_id)
                if row is not None:
                    rows[result_id] = row
        return sorted(rows.values(), key=lambda r: r["creationTimestamp"] or 0.0, reverse=True)

    def _row(self, source: ResultSource, app: str, result_id: str) -> dict[str, Any] | None:
        def make(_: Path | None = None) -> dict[str, Any]:
            # The id is the one the result is opened by (an ADK file's name), whatever the file holds.
            row = result_row(source.manager.get(app, result_id))
            return {**row, "evalSetResultId": result_id, "source": source.label}

        try:
            path = source.path_for(app, result_id)
            if path is not None:
                return self._rows.get(path, make)
            return self._store_row(source, app, result_id, make)
        except (InputError, NotFoundError, OSError, ValueError):
            return None  # a damaged or vanished file hides one row, not the list

    def _store_row(self, source: ResultSource, app: str, result_id: str, make: Any) -> dict[str, Any]:
        # A store result that has ended never changes: its row is kept; a running one is read each time.
        find = getattr(source.manager, "find", None)
        infos = find(result_id, app=app) if find is not None else []
        state = infos[0].status if infos else "unknown"
        key = (app, result_id, state)
        with self._store_lock:
            kept = self._store_rows.get(key)
        if kept is not None:
            return kept
        row: dict[str, Any] = make()
        if state in _FINAL_STORE_STATES:
            with self._store_lock:
                self._store_rows[key] = row
        return row
