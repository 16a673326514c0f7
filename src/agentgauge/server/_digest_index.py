"""The result digests kept on disk between two runs of the server, so that a restart does not read every result file
again: ``<data-dir>/cache/result-digests.json``.

Each entry is the digest of one result file (:class:`~agentgauge.server._digest.ResultDigest`, its stored fields)
with the version of the file it was made from: inode, size and modification time, as the server's memo keys it. An
entry is used only while its file still has that version, so a result rewritten, replaced or removed since is read
again. The index is written atomically by the server (after its warm-up and when it stops, when digests were made
meanwhile); an index written by another version of agentgauge, or one that does not read, is ignored and replaced.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .._util.fileio import atomic_write
from .._util.version import VERSION
from ..formats._jsonio import gc_paused
from ..model import CaseStatusRule, EvalStatus, RunMetadata
from ._cache import FileKey, file_key
from ._digest import CaseRun, ResultDigest, assemble_digest

__all__ = ["INDEX_FILE", "DigestIndex", "IndexedDigest", "load_index", "save_index"]

INDEX_FILE = Path("cache") / "result-digests.json"
"""Where the index is kept, under the server's data directory."""

FORMAT = 4
"""The index's own format: raised when what a digest holds changes, so an older index is not read."""

_Metric = tuple[str, float | None, EvalStatus, float, str | None]
"""A metric outcome as stored: name, score, status, threshold, reducer."""
_Run = tuple[str, int, EvalStatus, str | None, str | None, int, str, tuple[_Metric, ...], str]
"""A :class:`CaseRun` as stored: id, run id, status, error message, reason, turns, first user message, metrics,
searched words."""


class IndexedDigest(BaseModel):
    """The digest of one result file as stored, with the version ``key`` of the file it was made from."""

    model_config = ConfigDict(frozen=True, ser_json_inf_nan="constants")  # a NaN score reads back as NaN

    key: tuple[int, int, int]
    eval_set_id: str
    timestamp: float | None
    overall_status: str | None
    num_runs: int
    interrupted: bool
    cancelled: bool
    run_metadata: dict[str, Any] | None
    runs: list[_Run]
    rule: CaseStatusRule
    case_status: dict[str, EvalStatus]
    not_run: list[tuple[str, str]] = []

    @classmethod
    def of(cls, key: FileKey, digest: ResultDigest) -> IndexedDigest:
        """The stored form of ``digest``."""
        meta = digest.run_metadata
        return cls(
            key=key,
            eval_set_id=digest.eval_set_id,
            timestamp=digest.timestamp,
            overall_status=digest.overall_status,
            num_runs=digest.num_runs,
            interrupted=digest.interrupted,
            cancelled=digest.cancelled,
            run_metadata=None if meta is None else meta.model_dump(mode="json"),
            runs=[tuple(run) for run in digest.runs],  # a CaseRun is that tuple
            rule=digest.rule,
            case_status=digest.case_status,
            not_run=list(digest.not_run),
        )

    def digest(self) -> ResultDigest:
        """The digest again (the same as the one stored)."""
        meta = self.run_metadata
        return assemble_digest(
            eval_set_id=self.eval_set_id,
            timestamp=self.timestamp,
            overall_status=self.overall_status,
            num_runs=self.num_runs,
            interrupted=self.interrupted,
            cancelled=self.cancelled,
            run_metadata=None if meta is None else RunMetadata.model_validate(meta),
            runs=tuple([CaseRun(*run) for run in self.runs]),
            rule=self.rule,
            case_status=self.case_status,  # decided when the digest was made: not again
            not_run=tuple(self.not_run),
        )


class DigestIndex(BaseModel):
    """The index file: its format, the agentgauge version that wrote it and the digests by file path."""

    model_config = ConfigDict(ser_json_inf_nan="constants")

    format: int
    agentgauge: str
    files: dict[str, IndexedDigest]


def load_index(path: Path) -> dict[str, tuple[FileKey, ResultDigest]]:
    """The digests of the index at ``path`` whose file still has the version they were made from, by file path;
    ``{}`` when there is no index or it cannot be used (any version but this one's, a damaged file)."""
    found: dict[str, tuple[FileKey, ResultDigest]] = {}
    # Many small tuples are made: the cyclic collector would rescan them all many times over (none is cyclic).
    with gc_paused():
        try:
            index = DigestIndex.model_validate_json(path.read_bytes())
        except (OSError, ValueError, ValidationError):
            return found
        if index.format != FORMAT or index.agentgauge != VERSION:
            return found
        for name, entry in index.files.items():
            if file_key(Path(name)) == entry.key:
                found[name] = (entry.key, entry.digest())
    return found


def save_index(path: Path, entries: list[tuple[str, FileKey, ResultDigest]]) -> None:
    """Write the index of ``entries`` (file path, version key, digest) to ``path`` atomically, leaving out files
    that changed or went away since their digest was made."""
    with gc_paused():  # as in load_index: many small objects, none cyclic
        files = {name: IndexedDigest.of(key, digest) for name, key, digest in entries if file_key(Path(name)) == key}
        data = DigestIndex(format=FORMAT, agentgauge=VERSION, files=files).model_dump_json().encode("utf-8")
    # A cache, cheap to make again: no fsync (a crash leaves the old index or none, never a torn one).
    atomic_write(os.fspath(path), data, durable=False)
