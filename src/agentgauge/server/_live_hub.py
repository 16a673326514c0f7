"""The server's side of live traces: the :class:`~agentgauge.traces.LiveStore` under ``<data_dir>/otlp``, the
wake-ups of server-sent event streams when data arrives, and what a session looks like as JSON (turns, tool calls,
tokens, durations)."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from fastapi import Depends, Request

from ..errors import NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Invocation
    from ..traces import LiveSession, LiveStore, Span, TraceConversation

__all__ = ["OTLP_DIR", "LiveDep", "LiveHub", "live_hub"]

OTLP_DIR = "otlp"
"""Folder under the server's data directory holding the received OTLP JSONL files."""

_USAGE = {"input": "gen_ai.usage.input_tokens", "output": "gen_ai.usage.output_tokens"}
_KEPT_VIEWS = 256  # session views kept (a view is a session at one version)
_KEPT_TRACES = 1024  # traces' readings kept (a reading is a trace at one stamp; one too many is read again)
_LEGACY_USAGE = {"input": "gen_ai.usage.prompt_tokens", "output": "gen_ai.usage.completion_tokens"}


class _TraceReading(NamedTuple):
    """What one trace of a session contributes to its view: the conversation (``None`` when none could be read),
    notes, each invocation's turn, and the earliest start and latest end of its spans."""

    conversation: TraceConversation | None
    notes: list[str]
    turns: dict[int, dict[str, Any]]  # id(invocation) -> its turn
    starts: list[int]
    ends: list[int]
    spans: int


class LiveHub:
    """The store of received data and the listeners waiting for it (one per open event stream)."""

    def __init__(self, store: LiveStore) -> None:
        self.store = store
        self._views: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()  # (key, version) -> detail
        self._readings: OrderedDict[tuple[str, int], _TraceReading] = OrderedDict()  # (trace id, stamp) -> reading
        self.traces_read = 0
        """How many times a trace was read (extracted) for a view: once per trace and change, not per update of
        its session."""
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        store.listeners.append(self._changed)

    def _changed(self, _keys: list[str]) -> None:
        # Called from whatever thread received the data: wake each stream on its own loop.
        for loop, event in list(self._waiters):
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    async def wait(self, timeout: float) -> None:
        """Return when data arrives or after ``timeout`` seconds (streams send keep-alives in between)."""
        event = asyncio.Event()
        waiter = (asyncio.get_running_loop(), event)
        self._waiters.add(waiter)
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            self._waiters.discard(waiter)

    def detail(self, key: str) -> dict[str, Any]:
        """A session with its turns, cached per version of the session; only its traces that changed are read again."""
        session = self.store.session(key)
        cache_key = (key, session.version)
        with self._lock:
            found = self._views.get(cache_key)
        if found is not None:
            return found
        view = _detail(session, self._session_readings(key))
        with self._lock:
            self._views[cache_key] = view
            while len(self._views) > _KEPT_VIEWS:
                self._views.popitem(last=False)
        return view

    def _session_readings(self, key: str) -> list[_TraceReading]:
        """The readings of a session's traces: kept ones reused, only traces new or changed since read again
        (spans arrive a batch at a time, so re-reading every span of the session on each batch would be
        quadratic in the session's length)."""
        stamps = self.store.stamps(key)
        with self._lock:
            kept = {t: self._readings.get((t, stamp)) for t, stamp in stamps}
        missing = [t for t, reading in kept.items() if reading is None]
        if missing:
            source = str(self.store.files.folder)
            for trace_id, spans in self.store.trace_spans(key, missing).items():
                kept[trace_id] = _read_trace(spans, source)
            with self._lock:
                self.traces_read += len(missing)
                for trace_id, stamp in stamps:
                    if trace_id in missing:
                        self._readings[(trace_id, stamp)] = kept[trace_id]  # type: ignore[assignment]
                while len(self._readings) > _KEPT_TRACES:
                    self._readings.popitem(last=False)
        return [reading for reading in kept.values() if reading is not None]

    def summary(self, key: str) -> dict[str, Any]:
        """A session without its turns (the list's row)."""
        return {k: v for k, v in self.detail(key).items() if k != "turns"}


def live_hub(request: Request) -> LiveHub:
    """The app's live hub; 404 naming the option when the server does not receive traces."""
    hub = getattr(request.app.state, "agentgauge_live", None)
    if hub is None:
        raise NotFoundError("live sessions need the OTLP receiver: start the server with 'agentgauge serve --otlp'")
    return hub  # type: ignore[no-any-return]


LiveDep = Annotated[LiveHub, Depends(live_hub)]
"""A route parameter holding the server's live hub."""


