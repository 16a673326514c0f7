"""A large eval set file read case by case, so a run never holds all of its cases.

:meth:`StreamedEvalSet.scan` reads the file once, checking every case exactly as ``load_eval_set`` does, and keeps
only an index (the eval set's top-level fields and, per case, its id, mode and app name). A run then reads the file
again with :meth:`StreamedEvalSet.iter_cases`, one case at a time, as the cases are dispatched. Files that are not
plain eval set objects (legacy arrays, ADK string-wrapped documents, anything with a syntax error) are not
streamed: ``scan`` returns ``None`` and the caller loads them whole, which reports any error with file and JSON path.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import InputError, NotFoundError
from ..model import EvalCase, EvalSet, SessionInput

if TYPE_CHECKING:
    from ..formats import EvalSetKeys, InputReport

__all__ = [
    "STREAM_MIN_BYTES",
    "CaseStream",
    "LoadedEvalSet",
    "StreamedEvalSet",
    "index_stub",
    "open_eval_set",
    "stream_min_bytes",
]

STREAM_MIN_BYTES = 32 * 1024 * 1024
"""Eval set and result files at least this large are read case by case; smaller ones are loaded whole.
``AGENTGAUGE_STREAM_MIN_BYTES`` overrides it (e.g. ``0`` streams every file)."""


def stream_min_bytes() -> int:
    """The size from which files are streamed: ``AGENTGAUGE_STREAM_MIN_BYTES`` if set, else STREAM_MIN_BYTES."""
    value = os.environ.get("AGENTGAUGE_STREAM_MIN_BYTES", "")
    try:
        return max(0, int(value)) if value.strip() else STREAM_MIN_BYTES
    except ValueError:
        return STREAM_MIN_BYTES


class CaseStream(Protocol):
    """An eval-set source that can hand out its cases one at a time (see :class:`StreamedEvalSet`)."""

    def index(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The eval set with index-only cases: ids, modes and session app names, no conversations."""
        ...

    def iter_cases(self, app_name: str, eval_set_id: str) -> Iterator[EvalCase]:
        """Every case in full, in eval-set order, read as the iterator advances."""
        ...


def _walk(path: Path, *, pause_gc: bool, keys: EvalSetKeys | None = None) -> Iterator[tuple[str, Any]]:
    """Yield ``("case", EvalCase)`` for every case, then ``("top", dict)``; raise ``_NotStreamable`` otherwise.

    ``pause_gc`` pauses the cyclic collector while reading (only for the scan: during a run this generator stays
    suspended between cases, and the run's own objects must be collected as usual); ``keys`` gathers the unknown
    keys of the raw cases and top-level members.
    """
    from ..formats._evalset_read import case_from_raw
    from ..formats._jsonio import MAX_DEPTH, gc_paused
    from ..formats._stream import _CASES_KEYS, _file_members, _NotStreamable

    source = os.fspath(path)
    top: dict[str, Any] = {}
    seen_cases = False
    for key, reader in _file_members(path):
        if key in _CASES_KEYS:
            if seen_cases:
                raise _NotStreamable
            seen_cases = True
            if keys is not None:
                keys.cases_under(key)
            reader.expect(ord("["))
            if reader.peek() == ord("]"):
                reader.expect(ord("]"))
            else:
                index = 0
                with gc_paused() if pause_gc else nullcontext():
                    while True:
                        raw = reader.value(MAX_DEPTH - 2)
                        if keys is not None:
                            keys.case(raw, index)
                        yield "case", case_from_raw(raw, source, f"evalCases[{index}]")
                        index += 1
                        if pause_gc and index % 500 == 0:
                            # Always, even when the caller had the collector off (the command line does during
                            # start-up): each case read leaves cyclic garbage, and a scan reads every case of a file
                            # of any size; left to pile up it grew by ~60 KB per case.
                            gc.collect(1)
                        if reader.expect(ord(","), ord("]")) == ord("]"):
                            break
        else:
            top[key] = reader.value(MAX_DEPTH - 1)
    if not seen_cases:
        raise _NotStreamable
    if keys is not None:
        keys.top(top)
    yield "top", top


_STUB_FIELDS = frozenset({"eval_id", "eval_mode", "session_input"})


class _IndexedCase(EvalCase):
    """An index entry of a streamed eval set: an :class:`EvalCase` holding only the fields of ``_STUB_FIELDS``;
    the others read as their defaults (the conversation stays in the file)."""

    def __getattr__(self, name: str) -> Any:
        field = EvalCase.model_fields.get(name)
        if field is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return field.get_default(call_default_factory=True)


