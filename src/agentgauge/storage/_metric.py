"""Metric managers: the metrics of each eval set, local (``<evalSetId>.metrics.json``) or in memory."""

from __future__ import annotations

import builtins
import os
import threading
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager

from ..errors import InputError, NotFoundError
from ..model import EvalMetric
from ._ids import check_segment
from ._locator import Locator, default_metrics_locator
from ._lock import DEFAULT_LOCK_TIMEOUT, LockedFiles

__all__ = ["InMemoryMetricManager", "LocalMetricManager", "MetricManager"]


class MetricManager(ABC):
    """List / get / add / delete / update the metrics of an eval set. Thread-safe: one lock per manager.

    An eval set without stored metrics raises :class:`NotFoundError` from :meth:`get_all` and :meth:`list`, so
    callers can fall back to ``test_config.json`` or ADK's defaults. Every change is a read-modify-write under
    :meth:`_mutation`: the manager's own lock here, a lock per metrics file (across threads, instances and processes)
    in :class:`LocalMetricManager`.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def _mutation(self, app: str, set_id: str, *, creating: bool) -> AbstractContextManager[object]:
        """The lock held while one eval set's metrics are changed; ``creating`` when they may not exist yet."""
        return self._lock

    @staticmethod
    def _not_found(app: str, set_id: str) -> NotFoundError:
        return NotFoundError(f"no metrics stored for eval set {set_id!r} of app {app!r}")

    @abstractmethod
    def _read(self, app: str, set_id: str, *, expand: bool) -> builtins.list[EvalMetric] | None: ...

    @abstractmethod
    def _write(self, app: str, set_id: str, metrics: builtins.list[EvalMetric]) -> None: ...

    def _load(self, app: str, set_id: str, *, expand: bool = True) -> builtins.list[EvalMetric]:
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        found = self._read(app, set_id, expand=expand)
        if found is None:
            raise self._not_found(app, set_id)
        return found

    def get_all(self, app: str, set_id: str) -> builtins.list[EvalMetric]:
        """Every metric of the eval set, in stored order."""
        with self._lock:
            return self._load(app, set_id)

    def put_all(self, app: str, set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        """Replace the eval set's metrics (names must be unique)."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        names = [m.metric_name for m in metrics]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise InputError(f"duplicate metric names: {', '.join(duplicates)}")
        with self._mutation(app, set_id, creating=True):
            self._write(app, set_id, list(metrics))

    def list(self, app: str, set_id: str) -> builtins.list[str]:
        """Metric names of the eval set, in stored order."""
        with self._lock:
            return [m.metric_name for m in self._load(app, set_id)]

    def get(self, app: str, set_id: str, name: str) -> EvalMetric:
        """One metric by name; :class:`NotFoundError` when it does not exist."""
        with self._lock:
            for metric in self._load(app, set_id):
                if metric.metric_name == name:
                    return metric
            raise NotFoundError(f"metric {name!r} not found for eval set {set_id!r} of app {app!r}")

    def _load_or_empty(self, app: str, set_id: str) -> builtins.list[EvalMetric]:
        try:
            return self._load(app, set_id, expand=False)
        except NotFoundError:
            return []

    def add(self, app: str, set_id: str, metric: EvalMetric) -> None:
        """Add a metric; a metric of the same name must not exist yet."""
        with self._mutation(app, set_id, creating=True):
            metrics = self._load_or_empty(app, set_id)
            if any(m.metric_name == metric.metric_name for m in metrics):
                raise InputError(f"metric {metric.metric_name!r} already exists for eval set {set_id!r} of app {app!r}")
            metrics.append(metric.model_copy(deep=True))
            self._write(app, set_id, metrics)

    def update(self, app: str, set_id: str, metric: EvalMetric) -> None:
        """Replace the metric of the same name; :class:`NotFoundError` when there is none."""
        with self._mutation(app, set_id, creating=False):
            metrics = self._load(app, set_id, expand=False)
            for index, existing in enumerate(metrics):
                if existing.metric_name == metric.metric_name:
                    metrics[index] = metric.model_copy(deep=True)
                    self._write(app, set_id, metrics)
                    return
            raise NotFoundError(f"metric {metric.metric_name!r} not found for eval set {set_id!r} of app {app!r}")

    def delete(self, app: str, set_id: str, name: str) -> None:
        """Remove a metric; :class:`NotFoundError` when there is none."""
        with self._mutation(app, set_id, creating=False):
            metrics = self._load(app, set_id, expand=False)
            kept = [m for m in metrics if m.metric_name != name]
            if len(kept) == len(metrics):
                raise NotFoundError(f"metric {name!r} not found for eval set {set_id!r} of app {app!r}")
            self._write(app, set_id, kept)


class InMemoryMetricManager(MetricManager):
    """Metrics kept in memory; every read and write is a deep copy."""

    def __init__(self) -> None:
        super().__init__()
        self._metrics: dict[tuple[str, str], builtins.list[EvalMetric]] = {}

    def _read(self, app: str, set_id: str, *, expand: bool) -> builtins.list[EvalMetric] | None:
        found = self._metrics.get((app, set_id))
        return None if found is None else [m.model_copy(deep=True) for m in found]

    def _write(self, app: str, set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        self._metrics[(app, set_id)] = [m.model_copy(deep=True) for m in metrics]


class LocalMetricManager(LockedFiles, MetricManager):
    """Metrics as files, by default ``<base_dir>/<app>/<evalSetId>.metrics.json`` (a native JSON array).

    Reads expand ``${VAR}`` in judgeModel fields; read-modify-write operations work on the unexpanded file so
    placeholders survive. API keys are never written (they are blanked on serialisation).

    Every change reads, modifies and rewrites the file while holding that file's lock (``.agentgauge-locks/<file>.lock``
    beside it), so concurrent writers in any thread, manager instance or process never lose each other's changes;
    ``lock_timeout`` bounds the wait for another writer; ``lock_dir`` keeps the lock files in that folder instead
    (see :func:`~agentgauge.storage._lock.lock_file_for`). Reads take no lock (writes are atomic).
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str] = ".",
        locator: Locator | None = None,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        lock_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(base_dir, locator, default_metrics_locator, lock_timeout, lock_dir)

    def _read(self, app: str, set_id: str, *, expand: bool) -> builtins.list[EvalMetric] | None:
        from ..formats._api import load_metrics

        path = self.path_for(app, set_id)
        if not path.is_file():
            return None
        return load_metrics(path, expand=expand)

    def _write(self, app: str, set_id: str, metrics: builtins.list[EvalMetric]) -> None:
        from ..formats._api import save_metrics

        save_metrics(metrics, self.path_for(app, set_id))