def _read_trace(spans: list[Span], source: str) -> _TraceReading:
    from ..traces import trace_conversation

    conversation, notes, merged = trace_conversation(spans, source)
    turns: dict[int, dict[str, Any]] = {}
    if conversation is not None:
        for index, invocation in enumerate(conversation.invocations):
            trace_id = conversation.trace_ids[index] if index < len(conversation.trace_ids) else ""
            turns[id(invocation)] = _turn(invocation, trace_id, merged)
    starts = [s.start_ns for s in merged if s.start_ns]
    ends = [s.end_ns for s in merged if s.end_ns]
    return _TraceReading(conversation, notes, turns, [min(starts)] if starts else [], [max(ends)] if ends else [],
                         len(merged))  # fmt: skip


def _detail(session: LiveSession, readings: list[_TraceReading]) -> dict[str, Any]:
    from ..traces import merge_by_session

    # Merging extends the first conversation of a session in place: merge copies, the readings are kept.
    found = [
        dataclasses.replace(
            r.conversation,
            invocations=list(r.conversation.invocations),
            trace_ids=list(r.conversation.trace_ids),
            warnings=list(r.conversation.warnings),
        )
        for r in readings
        if r.conversation is not None
    ]
    conversations = merge_by_session(found)
    by_invocation = {key: turn for r in readings for key, turn in r.turns.items()}
    turns: list[dict[str, Any]] = []
    warnings = [note for r in readings for note in r.notes]
    if not any(r.spans for r in readings):
        warnings = ["only log records received so far"]
    for conversation in conversations:
        warnings.extend(conversation.warnings)
        turns.extend(by_invocation[id(invocation)] for invocation in conversation.invocations)
    first = conversations[0] if conversations else None
    starts = [start for r in readings for start in r.starts]
    ends = [end for r in readings for end in r.ends]
    return {
        "key": session.key,
        "sessionId": session.session_id,
        "traceIds": list(session.trace_ids),
        "appName": first.app_name if first else "",
        "userId": first.user_id if first else "",
        "evalId": first.eval_id if first else "",
        "firstUserText": first.first_user_text if first else "",
        "spanCount": session.span_count,
        "ended": session.ended,
        "received": session.received,
        "version": session.version,
        "startedNs": min(starts) if starts else None,
        "durationMs": (max(ends) - min(starts)) / 1e6 if starts and ends else None,
        "turnCount": len(turns),
        "toolCallCount": sum(len(t["tools"]) for t in turns),
        "inputTokens": _total(t["inputTokens"] for t in turns),
        "outputTokens": _total(t["outputTokens"] for t in turns),
        "warnings": warnings,
        "turns": turns,
    }


def _total(values: Any) -> int | None:
    found = [v for v in values if v is not None]
    return sum(found) if found else None


def _turn(invocation: Invocation, trace_id: str, spans: list[Span]) -> dict[str, Any]:
    """One turn: the user's text, the answer, the tool calls and what the spans say of its cost and time."""
    mine = [s for s in spans if s.trace_id == trace_id]
    usage = _usage(mine)
    if invocation.usage is not None and invocation.usage.input_tokens is not None:
        usage = {"input": invocation.usage.input_tokens, "output": invocation.usage.output_tokens}
    duration = invocation.duration
    if duration is None:
        starts = [s.start_ns for s in mine if s.start_ns]
        ends = [s.end_ns for s in mine if s.end_ns]
        duration = (max(ends) - min(starts)) / 1e9 if starts and ends else None
    final = invocation.final_response
    return {
        "invocationId": invocation.invocation_id,
        "traceId": trace_id,
        "user": invocation.user_content.content,
        "response": final.content if final is not None else None,
        "tools": [{"name": t.name, "arguments": t.arguments, "result": t.result} for t in invocation.tools],
        "durationMs": duration * 1000 if duration is not None else None,
        "inputTokens": usage.get("input"),
        "outputTokens": usage.get("output"),
        "started": invocation.creation_timestamp,
    }


def _usage(spans: list[Span]) -> dict[str, int | None]:
    """Tokens of a turn's model calls: ``gen_ai.usage.*`` summed over the spans that carry it, leaving out a span
    nested in another that does (an ADK ``call_llm`` around an instrumented client reports the same call)."""
    ids = {s.span_id: s for s in spans}
    totals: dict[str, int | None] = {"input": None, "output": None}
    for span in spans:
        if not any(k in span.attributes for k in (*_USAGE.values(), *_LEGACY_USAGE.values())):
            continue
        parent, counted_above = ids.get(span.parent_id), False
        while parent is not None and not counted_above:
            counted_above = any(k in parent.attributes for k in _USAGE.values())
            parent = ids.get(parent.parent_id)
        if counted_above:
            continue
        for side in ("input", "output"):
            value = span.attributes.get(_USAGE[side], span.attributes.get(_LEGACY_USAGE[side]))
            if isinstance(value, int) and not isinstance(value, bool):
                totals[side] = (totals[side] or 0) + value
    return totals
