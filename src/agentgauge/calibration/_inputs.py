"""The results ``agentgauge calibrate`` reads: one result file, or every result file under a folder, each with the
labels stored beside it."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import InputError
from ..storage import RESULT_SUFFIX, LabelFile
from ..storage._lock import LOCK_DIR_NAME
from ._compute import LabelledResult

__all__ = ["load_labelled_results"]


def load_labelled_results(path: str | os.PathLike[str]) -> list[LabelledResult]:
    """The result file ``path`` (native, trpc or ADK) with its sidecar labels, or every ``*.evalset_result.json``
    under the folder ``path`` (sorted by path). A folder without result files is an :class:`InputError`."""
    from ..formats import load_result

    root = Path(path)
    if root.is_dir():
        files = sorted(p for p in root.rglob(f"*{RESULT_SUFFIX}") if LOCK_DIR_NAME not in p.parts and p.is_file())
        if not files:
            raise InputError(f"no result files (*{RESULT_SUFFIX}) in this folder", file=os.fspath(root))
    else:
        files = [root]
    found: list[LabelledResult] = []
    for file in files:
        result = load_result(file)
        found.append(LabelledResult(result, LabelFile(file).read(), os.fspath(file)))
    return found
