"""Human labels on files: a user's ``LABELS.jsonl`` and the sidecar ``<result id>.labels.jsonl`` beside a result.

Both are JSON Lines, one :class:`~agentgauge.model.HumanLabel` object per line (camelCase or snake_case keys; blank
lines are skipped). The sidecar is changed only while holding its lock and is replaced atomically, so a crash
leaves the old labels or the new ones, never half a line; the result file itself is never touched (ADK and every
other reader keep reading it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import ValidationError

from .._util.fileio import atomic_write
from ..errors import InputError
from ..model import HumanLabel
from ._locator import RESULT_SUFFIX
from ._lock import file_lock

__all__ = ["LABELS_SUFFIX", "LabelFile", "dump_labels", "labels_path_for", "parse_labels", "read_labels"]

LABELS_SUFFIX = ".labels.jsonl"
"""The suffix of a result's sidecar labels file, ``<result id>.labels.jsonl`` beside the result file."""


def labels_path_for(result_path: str | os.PathLike[str]) -> Path:
    """The sidecar labels file of a result file (``x.evalset_result.json`` → ``x.labels.jsonl``; any other name
    gets the suffix appended to its stem)."""
    path = Path(result_path)
    name = path.name
    stem = name[: -len(RESULT_SUFFIX)] if name.endswith(RESULT_SUFFIX) else path.stem
    return path.with_name(stem + LABELS_SUFFIX)


def parse_labels(data: bytes, source: str) -> list[HumanLabel]:
    """The labels of JSON Lines ``data``; the first bad line is an :class:`InputError` naming ``source``, the line
    and the JSON path (``LABELS.jsonl: line 3.verdict: input should be 'agree', ...``)."""
    import orjson

    from ..formats._jsonexact import loads
    from ..formats._jsonio import check_depth, validation_error

    labels: list[HumanLabel] = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            doc = loads(line.removeprefix(b"\xef\xbb\xbf"))
        except orjson.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=source, location=where) from None
        if not isinstance(doc, dict):
            raise InputError("expected a JSON object (one label per line)", file=source, location=where)
        check_depth(doc, source, where)  # a verdict nested 1,000 deep would take the validator's message down
        try:
            labels.append(HumanLabel.model_validate(doc))
        except ValidationError as exc:
            raise validation_error(exc, source, where) from None
    return labels


def read_labels(path: str | os.PathLike[str]) -> list[HumanLabel]:
    """The labels of a JSON Lines file (see :func:`parse_labels`); a missing file is an :class:`InputError`."""
    from ..formats._jsonio import read_bytes

    return parse_labels(read_bytes(path), os.fspath(path))


def dump_labels(labels: Iterable[HumanLabel]) -> bytes:
    """JSON Lines of ``labels`` (camelCase, empty fields left out)."""
    return b"".join(label.model_dump_json(by_alias=True).encode() + b"\n" for label in labels)


class LabelFile:
    """The sidecar labels of one result file: read, add or replace (one label per :attr:`HumanLabel.key`), delete."""

    def __init__(self, result_path: str | os.PathLike[str]) -> None:
        self.path = labels_path_for(result_path)

    def read(self) -> list[HumanLabel]:
        """Every stored label, oldest first (none when the file does not exist)."""
        if not self.path.is_file():
            return []
        return read_labels(self.path)

    def put(self, label: HumanLabel) -> list[HumanLabel]:
        """Store ``label``, replacing the one with the same key; returns every label now stored."""
        with file_lock(self.path):
            kept = [old for old in self.read() if old.key != label.key]
            kept.append(label)
            atomic_write(self.path, dump_labels(kept))
            return kept

    def delete(self, matches: Callable[[HumanLabel], bool]) -> int:
        """Remove the labels ``matches`` accepts; returns how many were removed."""
        with file_lock(self.path):
            stored = self.read()
            kept = [label for label in stored if not matches(label)]
            if len(kept) != len(stored):
                atomic_write(self.path, dump_labels(kept))
            return len(stored) - len(kept)
