"""Eval result managers: local files (``<id>.evalset_result.json``) and in memory."""

from __future__ import annotations

import os
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError, NotFoundError
from ..model import EvalSetResult
from ._ids import check_file_name, check_segment, default_result_id
from ._locator import Locator, default_result_locator

if TYPE_CHECKING:  # pragma: no cover
    from ..formats._result_writer import ResultWriter

__all__ = ["EvalResultManager", "InMemoryEvalResultManager", "LocalEvalResultManager"]


class EvalResultManager(ABC):
    """Save / get / list eval set results. Thread-safe: one lock per manager."""

    def __init__(self) -> None:
        self._lock = threading.RLock()

    @abstractmethod
    def _read(self, app: str, result_id: str) -> EvalSetResult | None: ...

    @abstractmethod
    def _write(self, app: str, result: EvalSetResult) -> None: ...

    @abstractmethod
    def _ids(self, app: str) -> list[str]: ...

    def save(self, app: str, result: EvalSetResult) -> str:
        """Store a deep copy of ``result`` and return its id.

        Requires a non-empty app and ``eval_set_id``. Unset fields are filled on ``result`` itself: the id becomes
        ``<app>_<evalSetId>_<uuid4>`` (shortened to fit: :func:`~agentgauge.storage._ids.default_result_id`), the
        name defaults to the id and the timestamp to now.
        """
        with self._lock:
            check_segment(app, "app name")
            if not result.eval_set_id:
                raise InputError("cannot save a result without an evalSetId")
            if not result.eval_set_result_id:
                result.eval_set_result_id = default_result_id(app, result.eval_set_id)
            check_segment(result.eval_set_result_id, "eval set result id")
            if not result.eval_set_result_name:
                result.eval_set_result_name = result.eval_set_result_id
            if result.creation_timestamp is None:
                result.creation_timestamp = time.time()
            self._write(app, result)
            return result.eval_set_result_id

    def get(self, app: str, result_id: str) -> EvalSetResult:
        """A stored result; :class:`NotFoundError` when it does not exist."""
        with self._lock:
            check_segment(app, "app name")
            check_segment(result_id, "eval set result id")
            found = self._read(app, result_id)
            if found is None:
                raise NotFoundError(f"eval set result {result_id!r} of app {app!r} not found")
            return found

    def list(self, app: str) -> list[str]:
        """Ids of the app's results, sorted (``[]`` when there is none)."""
        with self._lock:
            check_segment(app, "app name")
            return sorted(self._ids(app))


class InMemoryEvalResultManager(EvalResultManager):
    """Results kept in memory as JSON snapshots, so every read and write is an independent deep copy."""

    def __init__(self) -> None:
        super().__init__()
        self._results: dict[str, dict[str, str]] = {}

    def _read(self, app: str, result_id: str) -> EvalSetResult | None:
        found = self._results.get(app, {}).get(result_id)
        return None if found is None else EvalSetResult.model_validate_json(found)

    def _write(self, app: str, result: EvalSetResult) -> None:
        self._results.setdefault(app, {})[result.eval_set_result_id] = result.model_dump_json()

    def _ids(self, app: str) -> list[str]:
        return list(self._results.get(app, {}))


class LocalEvalResultManager(EvalResultManager):
    """Results as files, by default ``<base_dir>/<app>/<evalSetResultId>.evalset_result.json`` (native JSON).

    :meth:`get` also reads ADK result files and the legacy form whose whole content is a JSON string.
    """

    def __init__(self, base_dir: str | os.PathLike[str] = ".", locator: Locator | None = None) -> None:
        super().__init__()
        self.base_dir = Path(base_dir).absolute()  # an agent calling os.chdir() must not move the files
        self.locator: Locator = locator if locator is not None else default_result_locator()

    def path_for(self, app: str, result_id: str) -> Path:
        """The file that holds a result (ids are validated)."""
        path = self.locator.build(
            self.base_dir, check_segment(app, "app name"), check_segment(result_id, "eval set result id")
        )
        return check_file_name(path, result_id, "eval set result id")

    def open_writer(self, app: str, eval_set_id: str, result_id: str) -> ResultWriter:
        """A streaming writer for a new result file (see :func:`open_result_writer`)."""
        return open_result_writer(self.path_for(app, result_id), app, eval_set_id, result_id)

    def _read(self, app: str, result_id: str) -> EvalSetResult | None:
        from ..formats._api import load_result

        path = self.path_for(app, result_id)
        if not path.is_file():
            return None
        return load_result(path)

    def _write(self, app: str, result: EvalSetResult) -> None:
        from ..formats._api import save_result

        save_result(result, self.path_for(app, result.eval_set_result_id))

    def _ids(self, app: str) -> list[str]:
        return self.locator.list(self.base_dir, app)


def open_result_writer(path: Path, app: str, eval_set_id: str, result_id: str) -> ResultWriter:
    """A :class:`~agentgauge.formats._result_writer.ResultWriter` for ``path``, checked like ``save`` checks a
    result (app name, non-empty ``eval_set_id``, result id), before anything is run or written."""
    from ..formats._result_writer import ResultWriter

    check_segment(app, "app name")
    if not eval_set_id:
        raise InputError("cannot save a result without an evalSetId")
    check_segment(result_id, "eval set result id")
    return ResultWriter(path, eval_set_id=eval_set_id, eval_set_result_id=result_id, eval_set_result_name=result_id)
