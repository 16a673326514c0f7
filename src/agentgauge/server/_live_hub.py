"""The server's side of live traces: the :class:`~agentgauge.traces.LiveStore` under ``<data_dir>/otlp``, the
wake-ups of server-sent event streams when data arrives, and what a session looks like as JSON: its row (kept by
the store as its traces change, see :class:`~agentgauge.traces.LiveSummary`) and its turns (user text, answer,
tool calls, tokens, durations), read per trace and cached within a memory budget."""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from fastapi import Depends, Request

from ..errors import NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Invocation
    from ..traces import LiveStore, LiveSummary, Span, TraceConversation

__all__ = ["OTLP_DIR", "LiveDep", "LiveHub", "OptionalLiveDep", "live_hub", "optional_live_hub", "summary_row"]

OTLP_DIR = "otlp"
"""Folder under the server's data directory holding the received OTLP JSONL files."""

_KEPT_VIEWS = 16  # session views kept (a view is a session at one version; it shares its turns with the readings)
_READINGS_SHARE = 4  # the readings kept take at most this fraction of the store's memory budget (1/4)


class _TraceReading(NamedTuple):
    """What one trace of a session contributes to its view: the conversation (``None`` when none could be read),
    notes, each invocation's turn, and about how much memory it takes."""

    conversation: TraceConversation | None
    notes: list[str]
    turns: dict[int, dict[str, Any]]  # id(invocation) -> its turn
    memory: int


class LiveHub:
    """The store of received data and the listeners waiting for it (one per open event stream)."""

    def __init__(self, store: LiveStore) -> None:
        self.store = store
        self._views: OrderedDict[str, tuple[int, dict[str, Any]]] = OrderedDict()  # key -> (version, detail)
        self._readings: OrderedDict[tuple[str, int], _TraceReading] = OrderedDict()  # (trace id, stamp) -> reading
        self._readings_memory = 0
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

    def summary(self, key: str) -> dict[str, Any]:
        """A session without its turns (the list's row), as the store keeps it: no received file is read."""
        return summary_row(self.store.summary(key))

    def detail(self, key: str) -> dict[str, Any]:
        """A session with its turns, cached per version of the session; only its traces that changed are read
        again. The counts are the row's (one computation for both)."""
        summary = self.store.summary(key)
        with self._lock:
            found = self._views.get(key)
        if found is not None and found[0] == summary.version:
            return found[1]
        readings = self._session_readings(key)
        view = {**summary_row(summary), **_turns_and_more(readings, self.store.session(key).trace_ids)}
        with self._lock:
            self._views[key] = (summary.version, view)
            self._views.move_to_end(key)
            while len(self._views) > _KEPT_VIEWS:
                self._views.popitem(last=False)
        return view

    def _session_readings(self, key: str) -> list[_TraceReading]:
        """The readings of a session's traces: kept ones reused, only traces new or changed since read again
        (spans arrive a batch at a time, so re-reading every span of the session on each batch would be
        quadratic in the session's length). Readings are kept within a share of the store's memory budget."""
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
                        self._keep((trace_id, stamp), kept[trace_id])  # type: ignore[arg-type]
        return [reading for reading in kept.values() if reading is not None]

    def _keep(self, key: tuple[str, int], reading: _TraceReading) -> None:
        self._readings[key] = reading
        self._readings_memory += reading.memory
        budget = self.store.max_memory_bytes // _READINGS_SHARE
        while self._readings_memory > budget and self._readings:
            _, dropped = self._readings.popitem(last=False)
            self._readings_memory -= dropped.memory


def optional_live_hub(request: Request) -> LiveHub | None:
    """The app's live hub, ``None`` when the server does not receive traces."""
    return getattr(request.app.state, "agentgauge_live", None)


def live_hub(request: Request) -> LiveHub:
    """The app's live hub; 404 naming the option when the server does not receive traces."""
    hub = optional_live_hub(request)
    if hub is None:
        raise NotFoundError("live sessions need the OTLP receiver: start the server with 'agentgauge serve --otlp'")
    return hub


LiveDep = Annotated[LiveHub, Depends(live_hub)]
"""A route parameter holding the server's live hub."""

OptionalLiveDep = Annotated[LiveHub | None, Depends(optional_live_hub)]
"""A route parameter holding the server's live hub, or ``None`` without ``--otlp``."""


def summary_row(summary: LiveSummary) -> dict[str, Any]:
    """A session's row as JSON (camelCase, as every live route answers)."""
    return {
        "key": summary.key,
        "sessionId": summary.session_id,
        "traceIds": list(summary.trace_ids),
        "traceCount": summary.trace_count,
        "appName": summary.app_name,
        "userId": summary.user_id,
        "evalId": summary.eval_id,
        "firstUserText": summary.first_user_text,
        "spanCount": summary.span_count,
        "ended": summary.ended,
        "received": summary.received,
        "version": summary.version,
        "startedNs": summary.started_ns,
        "durationMs": summary.duration_ms,
        "turnCount": summary.turns,
        "toolCallCount": summary.tool_calls,
        "inputTokens": summary.input_tokens,
        "outputTokens": summary.output_tokens,
        "warnings": list(summary.warnings),
        "warningCount": summary.warning_count,
    }


def _read_trace(spans: list[Span], source: str) -> _TraceReading:
    from ..traces import trace_conversation

    conversation, notes, merged = trace_conversation(spans, source)
    turns: dict[int, dict[str, Any]] = {}
    if conversation is not None:
        for index, invocation in enumerate(conversation.invocations):
            trace_id = conversation.trace_ids[index] if index < len(conversation.trace_ids) else ""
            turns[id(invocation)] = _turn(invocation, trace_id, merged)
    memory = sum(1024 + sum(len(v) for v in s.attributes.values() if isinstance(v, str)) for s in merged)
    return _TraceReading(conversation, notes, turns, memory)


def _turns_and_more(readings: list[_TraceReading], trace_ids: list[str]) -> dict[str, Any]:
    """What a session's view adds to its row: its turns in time order (as ``merge_by_session`` orders them), every
    warning and every trace id."""
    import dataclasses

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
    by_invocation = {key: turn for r in readings for key, turn in r.turns.items()}
    turns: list[dict[str, Any]] = []
    warnings = [note for r in readings for note in r.notes]
    for conversation in merge_by_session(found):
        warnings.extend(conversation.warnings)
        turns.extend(by_invocation[id(invocation)] for invocation in conversation.invocations)
    more: dict[str, Any] = {"traceIds": trace_ids, "turns": turns}
    if any(r.conversation is not None or r.notes for r in readings):
        more["warnings"] = list(dict.fromkeys(warnings))  # each advice once, however many traces or turns gave it
    return more


def _turn(invocation: Invocation, trace_id: str, spans: list[Span]) -> dict[str, Any]:
    """One turn: the user's text, the answer, the tool calls and what the spans say of its cost and time."""
    from ..traces import turn_tokens

    mine = [s for s in spans if s.trace_id == trace_id]
    input_tokens, output_tokens = turn_tokens(invocation, mine)
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
        "inputTokens": input_tokens,
        "outputTokens": output_tokens,
        "started": invocation.creation_timestamp,
    }
