"""Traces received live, grouped into sessions as ``eval --traces --by-session`` groups them: the spans of traces
sharing a session id (``gen_ai.conversation.id``, ADK's ``gcp.vertex.agent.session_id``, ``session.id``) form one
session, a trace without one is a session of its own.

Every export request is appended to OTLP JSONL files first (:class:`~._live_files.ReceivedFiles`), so a restart
loses nothing: the store rebuilds its index from them. Memory stays bounded: the spans of at most
``max_live_sessions`` sessions and ``max_cached_spans`` spans are kept (least recently updated sessions are dropped
first, their spans read back from the files when asked for), and at most ``max_listed_sessions`` sessions are
listed (older ones stay on disk for ``eval --traces``).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, NotFoundError
from ._cases import merge_by_session
from ._extract import TraceConversation, extract_conversation, is_genai_trace
from ._live_files import DEFAULT_FILE_BYTES, ReceivedFiles
from ._otlp_logs import LOG_RECORD, merge_log_records
from ._otlp_payload import Signal, payload_spans
from ._spans import Span, build_traces

__all__ = ["SESSION_ATTRIBUTES", "LiveSession", "LiveStore", "trace_conversation"]

SESSION_ATTRIBUTES = ("gen_ai.conversation.id", "gcp.vertex.agent.session_id", "session.id")
"""Span attributes naming the session a trace belongs to (the first found wins), as trace extraction reads them."""


@dataclass
class LiveSession:
    """One live session: the traces it holds and what is known of it without reading its spans.

    ``key`` is the session id, else the id of its only trace; ``spans`` maps trace id to its spans (and log-record
    marker spans), ``None`` once dropped from memory; ``ended`` is true when every trace has its root span (a
    root span ends, and so is exported, last). ``trace_stamps`` changes for a trace whenever spans of it arrive
    (a number never used before in the store), so what was read from a trace can be kept until it changes."""

    key: str
    session_id: str
    trace_ids: list[str] = field(default_factory=list)
    spans: dict[str, list[Span]] | None = field(default_factory=dict)
    rooted: set[str] = field(default_factory=set)
    span_count: int = 0
    received: float = 0.0
    version: int = 0
    trace_stamps: dict[str, int] = field(default_factory=dict)

    @property
    def ended(self) -> bool:
        """Every trace of the session has its root span."""
        return bool(self.trace_ids) and all(t in self.rooted for t in self.trace_ids)


def span_session_id(span: Span) -> str:
    """The session id a span carries (see :data:`SESSION_ATTRIBUTES`), else ``""``."""
    for key in SESSION_ATTRIBUTES:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


class LiveStore:
    """Received OTLP data under ``folder``: appended to files, indexed by session, a bounded part in memory.

    ``listener`` (optional) is called with the keys of the sessions each request changed (from the receiving
    thread)."""

    def __init__(
        self,
        folder: Path,
        *,
        max_live_sessions: int = 100,
        max_cached_spans: int = 50_000,
        max_listed_sessions: int = 10_000,
        max_file_bytes: int = DEFAULT_FILE_BYTES,
    ) -> None:
        self.files = ReceivedFiles(folder, max_file_bytes=max_file_bytes)
        self.max_live_sessions = max_live_sessions
        self.max_cached_spans = max_cached_spans
        self.max_listed_sessions = max_listed_sessions
        self.listeners: list[Callable[[list[str]], None]] = []
        self._sessions: OrderedDict[str, LiveSession] = OrderedDict()  # least recently updated first
        self._trace_key: dict[str, str] = {}
        self._cached = 0
        self._stamp = 0
        self._lock = threading.RLock()
        for place, doc in self.files.documents():  # a restart picks up what was received before
            try:
                self._add(payload_spans(doc, place), time.time())
            except InputError:
                continue  # a damaged line hides its own spans, not the rest

    # --- receiving --------------------------------------------------------------------------------------------

    def receive(self, document: dict[str, Any], signal: Signal) -> list[str]:
        """Store one export document (OTLP JSON, see :func:`~._otlp_payload.export_document`): append it to the
        files, then index its spans. Returns the keys of the sessions it changed. Registered secrets (API keys
        agentgauge knows of) are masked before anything is stored."""
        from .._util.redact import redact_bytes, registered_secrets

        if registered_secrets():  # an agent may record its key in a span attribute or a logged request
            import orjson

            document = orjson.loads(redact_bytes(orjson.dumps(document)))
        spans = payload_spans(document, str(self.files.folder))
        if not spans:  # an empty request (exporters send them) or records outside any span
            return []
        path = self.files.append(document)
        for span in spans:
            span.source = str(path)
        with self._lock:
            changed = self._add(spans, time.time())
        for listener in list(self.listeners):
            listener(changed)
        return changed

    def _add(self, spans: list[Span], now: float) -> list[str]:
        by_trace: dict[str, list[Span]] = {}
        for span in spans:
            by_trace.setdefault(span.trace_id, []).append(span)
        changed: list[str] = []
        for trace_id, trace_spans in by_trace.items():
            session = self._session_for(trace_id, trace_spans)
            if trace_id not in session.trace_stamps:
                session.trace_ids.append(trace_id)
            self._stamp += 1
            session.trace_stamps[trace_id] = self._stamp
            if session.spans is not None:
                session.spans.setdefault(trace_id, []).extend(trace_spans)
                self._cached += len(trace_spans)
            if any(not s.parent_id and s.name != LOG_RECORD for s in trace_spans):
                session.rooted.add(trace_id)
            session.span_count += len(trace_spans)
            session.received = now
            session.version += 1
            self._sessions.move_to_end(session.key)
            if session.key not in changed:
                changed.append(session.key)
        self._bound()
        return changed

    def _session_for(self, trace_id: str, spans: list[Span]) -> LiveSession:
        """The session a trace's spans go to: its session id's (moving the trace there when it was alone so
        far), else the one it is already in, else a new one keyed by the trace id."""
        session_id = next((found for s in spans if (found := span_session_id(s))), "")
        current = self._trace_key.get(trace_id)
        if session_id and current != session_id:
            target = self._sessions.get(session_id) or self._new(session_id, session_id)
            if current is not None and current in self._sessions:
                self._merge(self._sessions.pop(current), target)
            self._trace_key[trace_id] = session_id
            return target
        if current is not None and current in self._sessions:
            return self._sessions[current]
        self._trace_key[trace_id] = trace_id
        return self._new(trace_id, "")

    def _new(self, key: str, session_id: str) -> LiveSession:
        session = LiveSession(key, session_id)
        self._sessions[key] = session
        return session

    def _merge(self, old: LiveSession, target: LiveSession) -> None:
        for trace_id in old.trace_ids:
            self._trace_key[trace_id] = target.key
            if trace_id not in target.trace_stamps:
                target.trace_ids.append(trace_id)
        target.trace_stamps.update(old.trace_stamps)
        target.rooted |= old.rooted
        target.span_count += old.span_count
        if old.spans is None or target.spans is None:
            self._cached -= sum(len(v) for v in (old.spans or {}).values())
            self._cached -= sum(len(v) for v in (target.spans or {}).values())
            target.spans = None  # part of it is on disk only: read back whole when asked for
            return
        for trace_id, spans in old.spans.items():
            target.spans.setdefault(trace_id, []).extend(spans)

    def _bound(self) -> None:
        """Drop the spans of the least recently updated sessions beyond the limits, then forget the oldest
        sessions beyond the listing limit (their data stays in the files)."""
        live = [s for s in self._sessions.values() if s.spans is not None]
        for session in live:
            if len(live) <= self.max_live_sessions and self._cached <= self.max_cached_spans:
                break
            if session is next(reversed(self._sessions.values())):
                break  # the session just updated stays, whatever its size
            self._cached -= sum(len(v) for v in (session.spans or {}).values())
            session.spans = None
            live.remove(session)
        while len(self._sessions) > self.max_listed_sessions:
            _, gone = self._sessions.popitem(last=False)
            self._cached -= sum(len(v) for v in (gone.spans or {}).values())
            for trace_id in gone.trace_ids:
                self._trace_key.pop(trace_id, None)

    # --- reading ----------------------------------------------------------------------------------------------

    @property
    def cached_spans(self) -> int:
        """How many spans are held in memory now."""
        return self._cached

    def sessions(self) -> list[LiveSession]:
        """The listed sessions, most recently updated first."""
        with self._lock:
            return list(reversed(self._sessions.values()))

    def session(self, key: str) -> LiveSession:
        """A session by key; :class:`~agentgauge.errors.NotFoundError` when unknown."""
        with self._lock:
            found = self._sessions.get(key)
        if found is None:
            raise NotFoundError(f"live session {key!r} not found")
        return found

    def stamps(self, key: str) -> list[tuple[str, int]]:
        """``(trace id, stamp)`` of each trace of a session, in the order the traces arrived (see
        :attr:`LiveSession.trace_stamps`)."""
        session = self.session(key)
        with self._lock:
            return [(trace_id, session.trace_stamps.get(trace_id, 0)) for trace_id in session.trace_ids]

    def trace_spans(self, key: str, trace_ids: Iterable[str] | None = None) -> dict[str, list[Span]]:
        """Fresh copies of the spans (log records still as marker spans) of a session's traces (``trace_ids``, else
        all), by trace id in arrival order, from memory or read back from the files in one pass; callers may link
        and change them."""
        session = self.session(key)
        wanted = list(session.trace_ids if trace_ids is None else trace_ids)
        with self._lock:
            held = None if session.spans is None else {t: list(session.spans.get(t, ())) for t in wanted}
        if held is None:
            held = {t: [] for t in wanted}
            for place, doc in self.files.documents():
                for span in _spans_of(doc, place, held):
                    held[span.trace_id].append(span)
        return {
            trace_id: [dataclasses.replace(s, events=list(s.events), parent=None, children=[]) for s in spans]
            for trace_id, spans in held.items()
        }

    def spans(self, key: str) -> list[Span]:
        """Fresh copies of a session's spans (log records still as marker spans), from memory or read back from
        the files; callers may link and change them."""
        return [span for spans in self.trace_spans(key).values() for span in spans]

    def conversations(self, key: str) -> tuple[list[TraceConversation], list[str], list[Span]]:
        """The session's conversation (as ``eval --traces --by-session`` extracts it), notes on what could not
        be read (traces without GenAI spans, content capture off) and its spans (log records merged in)."""
        source = str(self.files.folder)
        found: list[TraceConversation] = []
        notes: list[str] = []
        merged: list[Span] = []
        for spans in self.trace_spans(key).values():
            conversation, trace_notes, trace_spans = trace_conversation(spans, source)
            found.extend([conversation] if conversation is not None else [])
            notes.extend(trace_notes)
            merged.extend(trace_spans)
        if not merged:
            return [], ["only log records received so far"], []
        return merge_by_session(found), notes, merged


def trace_conversation(spans: list[Span], source: str) -> tuple[TraceConversation | None, list[str], list[Span]]:
    """One trace's conversation from its spans (log records merged in first; the spans are linked and changed),
    the notes on what could not be read, and the spans. ``(None, [], [])`` for log records only: their spans have
    not arrived yet. A session's traces are read one at a time, so a live view re-reads only the trace that
    changed."""
    if not any(s.name != LOG_RECORD for s in spans):
        return None, [], []
    spans = merge_log_records(spans, source)
    [trace] = build_traces(spans)
    if not is_genai_trace(trace):
        return None, [f"trace {trace.trace_id}: no agent, LLM or tool spans"], spans
    try:
        return extract_conversation(trace), [], spans
    except InputError as exc:
        return None, [str(exc)], spans


def _spans_of(doc: dict[str, Any], place: str, wanted: Iterable[str]) -> list[Span]:
    wanted = set(wanted)
    try:
        return [s for s in payload_spans(doc, place) if s.trace_id in wanted]
    except InputError:
        return []
