"""Eval set managers: local files and in-memory, with trpc-agent-go semantics."""

from __future__ import annotations

import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Collection
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from ..errors import InputError, NotFoundError
from ..model import EvalCase, EvalSet
from ..model._ids import check_case_id
from ._ids import check_segment
from ._locator import Locator, default_evalset_locator
from ._lock import DEFAULT_LOCK_TIMEOUT, LockedFiles

__all__ = ["EvalSetManager", "InMemoryEvalSetManager", "LocalEvalSetManager"]

if TYPE_CHECKING:  # pragma: no cover
    from ..formats import InputReport
    from ..formats._dialect import Dialect

_SNIFFED_SETS = 20  # how many neighbours of a new set are looked at to choose its dialect
_SNIFFED_BYTES = 1 << 16  # and how much of each: the dialect shows in the first keys


def fill_timestamps(case: EvalCase, now: float) -> None:
    """Stamp ``case`` and its invocations with ``now`` where they have no creation timestamp (a case being added or
    updated through a manager)."""
    if case.creation_timestamp is None:
        case.creation_timestamp = now
    for inv in case.conversation or []:
        if inv.creation_timestamp is None:
            inv.creation_timestamp = now


class EvalSetManager(ABC):
    """Get / create / list / delete eval sets and their cases.

    Thread-safe. Every change is a read-modify-write under :meth:`_mutation`: the manager's own lock here, a lock per
    eval set file (across threads, instances and processes) in :class:`LocalEvalSetManager`.
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()

    def _mutation(self, app: str, set_id: str, *, creating: bool) -> AbstractContextManager[object]:
        """The lock held while one eval set is changed; ``creating`` when the set may not exist yet."""
        return self._lock

    @staticmethod
    def _not_found(app: str, set_id: str) -> NotFoundError:
        return NotFoundError(f"eval set {set_id!r} of app {app!r} not found")

    @abstractmethod
    def _read(self, app: str, set_id: str) -> EvalSet | None: ...

    @abstractmethod
    def _write(self, app: str, eval_set: EvalSet) -> None: ...

    def _save(self, app: str, eval_set: EvalSet, changed: Collection[str]) -> None:
        """Write ``eval_set`` after a change to the cases ``changed`` (added or replaced; a deleted case is simply
        gone). Managers that can write one case without rewriting the others override this; the default is
        :meth:`_write`."""
        self._write(app, eval_set)

    @abstractmethod
    def _remove(self, app: str, set_id: str) -> bool: ...

    @abstractmethod
    def _ids(self, app: str) -> list[str]: ...

    def _load(self, app: str, set_id: str) -> EvalSet:
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        found = self._read(app, set_id)
        if found is None:
            raise self._not_found(app, set_id)
        return found

    def get(self, app: str, set_id: str) -> EvalSet:
        """The eval set; :class:`NotFoundError` when it does not exist."""
        with self._lock:
            return self._load(app, set_id)

    def create(self, app: str, set_id: str) -> EvalSet:
        """Create an empty eval set named after its id; fails if it already exists."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        with self._mutation(app, set_id, creating=True):
            if self._read(app, set_id) is not None:
                raise InputError(f"eval set {set_id!r} of app {app!r} already exists")
            eval_set = EvalSet(eval_set_id=set_id, name=set_id, eval_cases=[], creation_timestamp=time.time())
            self._write(app, eval_set)
            return eval_set.model_copy(deep=True)

    def put(self, app: str, eval_set: EvalSet) -> None:
        """Create or replace a whole eval set (its id is ``eval_set.eval_set_id``)."""
        check_segment(app, "app name")
        check_segment(eval_set.eval_set_id, "eval set id")
        for case in eval_set.eval_cases:
            check_case_id(case.eval_id)
        with self._mutation(app, eval_set.eval_set_id, creating=True):
            self._write(app, eval_set)

    def list(self, app: str) -> list[str]:
        """Ids of the app's eval sets, sorted (``[]`` when there is none)."""
        with self._lock:
            check_segment(app, "app name")
            return sorted(self._ids(app))

    def delete(self, app: str, set_id: str) -> None:
        """Delete an eval set; :class:`NotFoundError` when it does not exist."""
        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        with self._mutation(app, set_id, creating=False):
            if not self._remove(app, set_id):
                raise self._not_found(app, set_id)

    def get_case(self, app: str, set_id: str, case_id: str) -> EvalCase:
        """One case of an eval set; :class:`NotFoundError` when the set or the case does not exist."""
        check_case_id(case_id)
        with self._lock:
            case = self._load(app, set_id).get_case(case_id)
            if case is None:
                raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")
            return case

    def add_case(self, app: str, set_id: str, case: EvalCase) -> None:
        """Append a case; its id must be non-empty and new. Missing timestamps are set to now."""
        check_case_id(case.eval_id)
        with self._mutation(app, set_id, creating=False):
            eval_set = self._load(app, set_id)
            if not case.eval_id:
                raise InputError(f"cannot add a case with an empty evalId to eval set {set_id!r}")
            if eval_set.get_case(case.eval_id) is not None:
                raise InputError(f"eval case {case.eval_id!r} already exists in eval set {set_id!r} of app {app!r}")
            added = case.model_copy(deep=True)
            fill_timestamps(added, time.time())
            eval_set.eval_cases.append(added)
            self._save(app, eval_set, (added.eval_id,))

    def update_case(self, app: str, set_id: str, case: EvalCase) -> None:
        """Replace the case with the same id; :class:`NotFoundError` when there is none. A case equal to the stored
        one changes nothing (no timestamps are added, the file is not rewritten)."""
        check_case_id(case.eval_id)
        with self._mutation(app, set_id, creating=False):
            eval_set = self._load(app, set_id)
            for index, existing in enumerate(eval_set.eval_cases):
                if existing.eval_id == case.eval_id:
                    if existing.model_dump(mode="json") == case.model_dump(mode="json"):
                        return
                    updated = case.model_copy(deep=True)
                    fill_timestamps(updated, time.time())
                    eval_set.eval_cases[index] = updated
                    self._save(app, eval_set, (updated.eval_id,))
                    return
            raise NotFoundError(f"eval case {case.eval_id!r} not found in eval set {set_id!r} of app {app!r}")

    def delete_case(self, app: str, set_id: str, case_id: str) -> None:
        """Remove a case; :class:`NotFoundError` when there is none."""
        check_case_id(case_id)
        with self._mutation(app, set_id, creating=False):
            eval_set = self._load(app, set_id)
            kept = [c for c in eval_set.eval_cases if c.eval_id != case_id]
            if len(kept) == len(eval_set.eval_cases):
                raise NotFoundError(f"eval case {case_id!r} not found in eval set {set_id!r} of app {app!r}")
            eval_set.eval_cases = kept
            self._save(app, eval_set, ())


