"""Traces received live, grouped into sessions as ``eval --traces --by-session`` groups them: the spans of traces
sharing a session id (``gen_ai.conversation.id``, ADK's ``gcp.vertex.agent.session_id``, ``session.id``) form one
session, a trace without one is a session of its own.

Every export request is appended to OTLP JSONL files first (:class:`~._live_files.ReceivedFiles`), so a restart
loses nothing: the store rebuilds its index from them. What it holds is bounded:

- **memory, in bytes**: what it holds (spans and the index of sessions and traces) stays within
  ``max_memory_bytes``. The spans of the least recently updated traces are dropped first (whatever session they
  belong to, the one being updated included); a dropped trace is read back from the lines that hold it when it is
  opened, scored or receives more spans. The index (about 1 KiB a trace, 2 KiB a session) may take half the budget:
  beyond it the least recently updated sessions are forgotten, as beyond the listing limit;
- **listed sessions**: at most ``max_listed_sessions`` (older ones stay on disk for ``eval --traces``);
- **work per request**: indexing a request, dropping a trace and forgetting a session cost O(1) each; a session's
  summary (its row: turns, tokens, times) is folded from per-trace summaries (see :mod:`._live_summary`), each
  brought up to date from memory before its spans are dropped (and every one when the store starts), so listing
  sessions reads only the traces changed since and never a received file.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import InputError, NotFoundError
from ._extract import TraceConversation
from ._live_conversation import session_conversations, trace_conversation
from ._live_files import DEFAULT_FILE_BYTES, LineRef, ReceivedFiles
from ._live_session import LiveSession, LiveTrace, span_session_id
from ._live_summary import LISTED_TRACE_IDS, LISTED_WARNINGS, LiveSummary, summarize_trace
from ._otlp_logs import LOG_RECORD
from ._otlp_payload import Signal, check_document, payload_spans
from ._spans import Span

__all__ = ["DEFAULT_LIVE_MEMORY_BYTES", "LiveChanges", "LiveStore"]

DEFAULT_LIVE_MEMORY_BYTES = 256 * 1024 * 1024
"""How much memory the spans held by a live store may take (``serve --live-memory-mb``, default 256 MiB)."""

_SPAN_OVERHEAD = 1024  # bytes a decoded span takes beyond its share of the request's JSON (measured: ~850)
# What the index keeps without spans (its ids, lines, summary, row), measured on one-span traces: ~1.1 KiB a trace
# in one session, ~1.9 KiB a session of one trace (the trace's share included).
_TRACE_INDEX_BYTES = 1024
_SESSION_INDEX_BYTES = 1024


@dataclasses.dataclass(frozen=True, slots=True)
class LiveChanges:
    """What changed since a change number (:meth:`LiveStore.changes`): the ``sessions`` updated since (most recent
    first), the ``removed`` keys (a trace that joined its session, a session beyond the listing limit), the change
    number to ask from next time, and whether the answer is ``complete`` (``False``: more happened than is
    remembered, so a caller must compare the whole list)."""

    sessions: list[LiveSession]
    removed: list[str]
    number: int
    complete: bool


class LiveStore:
    """Received OTLP data under ``folder``: appended to files, indexed by session, a bounded part in memory.

    ``listener`` (optional) is called with the keys of the sessions each request changed (from the receiving
    thread)."""

    def __init__(
        self,
        folder: Path,
        *,
        max_memory_bytes: int = DEFAULT_LIVE_MEMORY_BYTES,
        max_listed_sessions: int = 10_000,
        max_file_bytes: int = DEFAULT_FILE_BYTES,
    ) -> None:
        self.files = ReceivedFiles(folder, max_file_bytes=max_file_bytes)
        self.max_memory_bytes = max_memory_bytes
        self.max_listed_sessions = max_listed_sessions
        self.listeners: list[Callable[[list[str]], None]] = []
        self._sessions: OrderedDict[str, LiveSession] = OrderedDict()  # least recently updated first
        self._trace_key: dict[str, str] = {}
        self._held: OrderedDict[str, LiveTrace] = OrderedDict()  # traces whose spans are in memory, LRU first
        self._memory = 0  # the held spans (estimated bytes)
        self._index_memory = 0  # the index of sessions and traces (estimated bytes)
        self._stamp = 0  # trace stamps and change numbers (one sequence: each number is used once)
        self._removed: deque[tuple[int, str]] = deque(maxlen=max(1, max_listed_sessions))
        self._forgot_up_to = 0  # the change number of the last removal no longer remembered
        self._lock = threading.RLock()
        for place, doc, ref in self.files.documents():  # a restart picks up what was received before
            try:
                spans = payload_spans(doc, place.rpartition(":")[0])
            except InputError:
                continue  # a damaged line hides its own spans, not the rest
            if spans:
                self._add(spans, ref, time.time())
        for session in self._sessions.values():  # read once now, so that listing after a restart reads nothing
            for trace_id in list(session.stale):
                self._summarize(session, session.traces[trace_id])

    # --- receiving --------------------------------------------------------------------------------------------

    def receive(self, document: dict[str, Any], signal: Signal, source: str | None = None) -> list[str]:
        """Store one export document (OTLP JSON, see :func:`~._otlp_payload.export_document`): check it, append it
        to the files, then index its spans. Returns the keys of the sessions it changed. Registered secrets (API
        keys agentgauge knows of) are masked before anything is stored. Errors name ``source`` (the request, e.g.
        ``/v1/traces``; default ``<OTLP traces export>``) and the JSON path: what is refused is never stored."""
        from .._util.redact import redact_bytes, registered_secrets

        source = source or f"<OTLP {signal} export>"
        check_document(document, source)
        if registered_secrets():  # an agent may record its key in a span attribute or a logged request
            import orjson

            document = orjson.loads(redact_bytes(orjson.dumps(document)))
        spans = payload_spans(document, source)
        if not spans:  # an empty request (exporters send them) or records outside any span
            return []
        ref = self.files.append(document)
        path = str(self.files.path(ref.file))
        for span in spans:
            span.source = path
        with self._lock:
            changed = self._add(spans, ref, time.time())
        for listener in list(self.listeners):
            listener(changed)
        return changed

    def _add(self, spans: list[Span], ref: LineRef, now: float) -> list[str]:
        by_trace: dict[str, list[Span]] = {}
        for span in spans:
            by_trace.setdefault(span.trace_id, []).append(span)
        share = ref.length / len(spans) + _SPAN_OVERHEAD
        changed: dict[str, None] = {}
        for trace_id, trace_spans in by_trace.items():
            session = self._session_for(trace_id, trace_spans)
            trace = session.traces.get(trace_id)
            if trace is None:
                trace = session.traces[trace_id] = LiveTrace(trace_id, len(session.traces))
                self._index_memory += _TRACE_INDEX_BYTES
            elif trace.spans is None:
                trace.spans = self._read_back([trace])[trace_id]  # whole again before it changes
                self._memory += trace.memory
            trace.spans.extend(trace_spans)  # type: ignore[union-attr]
            if not trace.lines or trace.lines[-1] != ref:
                trace.lines.append(ref)
            added = int(share * len(trace_spans))
            trace.memory += added
            self._memory += added
            self._held[trace_id] = trace
            self._held.move_to_end(trace_id)
            if not trace.rooted and any(not s.parent_id and s.name != LOG_RECORD for s in trace_spans):
                trace.rooted = True
                session.rooted += 1
            trace.span_count += len(trace_spans)
            session.span_count += len(trace_spans)
            self._stamp += 1
            trace.stamp = session.changed = self._stamp
            session.stale[trace_id] = None
            session.received = now
            session.version += 1
            self._sessions.move_to_end(session.key)
            changed[session.key] = None
        self._bound()
        return [key for key in changed if key in self._sessions]

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
        self._index_memory += _SESSION_INDEX_BYTES
        return session

    def _merge(self, old: LiveSession, target: LiveSession) -> None:
        """Move the traces of ``old`` (a trace that was its own session) into ``target``."""
        for trace in old.traces.values():
            self._trace_key[trace.trace_id] = target.key
            trace.index = len(target.traces)
            target.traces[trace.trace_id] = trace
            if trace.summary is not None:
                target.tally.replace(trace.index, trace.summary)
            if not trace.current:
                target.stale[trace.trace_id] = None
        target.rooted += old.rooted
        target.span_count += old.span_count
        self._index_memory -= _SESSION_INDEX_BYTES
        self._forgotten(old.key)

    def _forgotten(self, key: str) -> None:
        if len(self._removed) == self._removed.maxlen:
            self._forgot_up_to = self._removed[0][0]
        self._stamp += 1
        self._removed.append((self._stamp, key))

    def _bound(self) -> None:
        """Forget the oldest sessions beyond the listing limit or beyond half the memory budget for the index
        (their data stays in the files), then drop the spans of the least recently updated traces until what is
        held fits the budget, each trace's summary brought up to date first."""
        index_budget = self.max_memory_bytes // 2
        while len(self._sessions) > self.max_listed_sessions or (self._sessions and self._index_memory > index_budget):
            _, gone = self._sessions.popitem(last=False)
            for trace_id, trace in gone.traces.items():
                self._trace_key.pop(trace_id, None)
                if self._held.pop(trace_id, None) is not None:
                    self._memory -= trace.memory
            self._index_memory -= _SESSION_INDEX_BYTES + _TRACE_INDEX_BYTES * len(gone.traces)
            self._forgotten(gone.key)
        while self._memory + self._index_memory > self.max_memory_bytes and self._held:
            trace_id, trace = self._held.popitem(last=False)
            session = self._sessions[self._trace_key[trace_id]]
            if not trace.current:
                self._summarize(session, trace)
            trace.spans = None
            self._memory -= trace.memory

    # --- summaries --------------------------------------------------------------------------------------------

    def _summarize(self, session: LiveSession, trace: LiveTrace) -> None:
        """Read ``trace`` (held, or read back from its lines) into its summary and fold that into the session."""
        spans = _copies(trace.spans) if trace.spans is not None else self._read_back([trace])[trace.trace_id]
        summary = summarize_trace(*trace_conversation(spans, str(self.files.folder)))
        trace.summary, trace.summary_stamp = summary, trace.stamp
        session.tally.replace(trace.index, summary)
        session.stale.pop(trace.trace_id, None)

    def summary(self, key: str) -> LiveSummary:
        """A session's row (see :class:`~._live_summary.LiveSummary`) as it is now: only its traces changed since
        last read are read again, and from memory (a trace's spans are dropped only once its summary is current),
        so no received file is read; made once per version of the session."""
        with self._lock:
            session = self._get(key)
            if session.summary is not None and session.summary.version == session.version:
                return session.summary
            for trace_id in list(session.stale):
                self._summarize(session, session.traces[trace_id])
            session.summary = _summary_of(session)
            return session.summary

    # --- reading ----------------------------------------------------------------------------------------------

    @property
    def held_memory(self) -> int:
        """The estimated memory (bytes) held now: spans and index, within ``max_memory_bytes`` after each request."""
        return self._memory + self._index_memory

    def sessions(self, limit: int | None = None) -> list[LiveSession]:
        """The listed sessions, most recently updated first (the first ``limit`` of them)."""
        with self._lock:
            return list(itertools.islice(reversed(self._sessions.values()), limit))

    def changes(self, since: int) -> LiveChanges:
        """What changed after change number ``since`` (``0``: everything); costs what changed."""
        with self._lock:
            changed = list(itertools.takewhile(lambda s: s.changed > since, reversed(self._sessions.values())))
            removed = [key for number, key in _after(self._removed, since) if key not in self._sessions]
            return LiveChanges(changed, removed, self._stamp, since >= self._forgot_up_to)

    def session(self, key: str) -> LiveSession:
        """A session by key; :class:`~agentgauge.errors.NotFoundError` when unknown."""
        with self._lock:
            return self._get(key)

    def _get(self, key: str) -> LiveSession:
        found = self._sessions.get(key)
        if found is None:
            raise NotFoundError(f"live session {key!r} not found")
        return found

    def stamps(self, key: str) -> list[tuple[str, int]]:
        """``(trace id, stamp)`` of each trace of a session, in the order the traces arrived (see
        :attr:`~._live_session.LiveTrace.stamp`)."""
        with self._lock:
            return [(trace_id, trace.stamp) for trace_id, trace in self._get(key).traces.items()]

    def trace_spans(self, key: str, trace_ids: Iterable[str] | None = None) -> dict[str, list[Span]]:
        """Fresh copies of the spans (log records still as marker spans) of a session's traces (``trace_ids``, else
        all), by trace id in arrival order, from memory or read back from the lines that hold them (each line
        once); callers may link and change them."""
        with self._lock:
            session = self._get(key)
            wanted = [session.traces[t] for t in (session.traces if trace_ids is None else trace_ids)]
            held = {t.trace_id: _copies(t.spans) for t in wanted if t.spans is not None}
            on_disk = [t for t in wanted if t.spans is None]
        if on_disk:
            held.update(self._read_back(on_disk))
        return {t.trace_id: held[t.trace_id] for t in wanted}

    def _read_back(self, traces: list[LiveTrace]) -> dict[str, list[Span]]:
        """The spans of ``traces`` read back from their lines (one pass, each line read once)."""
        found: dict[str, list[Span]] = {t.trace_id: [] for t in traces}
        for place, doc in self.files.read(ref for t in traces for ref in t.lines):
            try:
                spans = payload_spans(doc, place)
            except InputError:
                continue
            for span in spans:
                if span.trace_id in found:
                    found[span.trace_id].append(span)
        return found

    def spans(self, key: str) -> list[Span]:
        """Fresh copies of a session's spans (log records still as marker spans), from memory or read back from
        the files; callers may link and change them."""
        return [span for spans in self.trace_spans(key).values() for span in spans]

    def conversations(self, key: str) -> tuple[list[TraceConversation], list[str], list[Span]]:
        """The session's conversation (as ``eval --traces --by-session`` extracts it), notes on what could not
        be read (traces without GenAI spans, content capture off) and its spans (log records merged in)."""
        return session_conversations(self.trace_spans(key), str(self.files.folder))