def index_stub(case: EvalCase, sessions: dict[str, SessionInput]) -> EvalCase:
    """What selection, the agent check and the app name need; the conversation stays in the file.

    A stub holds only ``eval_id``, ``eval_mode`` and ``session_input`` (one shared object per app name): ~250 bytes
    instead of the ~1.6 KB of a constructed case, which is what a scan of a million cases keeps. Reading any other
    field of a stub gives its default.
    """
    app = case.session_input.app_name if case.session_input is not None else ""
    session = None
    if app:
        session = sessions.get(app)
        if session is None:
            session = sessions[app] = SessionInput.model_construct(app_name=app)
    stub = _IndexedCase.__new__(_IndexedCase)
    object.__setattr__(
        stub, "__dict__", {"eval_id": case.eval_id, "eval_mode": case.eval_mode, "session_input": session}
    )
    object.__setattr__(stub, "__pydantic_fields_set__", _STUB_FIELDS)
    object.__setattr__(stub, "__pydantic_extra__", None)
    object.__setattr__(stub, "__pydantic_private__", None)
    return stub


class LoadedEvalSet:
    """An eval set already loaded, served as it is to a run: no snapshot copy as the in-memory manager makes, for a
    caller that owns the object and does not change it during the run (the command line)."""

    def __init__(self, eval_set: EvalSet) -> None:
        self.eval_set = eval_set

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The eval set (any app name); :class:`NotFoundError` for another id."""
        if eval_set_id != self.eval_set.eval_set_id:
            raise NotFoundError(f"eval set {eval_set_id!r} not found (this one is {self.eval_set.eval_set_id!r})")
        return self.eval_set


class StreamedEvalSet:
    """An eval set file used as an eval-set manager that streams its cases (one eval set, any app name)."""

    def __init__(self, path: Path, header: EvalSet) -> None:
        self.path = path
        self.header = header
        """The eval set with index-only cases (see :meth:`index`)."""

    @classmethod
    def scan(cls, path: str | os.PathLike[str], *, report: InputReport | None = None) -> StreamedEvalSet | None:
        """Read ``path`` once, checking every case; ``None`` when the file is not a streamable eval set object.

        A case that fails to convert raises the same :class:`InputError` (file and JSON path) as ``load_eval_set``.
        ``report`` receives the unknown keys of the file (see :class:`~agentgauge.formats.InputReport`).
        """
        from ..formats import EvalSetKeys
        from ..formats._evalset_read import eval_set_top
        from ..formats._stream import _NotStreamable

        target = Path(path)
        stubs: list[EvalCase] = []
        sessions: dict[str, SessionInput] = {}
        top: dict[str, Any] = {}
        keys = EvalSetKeys(os.fspath(target)) if report is not None else None
        try:
            for kind, item in _walk(target, pause_gc=True, keys=keys):
                if kind == "case":
                    stubs.append(index_stub(item, sessions))
                else:
                    top = item
        except (_NotStreamable, OSError):
            if keys is not None:
                keys.clear()  # the caller reads the file whole, and reports its keys then
            return None
        finally:
            if keys is not None and report is not None:
                report.extend(keys.problems())
        header = eval_set_top(top, os.fspath(target))
        header.eval_cases = stubs
        return cls(target, header)

    @property
    def eval_set_id(self) -> str:
        """The eval set's id."""
        return self.header.eval_set_id

    def _check(self, eval_set_id: str) -> None:
        if eval_set_id != self.header.eval_set_id:
            raise NotFoundError(f"eval set {eval_set_id!r} not found (this file holds {self.header.eval_set_id!r})")

    def get(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The whole eval set, loaded from the file (for callers that need every case at once)."""
        from ..formats import load_eval_set

        self._check(eval_set_id)
        return load_eval_set(self.path)

    def index(self, app_name: str, eval_set_id: str) -> EvalSet:
        """The eval set with index-only cases: ids, modes and session app names, no conversations."""
        self._check(eval_set_id)
        return self.header

    def iter_cases(self, app_name: str, eval_set_id: str) -> Iterator[EvalCase]:
        """Every case in full, in file order, read from the file as the iterator advances."""
        from ..formats._stream import _NotStreamable

        self._check(eval_set_id)
        try:
            for kind, item in _walk(self.path, pause_gc=False):
                if kind == "case":
                    yield item
        except (_NotStreamable, OSError) as exc:
            reason = str(exc) or "it is no longer a valid eval set"
            raise InputError(f"the file changed while it was being evaluated: {reason}", file=str(self.path)) from None


def open_eval_set(
    path: str | os.PathLike[str], *, min_bytes: int | None = None, report: InputReport | None = None
) -> EvalSet | StreamedEvalSet:
    """The eval set of ``path``: loaded whole when smaller than ``min_bytes`` (default :func:`stream_min_bytes`) or
    not streamable, else a :class:`StreamedEvalSet`. ``report`` receives the file's unknown keys."""
    from ..formats import load_eval_set

    threshold = stream_min_bytes() if min_bytes is None else min_bytes
    try:
        size = os.stat(path).st_size
    except OSError:
        size = -1
    if size >= threshold and os.path.isfile(path):
        streamed = StreamedEvalSet.scan(path, report=report)
        if streamed is not None:
            return streamed
    return load_eval_set(path, report=report)
