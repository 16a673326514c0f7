"""Result selectors: how every command that reads a result names it, and the one resolver of those names.

A selector is one of

- ``FILE``: a result file (native, trpc-agent-go or ADK); a name that exists on disk, or that looks like a path
  (holds ``/`` or ``\\``, or ends with ``.json``) and does not, which is an unknown file;
- a result id, looked up in a :class:`ResultCatalog` (the result files under a folder, a SQL store, the web
  server's results);
- ``label:KEY=VALUE[,KEY=VALUE...]``: the newest result whose run has every one of those labels;
- ``latest``: the newest result.

``label:`` and ``latest`` pick the newest match in the catalog, of one eval set when the caller knows which (the
other side of a comparison, the eval set ``eval --baseline`` has just run) and never one of the results the caller
excludes (that other side, the result just made). Every failure is one :class:`~agentgauge.errors.InputError` /
:class:`~agentgauge.errors.NotFoundError` line naming the selector and why.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import InputError, NotFoundError
from ._locator import RESULT_SUFFIX
from ._lock import LOCK_DIR_NAME

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalSetResult

__all__ = [
    "LABEL_SELECTOR",
    "LATEST_SELECTOR",
    "FoundResult",
    "ResultCatalog",
    "ResultFiles",
    "ResultSelector",
    "SelectorKind",
    "Wanted",
    "parse_result_selector",
    "resolve_pair",
    "resolve_result",
]

LABEL_SELECTOR = "label:"
"""The prefix of a selector by labels: ``label:KEY=VALUE[,KEY=VALUE...]`` (every label must match)."""
LATEST_SELECTOR = "latest"
"""The selector of the newest result."""


class SelectorKind(StrEnum):
    """What a selector names a result by."""

    FILE = "file"
    ID = "id"
    LABELS = "labels"
    LATEST = "latest"


@dataclass(frozen=True)
class ResultSelector:
    """A parsed selector: its text as given, its kind and, for ``label:``, the labels."""

    text: str
    kind: SelectorKind
    labels: dict[str, str] = field(default_factory=dict)

    @property
    def picks_newest(self) -> bool:
        """Whether the selector picks the newest match (``label:`` and ``latest``), not one named result."""
        return self.kind in (SelectorKind.LABELS, SelectorKind.LATEST)


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.endswith(".json")


def parse_result_selector(text: str, *, files: bool = True) -> ResultSelector:
    """The selector ``text`` (an existing file or folder always wins over the other forms); :class:`InputError`
    names a bad ``label:`` selector. ``files=False`` (a selector from outside, e.g. an HTTP request): never a
    file, whatever is on disk; a name that is not ``label:`` or ``latest`` is an id."""
    if not text.strip():
        raise InputError("an empty result name: give a result file, a result id, label:KEY=VALUE or latest")
    if files and Path(text).exists():
        return ResultSelector(text, SelectorKind.FILE)
    if text == LATEST_SELECTOR:
        return ResultSelector(text, SelectorKind.LATEST)
    if text.startswith(LABEL_SELECTOR):
        from ..model import parse_labels

        try:
            labels = parse_labels(part for part in text[len(LABEL_SELECTOR) :].split(",") if part)
        except ValueError as exc:
            raise InputError(f"{text!r}: {exc}") from None
        if not labels:
            raise InputError(f"{text!r}: no label given; expected {LABEL_SELECTOR}KEY=VALUE[,KEY=VALUE...]")
        return ResultSelector(text, SelectorKind.LABELS, labels)
    return ResultSelector(text, SelectorKind.FILE if files and _looks_like_path(text) else SelectorKind.ID)


@dataclass
class FoundResult:
    """A result a selector named: how to show where it came from, its file when it is one, and the result (read
    once, when first asked for)."""

    source: str
    """The file the result was read from, or its id in the catalog."""
    path: Path | None = None
    """The result file (``None``: a stored result)."""
    app_name: str | None = None
    """Its app, where the catalog knows it."""
    result: EvalSetResult | None = None

    def load(self) -> EvalSetResult:
        """The result (read from :attr:`path` the first time)."""
        if self.result is None:
            from ..formats import load_result

            assert self.path is not None, "a found result has a file or a result"
            self.result = load_result(self.path)
        return self.result


@dataclass(frozen=True)
class Wanted:
    """What the newest result picked must match."""

    labels: dict[str, str] = field(default_factory=dict)
    eval_set_id: str | None = None
    exclude: frozenset[str] = frozenset()
    """Result ids never picked (the other side of a comparison, the result just made)."""


class ResultCatalog(Protocol):
    """Where result ids are looked up and the newest result is picked from."""

    @property
    def where(self) -> str:
        """Where the catalog looks, for messages: ``under .agentgauge/results``, ``in store sqlite:///r.db``."""
        ...

    def by_id(self, result_id: str) -> FoundResult:
        """The result of this id; an :class:`InputError` / :class:`NotFoundError` naming it when there is none
        or several."""
        ...

    def newest(self, wanted: Wanted) -> FoundResult | None:
        """The newest result matching ``wanted`` (``None`` when none does)."""
        ...


def _describe(wanted: Wanted) -> str:
    """`` of eval set 'calc'`` and `` besides 'id'``: how a newest pick was limited, for a message."""
    scope = f" of eval set {wanted.eval_set_id!r}" if wanted.eval_set_id else ""
    if wanted.exclude:
        scope += " besides " + ", ".join(repr(i) for i in sorted(wanted.exclude))
    return scope


