"""The request bodies of the live-session routes (scoring a session, saving it as a golden case)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["LiveSaveBody", "LiveScoreBody"]


class _Body(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class LiveScoreBody(_Body):
    """``POST /api/live/sessions/{key}/score``: against an eval set (``appName`` + ``evalSetId``, optional
    ``caseId`` to name the case) with its metrics file or ``metrics``; without an eval set, reference-free
    ``metrics`` (a metrics file's JSON: ``{"criteria": {...}}`` or a list of metrics)."""

    app_name: str | None = None
    eval_set_id: str | None = None
    case_id: str | None = None
    metrics: Any = None


class LiveSaveBody(_Body):
    """``POST /api/live/sessions/{key}/save``: the eval set to add the session to as a golden case (created, in
    ADK's format, when it does not exist) and the case id (default: the session's eval id or ``trace_<id>``)."""

    app_name: str
    eval_set_id: str
    eval_id: str | None = None
