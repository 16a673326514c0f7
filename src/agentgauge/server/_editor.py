"""Unknown keys in the cases the editor (or ADK Web) saves: shown as warnings in a native eval set, refused in an ADK
file, whose models allow no unknown keys (``agentgauge validate`` applies the same rule to whole files)."""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException

from ..formats import KeyReport
from ..formats._unknown import unknown_case_keys
from ._state import ServerState

__all__ = ["case_keys", "key_report_json", "refuse_unknown_keys"]


def case_keys(state: ServerState, app: str, set_id: str, body: Any) -> KeyReport:
    """The unknown keys of a case sent for eval set ``set_id``, with that set's dialect."""
    return KeyReport(state.eval_sets.dialect(app, set_id), unknown_case_keys(body))


def key_report_json(report: KeyReport) -> dict[str, Any]:
    """``{"dialect", "blocking", "unknownKeys": [{"path", "key", "didYouMean"}]}``."""
    return {
        "dialect": report.dialect,
        "blocking": report.blocking,
        "unknownKeys": [key.as_json() for key in report.unknown],
    }


def refuse_unknown_keys(state: ServerState, app: str, set_id: str, body: Any) -> None:
    """Answer 422 naming every unknown key when ``set_id`` is an ADK file and the case has any."""
    report = case_keys(state, app, set_id, body)
    if report.blocking:
        listed = "; ".join(f"{key.path}: {key.message()}" for key in report.unknown)
        raise HTTPException(
            422, f"eval set {set_id!r} is an ADK file and ADK's models allow no unknown keys: {listed}; nothing saved"
        )
