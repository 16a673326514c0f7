"""``/api/live``: the sessions received by the OTLP receiver (``serve --otlp``) as they arrive — list, one
session's turns, a server-sent event stream of updates — and scoring or saving a session (:mod:`._live_score`)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from fastapi.responses import JSONResponse, StreamingResponse

from ..errors import NotFoundError
from ._deps import StateDep
from ._live_bodies import LiveSaveBody, LiveScoreBody
from ._live_hub import LiveDep, LiveHub, OptionalLiveDep

__all__ = ["LiveSaveBody", "LiveScoreBody", "router"]

router = APIRouter(tags=["Live sessions"])
"""The live-session routes (mounted under ``/api``)."""

_KEEPALIVE_SECONDS = 15.0


@router.get("/live/sessions")
def list_live_sessions(hub: LiveDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> JSONResponse:
    """The received sessions, most recently updated first (``limit`` of them): key, session id, traces, turn,
    tool-call and token counts, duration, whether every trace has ended. Costs the rows shown: each is kept as
    its session's traces change, and no received file is read."""
    rows = [hub.summary(s.key) for s in hub.store.sessions(limit)]
    return JSONResponse({"sessions": rows})


@router.get("/live/sessions/{session_key}")
def get_live_session(session_key: str, hub: LiveDep) -> JSONResponse:
    """One session with its turns: user text, answer, tool calls (arguments, results), tokens and duration."""
    return JSONResponse(hub.detail(session_key))


@router.get("/live/events")
async def live_events(hub: OptionalLiveDep, state: StateDep) -> StreamingResponse:
    """Server-sent events: ``hello`` first (``{"otlp"}``: whether sessions are received, ``serve --otlp``);
    ``results`` (``{"appName", "version"}``) whenever a result of the app is added, replaced or removed anywhere the
    server reads results (an ``agentgauge eval`` run, the server's own runs; checked every second); with ``--otlp``,
    ``session`` (a session's row, sent for every session on connect and again whenever new spans or log records
    change it) and ``removed`` (``{"key"}``: a session no longer listed — a trace that was its own session until a
    later span named its session id, or the oldest beyond the listing limit). A comment line every 15 s keeps
    proxies from closing the stream."""

    async def stream() -> AsyncIterator[str]:
        sent = _Sent()
        seen = await asyncio.to_thread(state.watch.versions)
        yield _event("hello", {"otlp": hub is not None})
        quiet_since = -_KEEPALIVE_SECONDS
        while True:
            if hub is not None:
                for kind, event in await asyncio.to_thread(_changed_rows, hub, sent):
                    yield _event(kind, event)
            for app, version in (await asyncio.to_thread(state.watch.versions)).items():
                if seen.get(app) != version:
                    seen[app] = version
                    yield _event("results", {"appName": app, "version": version})
            if time.monotonic() - quiet_since >= _KEEPALIVE_SECONDS:
                quiet_since = time.monotonic()
                yield ": keep-alive\n\n"
            if hub is None:
                await asyncio.sleep(state.watch.interval)
            else:
                await hub.wait(state.watch.interval)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data)}\n\n"


class _Sent:
    """What one event stream has sent: each session's version, and the store's change number it is up to."""

    def __init__(self) -> None:
        self.versions: dict[str, int] = {}
        self.number = 0


def _changed_rows(hub: LiveHub, sent: _Sent) -> list[tuple[str, dict[str, Any]]]:
    """The events a stream has to send now (``sent`` is updated): the rows of the sessions changed since it last
    looked (oldest first: a client appending rows keeps their order) and the removed keys it had sent. Costs
    what changed; only when more changed than the store remembers is the whole list compared."""
    changes = hub.store.changes(sent.number)
    sessions, removed = changes.sessions, changes.removed
    if not changes.complete:
        sessions = hub.store.sessions()
        current = {s.key for s in sessions}
        removed = [key for key in sent.versions if key not in current]
    events: list[tuple[str, dict[str, Any]]] = []
    for key in removed:
        if sent.versions.pop(key, None) is not None:
            events.append(("removed", {"key": key}))
    for session in reversed(sessions):
        if sent.versions.get(session.key) != session.version:
            sent.versions[session.key] = session.version
            try:
                events.append(("session", hub.summary(session.key)))
            except NotFoundError:  # forgotten meanwhile: the next look reports it removed
                sent.versions.pop(session.key, None)
    sent.number = changes.number
    return events


@router.post("/live/sessions/{session_key}/score")
async def score_live_session(
    session_key: str, hub: LiveDep, state: StateDep, body: Annotated[LiveScoreBody | None, Body()] = None
) -> JSONResponse:
    """Score the session as ``eval --traces`` would: against an eval set (the session paired with a case by the
    ``agentgauge.eval_id`` attribute, the session id, the first user message, or ``caseId``) or with reference-free
    metrics. The result is saved with the server's results; the answer lists each case's metric scores."""
    from ._live_score import score_session

    return JSONResponse(await score_session(state, hub, session_key, body or LiveScoreBody()))


@router.post("/live/sessions/{session_key}/save")
async def save_live_session(session_key: str, hub: LiveDep, state: StateDep, body: LiveSaveBody) -> JSONResponse:
    """Save the session's conversation as a golden case of an eval set, written in that set's own format. The case
    id ``evalId`` is one path segment, as every id a request names (400 naming it otherwise)."""
    from ..storage import check_segment
    from ._live_score import save_session

    if body.eval_id is not None:
        check_segment(body.eval_id, "eval case id")
    return JSONResponse(await asyncio.to_thread(save_session, state, hub, session_key, body))
