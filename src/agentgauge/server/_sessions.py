"""Chat and eval-run sessions kept as JSON files, served in ADK's ``Session`` / ``Event`` shape."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from pydantic import Field

from .._util.fileio import atomic_write
from .._util.uuids import uuid4
from ..errors import NotFoundError
from ..model import EvalCase, GaugeModel, Invocation, Message, SessionInput
from ..model._base import empty_dict, empty_list
from ..storage import check_segment

__all__ = ["SESSION_DIR", "SessionStore", "StoredSession", "invocation_events", "session_to_adk", "session_to_case"]

SESSION_DIR = "sessions"
"""Folder under the server's data directory holding ``<app>/<userId>/<sessionId>.json``."""


class StoredSession(GaugeModel):
    """One session: the invocations it holds (a chat or one eval case run) and its state."""

    id: str
    app_name: str
    user_id: str
    state: dict[str, Any] = Field(default_factory=empty_dict)
    initial_state: dict[str, Any] = Field(default_factory=empty_dict)
    invocations: list[Invocation] = Field(default_factory=empty_list)
    eval_run: bool = False
    last_update_time: float = 0.0


def _event(event_id: str, invocation_id: str, author: str, content: dict[str, Any], ts: float) -> dict[str, Any]:
    return {
        "content": content,
        "invocationId": invocation_id,
        "author": author,
        "actions": {
            "stateDelta": {},
            "artifactDelta": {},
            "requestedAuthConfigs": {},
            "requestedToolConfirmations": {},
        },
        "id": event_id,
        "timestamp": ts,
    }


def _role(message: Message) -> str:
    return "model" if message.role == "assistant" else message.role


def invocation_events(inv: Invocation, author: str, *, include_user: bool = True) -> list[dict[str, Any]]:
    """One invocation as ADK events: the user message, each tool call and its response, intermediate texts, the
    final answer. Event ids derive from the invocation id, so the same invocation always gives the same events."""
    ts = inv.creation_timestamp or 0.0
    iid = inv.invocation_id or "invocation"
    events: list[dict[str, Any]] = []
    if include_user:
        events.append(
            _event(f"{iid}-user", iid, "user", {"role": "user", "parts": [{"text": inv.user_content.content}]}, ts)
        )
    for i, tool in enumerate(inv.tools):
        args = tool.arguments if isinstance(tool.arguments, dict) else {"value": tool.arguments}
        call = {"functionCall": {"id": tool.id, "name": tool.name, "args": args}}
        events.append(_event(f"{iid}-call{i}", iid, author, {"role": "model", "parts": [call]}, ts))
        if tool.result is not None:
            response = tool.result if isinstance(tool.result, dict) else {"result": tool.result}
            part = {"functionResponse": {"id": tool.id, "name": tool.name, "response": response}}
            events.append(_event(f"{iid}-resp{i}", iid, author, {"role": "user", "parts": [part]}, ts))
    for i, message in enumerate(inv.intermediate_responses):
        content = {"role": _role(message), "parts": [{"text": message.content}]}
        events.append(_event(f"{iid}-text{i}", iid, author, content, ts))
    if inv.final_response is not None:
        content = {"role": _role(inv.final_response), "parts": [{"text": inv.final_response.content}]}
        events.append(_event(f"{iid}-final", iid, author, content, ts))
    return events


def session_to_adk(session: StoredSession) -> dict[str, Any]:
    """The session as ADK's ``Session`` JSON (camelCase, as ``adk web`` serves it)."""
    events = [e for inv in session.invocations for e in invocation_events(inv, session.app_name)]
    return {
        "id": session.id,
        "appName": session.app_name,
        "userId": session.user_id,
        "state": session.state,
        "events": events,
        "lastUpdateTime": session.last_update_time,
    }


class SessionStore:
    """Sessions as files ``<base_dir>/<app>/<userId>/<sessionId>.json`` (the server passes
    ``<data_dir>/sessions``); every id is a checked path segment and every write atomic. One lock serialises
    read-modify-write cycles (they are short)."""

    def __init__(self, base_dir: Path) -> None:
        self.base_dir = Path(base_dir).absolute()
        self._lock = threading.RLock()

    def _path(self, app: str, user_id: str, session_id: str) -> Path:
        check_segment(app, "app name")
        check_segment(user_id, "user id")
        check_segment(session_id, "session id")
        return self.base_dir / app / user_id / f"{session_id}.json"

    def save(self, session: StoredSession) -> None:
        """Write ``session`` (creating its folders)."""
        path = self._path(session.app_name, session.user_id, session.id)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, session.model_dump_json(indent=1).encode(), durable=False)

    def create(
        self, app: str, user_id: str, session_id: str | None = None, state: dict[str, Any] | None = None
    ) -> StoredSession:
        """A new empty session (a random id unless one is given; an existing id is an error)."""
        from ..errors import InputError

        session = StoredSession(
            id=session_id or str(uuid4()),
            app_name=app,
            user_id=user_id,
            state=dict(state or {}),
            initial_state=dict(state or {}),
            last_update_time=time.time(),
        )
        with self._lock:
            if self._path(app, user_id, session.id).exists():
                raise InputError(f"session {session.id!r} already exists")
            self.save(session)
        return session

    def get(self, app: str, user_id: str, session_id: str) -> StoredSession:
        """The session; :class:`NotFoundError` when there is none."""
        path = self._path(app, user_id, session_id)
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            raise NotFoundError("Session not found") from None
        return StoredSession.model_validate_json(data)

    def list(self, app: str, user_id: str, *, include_eval_runs: bool = False) -> list[StoredSession]:
        """The user's sessions, oldest first (eval-run sessions only when asked for)."""
        folder = self._path(app, user_id, "x").parent
        found: list[StoredSession] = []
        try:
            names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
        except (FileNotFoundError, NotADirectoryError):
            return []
        for path in names:
            try:
                session = StoredSession.model_validate_json(path.read_bytes())
            except (OSError, ValueError):
                continue  # a damaged file hides one session, not the list
            if include_eval_runs or not session.eval_run:
                found.append(session)
        return sorted(found, key=lambda s: s.last_update_time)

    def delete(self, app: str, user_id: str, session_id: str) -> None:
        """Remove the session (nothing happens when there is none, as in ADK)."""
        path = self._path(app, user_id, session_id)
        with self._lock:
            path.unlink(missing_ok=True)

    def append(self, app: str, user_id: str, session_id: str, invocation: Invocation) -> StoredSession:
        """Add one finished invocation to a session and return the updated session."""
        with self._lock:
            session = self.get(app, user_id, session_id)
            session.invocations.append(invocation)
            session.last_update_time = time.time()
            self.save(session)
            return session


def session_to_case(session: StoredSession, eval_id: str) -> EvalCase:
    """An eval case whose expected conversation is what happened in the session (ADK's ``add-session``)."""
    conversation = [
        inv.model_copy(update={"duration": None, "model_duration": None, "tool_duration": None, "usage": None})
        for inv in session.invocations
    ]
    return EvalCase(
        eval_id=eval_id,
        conversation=conversation,
        session_input=SessionInput(app_name=session.app_name, user_id=session.user_id, state=session.initial_state),
        creation_timestamp=time.time(),
    )
