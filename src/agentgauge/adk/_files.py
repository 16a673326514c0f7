"""Eval files for the ADK drop-in and the pytest plugin: discovery, legacy rows, initial sessions, metric lookup."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import EvalSet, SessionInput

__all__ = [
    "EVAL_FILE_SUFFIXES",
    "find_eval_files",
    "is_legacy_file",
    "load_eval_file",
    "load_initial_session",
]

EVAL_FILE_SUFFIXES = (".test.json", ".evalset.json")


def find_eval_files(path: str | os.PathLike[str]) -> list[Path]:
    """``path`` itself when it is a file, else every ``*.test.json`` / ``*.evalset.json`` below it (sorted).

    Raises ``ValueError`` (ADK's message) when nothing is found.
    """
    root = Path(path)
    if root.is_file():
        return [root]
    found = (
        sorted(p for p in root.rglob("*") if p.is_file() and p.name.endswith(EVAL_FILE_SUFFIXES))
        if root.is_dir()
        else []
    )
    if not found:
        raise ValueError(f"No `*.test.json` eval files found in {os.fspath(path)}")
    return found


def is_legacy_file(path: Path) -> bool:
    """True for the pre-EvalSet ``.test.json`` form: a JSON list of ``{"query": ..., ...}`` rows."""
    try:
        data: Any = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, list) and all(isinstance(row, dict) and "query" in row for row in data) and bool(data)


def load_initial_session(path: str | os.PathLike[str]) -> SessionInput:
    """Read an ADK ``initial.session.json`` (``{"state": {...}, "app_name": ..., "user_id": ...}``)."""
    source = os.fspath(path)
    try:
        data: Any = json.loads(Path(path).read_bytes())
    except ValueError as exc:
        raise InputError(f"invalid JSON: {exc}", file=source) from None
    if not isinstance(data, dict):
        raise InputError("an initial session must be a JSON object", file=source)
    from ..formats import session_input_from_initial

    return session_input_from_initial(data, source)


def load_eval_file(
    path: str | os.PathLike[str],
    *,
    initial_session_file: str | os.PathLike[str] | None = None,
    path_as_legacy_id: bool = False,
) -> EvalSet:
    """Load an eval set file in any supported format.

    A legacy ``.test.json`` (list of rows) becomes one eval case whose session starts from ``initial_session_file``
    when given; with ``path_as_legacy_id`` its id is the file path as given (what ADK reports), else the file name
    without ``.test.json``. Passing an initial session for a new-schema file raises
    ``AssertionError`` as ADK does: the session belongs in the eval set.
    """
    from ..formats import load_eval_set

    file = Path(path)
    eval_set = load_eval_set(file)
    if not is_legacy_file(file):
        if initial_session_file is not None:
            raise AssertionError(
                "Initial session should be specified as a part of EvalSet file."
                " Explicit initial session is only needed, when specifying data in the older schema."
            )
        return eval_set
    session = load_initial_session(initial_session_file) if initial_session_file else None
    cases = [
        case.model_copy(
            update={
                "eval_id": os.fspath(path) if path_as_legacy_id else case.eval_id,
                "session_input": session or case.session_input,
            }
        )
        for case in eval_set.eval_cases
    ]
    return eval_set.model_copy(update={"eval_cases": cases})