def _summary_of(session: LiveSession) -> LiveSummary:
    tally = session.tally
    started, ended = tally.started_ns, tally.ended_ns
    warnings = tally.warnings(LISTED_WARNINGS) if tally.spans else ["only log records received so far"]
    return LiveSummary(
        key=session.key,
        session_id=session.session_id,
        trace_ids=tuple(itertools.islice(session.traces, LISTED_TRACE_IDS)),
        trace_count=len(session.traces),
        app_name=tally.name("app_name"),
        user_id=tally.name("user_id"),
        eval_id=tally.name("eval_id"),
        first_user_text=tally.first[2] if tally.first is not None else "",
        span_count=session.span_count,
        ended=session.ended,
        received=session.received,
        version=session.version,
        started_ns=started,
        duration_ms=(ended - started) / 1e6 if started is not None and ended is not None else None,
        turns=tally.turns,
        tool_calls=tally.tool_calls,
        input_tokens=tally.input_tokens if tally.input_traces else None,
        output_tokens=tally.output_tokens if tally.output_traces else None,
        warnings=tuple(warnings),
        warning_count=tally.warning_count if tally.spans else 1,
    )


def _after(removed: deque[tuple[int, str]], since: int) -> list[tuple[int, str]]:
    """The removals numbered after ``since`` (newest last; the deque is in number order, read from its end)."""
    found = list(itertools.takewhile(lambda item: item[0] > since, reversed(removed)))
    found.reverse()
    return found


def _copies(spans: list[Span]) -> list[Span]:
    return [dataclasses.replace(s, events=list(s.events), parent=None, children=[]) for s in spans]