class InMemoryEvalSetManager(EvalSetManager):
    """Eval sets kept in memory as JSON snapshots, so every read and write is an independent deep copy.

    (Serialising is several times cheaper than ``copy.deepcopy`` of a pydantic tree.)
    """

    def __init__(self) -> None:
        super().__init__()
        self._sets: dict[str, dict[str, str]] = {}

    def _read(self, app: str, set_id: str) -> EvalSet | None:
        found = self._sets.get(app, {}).get(set_id)
        return None if found is None else EvalSet.model_validate_json(found)

    def _write(self, app: str, eval_set: EvalSet) -> None:
        self._sets.setdefault(app, {})[eval_set.eval_set_id] = eval_set.model_dump_json()

    def _remove(self, app: str, set_id: str) -> bool:
        return self._sets.get(app, {}).pop(set_id, None) is not None

    def _ids(self, app: str) -> list[str]:
        return list(self._sets.get(app, {}))


class LocalEvalSetManager(LockedFiles, EvalSetManager):
    """Eval sets as files, by default ``<base_dir>/<app>/<evalSetId>.evalset.json`` (native JSON, atomic writes).

    Any supported format is read (ADK, legacy, ...). A change keeps the file's dialect (ADK snake_case, ADK
    camelCase or native) and the bytes of every case it does not touch; a new set is written in the dialect most
    other sets of its app use (native when there is none; see :mod:`agentgauge.formats._splice`). Every change reads,
    modifies and rewrites the file while holding that file's lock (``.agentgauge-locks/<file>.lock`` beside it), so
    concurrent writers in any thread, manager instance or process never lose each other's changes; ``lock_timeout``
    bounds the wait for another writer; ``lock_dir`` keeps the lock files in that folder instead (see
    :func:`~agentgauge.storage._lock.lock_file_for`). Reads take no lock: writes are atomic, so a reader sees a whole
    file.
    """

    def __init__(
        self,
        base_dir: str | os.PathLike[str] = ".",
        locator: Locator | None = None,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        lock_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        super().__init__(base_dir, locator, default_evalset_locator, lock_timeout, lock_dir)

    def _read(self, app: str, set_id: str, report: InputReport | None = None) -> EvalSet | None:
        """The eval set in the file of ``set_id`` (``None`` when there is none); ``report`` receives its unknown
        keys."""
        from ..formats._api import load_eval_set

        path = self.path_for(app, set_id)
        if not path.is_file():
            return None
        eval_set = load_eval_set(path, report=report)
        eval_set.eval_set_id = set_id
        return eval_set

    def _write(self, app: str, eval_set: EvalSet) -> None:
        self._save(app, eval_set, None)

    def _save(self, app: str, eval_set: EvalSet, changed: Collection[str] | None) -> None:
        from .._util.fileio import atomic_write
        from ..formats._jsonio import read_bytes
        from ..formats._splice import rewrite_eval_set

        path = self.path_for(app, eval_set.eval_set_id)
        old = read_bytes(path) if path.is_file() else None
        dialect = "native" if old is not None else self._new_set_dialect(app, eval_set.eval_set_id)
        atomic_write(path, rewrite_eval_set(old, eval_set, changed=changed, dialect=dialect, source=str(path)))

    def dialect(self, app: str, set_id: str) -> Dialect:
        """The dialect the eval set's file is written in (and every change keeps); :class:`NotFoundError` when it
        does not exist."""
        from ..formats._dialect import document_dialect
        from ..formats._jsonio import parse_json, read_bytes

        check_segment(app, "app name")
        check_segment(set_id, "eval set id")
        path = self.path_for(app, set_id)
        if not path.is_file():
            raise self._not_found(app, set_id)
        return document_dialect(parse_json(read_bytes(path), str(path)))

    def _new_set_dialect(self, app: str, set_id: str) -> Dialect:
        """The dialect most of the app's other sets are written in (ADK on a tie: both tools read it)."""
        from ..errors import InputError
        from ..formats._dialect import sniff_dialect
        from ..formats._jsonio import open_input

        votes: dict[Dialect, int] = {"adk": 0, "adk_camel": 0, "native": 0}
        for other in [i for i in self._ids(app) if i != set_id][:_SNIFFED_SETS]:
            try:
                with open_input(self.path_for(app, other)) as handle:
                    votes[sniff_dialect(handle.read(_SNIFFED_BYTES))] += 1
            except (InputError, OSError):
                continue  # an unreadable neighbour has no say
        best = max(votes.values())
        return "native" if best == 0 else next(d for d, n in votes.items() if n == best)

    def _remove(self, app: str, set_id: str) -> bool:
        path = self.path_for(app, set_id)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True

    def _ids(self, app: str) -> list[str]:
        return self.locator.list(self.base_dir, app)
