"""Noticing new results while the server runs: a result written by ``agentgauge eval``, ``adk eval`` or the server's
own runs changes the folder (or the store) it is saved in, and open pages are told over ``/api/live/events``.

A file source is watched by its folder's identity and modification time (a result is saved by renaming a finished
file into the folder, which changes it), so a poll costs one ``stat`` per app and source, whatever the number of
result files; a store is asked for its result ids. Polls are shared by every open stream and made at most once per
:attr:`ResultWatch.interval`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import InputError
from ._history import ResultHistory, ResultSource

__all__ = ["ResultWatch"]

_PROBE_ID = "probe"
"""A result id whose file path names the folder a source keeps an app's results in."""


class ResultWatch:
    """A version number per app, raised whenever the app's results change in any source of ``history``."""

    def __init__(
        self, history: ResultHistory, apps: Callable[[], list[str]], *, interval: float = 1.0, apps_every: float = 10.0
    ) -> None:
        self.history = history
        self.interval = interval
        """Seconds between two polls at least (polls asked sooner answer the last one's versions)."""
        self._apps = apps
        self._apps_every = apps_every
        self._app_names: list[str] = []
        self._apps_read = float("-inf")
        self._polled = float("-inf")
        self._marks: dict[str, tuple[Any, ...]] = {}
        self._versions: dict[str, int] = {}
        self._lock = threading.Lock()

    def versions(self) -> dict[str, int]:
        """Each app's version now (polling first when the last poll is older than :attr:`interval`)."""
        with self._lock:
            now = time.monotonic()
            if now - self._polled >= self.interval:
                self._polled = now
                self._poll(now)
            return dict(self._versions)

    def _poll(self, now: float) -> None:
        if now - self._apps_read >= self._apps_every:
            self._apps_read = now
            self._app_names = self._apps()
        for app in self._app_names:
            mark = tuple(_mark(source, app) for source in self.history.sources)
            if app not in self._marks:
                self._marks[app] = mark
                self._versions[app] = 0
            elif mark != self._marks[app]:
                self._marks[app] = mark
                self._versions[app] += 1


def _mark(source: ResultSource, app: str) -> Any:
    """What changes when a result of ``app`` is added, replaced or removed in ``source``."""
    try:
        path = source.path_for(app, _PROBE_ID)
        if path is None:  # a store: its result ids
            return hash(frozenset(source.manager.list(app)))
        stat = path.parent.stat()
    except (InputError, OSError, ValueError):
        return None  # no folder yet: seen again at the next poll
    except Exception:
        return None
    return (stat.st_ino, stat.st_mtime_ns)