def resolve_result(
    text: str | ResultSelector, catalog: ResultCatalog, *, eval_set_id: str | None = None, exclude: Iterable[str] = ()
) -> FoundResult:
    """The result ``text`` selects. ``eval_set_id`` and ``exclude`` limit what ``label:`` and ``latest`` pick; a
    file or an id is taken as named. Failures are one line naming the selector."""
    selector = text if isinstance(text, ResultSelector) else parse_result_selector(text)
    if selector.kind is SelectorKind.FILE:
        path = Path(selector.text)
        if path.is_dir():
            raise InputError(f"{selector.text}: not a result file")
        if not path.exists():
            raise InputError(f"{selector.text}: no such file")
        return FoundResult(selector.text, path)  # a FIFO or an unreadable file: reading it says which
    if selector.kind is SelectorKind.ID:
        return catalog.by_id(selector.text)
    wanted = Wanted(selector.labels, eval_set_id, frozenset(exclude))
    found = catalog.newest(wanted)
    if found is None:
        what = " with these labels" if selector.kind is SelectorKind.LABELS else ""
        raise NotFoundError(f"{selector.text}: no result{_describe(wanted)}{what} {catalog.where}")
    return found


def resolve_pair(base: str, new: str, catalog: ResultCatalog, *, files: bool = True) -> tuple[FoundResult, FoundResult]:
    """The two results a comparison names. A side named by file or id is taken as named; a ``label:`` / ``latest``
    side picks among the results of the other side's eval set (``latest``: never the other side itself). With both
    sides picking, a ``label:`` side is picked first (BASE when both are), and ``latest`` twice is refused.
    ``files=False``: no side is a file (see :func:`parse_result_selector`)."""
    selectors = parse_result_selector(base, files=files), parse_result_selector(new, files=files)
    if all(s.kind is SelectorKind.LATEST for s in selectors):
        raise InputError("BASE and NEW are both 'latest': name one of them by file, id or label:KEY=VALUE")
    found: list[FoundResult | None] = [None, None]
    for index, selector in enumerate(selectors):
        if not selector.picks_newest:
            found[index] = resolve_result(selector, catalog)
    # The order of the picks: a label: side before a latest one, BASE before NEW.
    order = sorted((i for i in (0, 1) if found[i] is None), key=lambda i: selectors[i].kind is SelectorKind.LATEST)
    for index in order:
        side = found[1 - index]
        other = side.load() if side is not None else None
        exclude: tuple[str, ...] = ()
        if other is not None and selectors[index].kind is SelectorKind.LATEST and other.eval_set_result_id:
            exclude = (other.eval_set_result_id,)
        scope = other.eval_set_id if other is not None else None
        found[index] = resolve_result(selectors[index], catalog, eval_set_id=scope, exclude=exclude)
    before, after = found
    assert before is not None and after is not None
    return before, after


def _result_files(root: Path, app_name: str | None) -> list[Path]:
    """The result files under ``root`` (of the app folder ``app_name`` when given), newest first."""
    found = [
        p
        for p in root.rglob(f"*{RESULT_SUFFIX}")
        if LOCK_DIR_NAME not in p.parts and (app_name is None or p.parent.name == app_name) and p.is_file()
    ]
    return sorted(found, key=lambda p: (os.stat(p).st_mtime_ns, p.name), reverse=True)


@dataclass(frozen=True)
class ResultFiles:
    """The result files under a folder (``eval``'s ``--output-dir``: ``<root>/<app>/<id>.evalset_result.json``):
    ids looked up by file name, the newest by modification time. A file's app is the folder it is in."""

    root: Path
    app_name: str | None = None

    @property
    def where(self) -> str:
        """``under <root>``."""
        return f"under {self.root}"

    def by_id(self, result_id: str) -> FoundResult:
        """``<root>/<app>/<id>.evalset_result.json`` (or ``<root>/<id>...``); several apps with the id is an error
        naming them (``--app-name`` chooses)."""
        found: list[Path] = []
        if self.root.is_dir():
            apps = [self.app_name] if self.app_name else ["*"]
            found = [p for app in apps for p in sorted(self.root.glob(f"{app}/{result_id}{RESULT_SUFFIX}"))]
            if self.app_name is None:
                found += sorted(self.root.glob(f"{result_id}{RESULT_SUFFIX}"))
        if len(found) > 1:
            raise InputError(f"{result_id}: several results have this id: {', '.join(map(str, found))}")
        if not found:
            app = f" of app {self.app_name!r}" if self.app_name else ""
            raise InputError(f"{result_id}: no such file, and no result{app} with this id {self.where}")
        return FoundResult(str(found[0]), found[0], found[0].parent.name)

    def newest(self, wanted: Wanted) -> FoundResult | None:
        """The newest file matching ``wanted``, read newest first (a file that does not read is skipped: another
        command reports it)."""
        if not self.root.is_dir():
            return None
        files = _result_files(self.root, self.app_name)
        if not (wanted.labels or wanted.eval_set_id or wanted.exclude):
            return FoundResult(str(files[0]), files[0], files[0].parent.name) if files else None
        from ..formats import load_result

        for path in files:
            try:
                result = load_result(path)
            except InputError:
                continue
            metadata = result.run_metadata
            if wanted.eval_set_id and result.eval_set_id != wanted.eval_set_id:
                continue
            if result.eval_set_result_id in wanted.exclude:
                continue
            if wanted.labels and (metadata is None or not metadata.matches(wanted.labels)):
                continue
            return FoundResult(str(path), path, path.parent.name, result)
        return None
