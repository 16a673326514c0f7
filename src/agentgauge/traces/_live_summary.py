"""What a live session's row shows (turns, tool calls, tokens, times, names, warnings), kept as its traces change.

Each trace is read once per change into a :class:`TraceSummary`; a session's :class:`SessionTally` folds its
traces' summaries in as they are replaced, so a row costs what changed, not the session's length, and never needs
the spans of traces that did not change (they may be on disk only). The fold gives what reading the whole session
gives (:func:`~agentgauge.traces.merge_by_session` over its traces' conversations): counts and tokens are summed,
the first turn is the earliest by time (ties: the earlier trace), names are the first trace's that has one.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._usage import spans_tokens, turn_tokens

if TYPE_CHECKING:  # pragma: no cover
    from ._extract import TraceConversation
    from ._spans import Span

__all__ = [
    "LISTED_TRACE_IDS",
    "LISTED_WARNINGS",
    "NAME_FIELDS",
    "SHOWN_TEXT_CHARS",
    "LiveSummary",
    "SessionTally",
    "TraceSummary",
    "summarize_trace",
]

NAME_FIELDS = ("app_name", "user_id", "eval_id")
"""The names a session takes from the first of its traces that has one."""

LISTED_TRACE_IDS = 100
"""How many trace ids a session's summary lists (the first ones; all are counted): a row stays small however long
the session."""
LISTED_WARNINGS = 20
"""How many warnings a session's summary lists (the first ones, in trace order; all are counted)."""
SHOWN_TEXT_CHARS = 500
"""How much of the first user message a summary keeps (a row shows the start of it; the turns have it whole)."""


@dataclass(frozen=True, slots=True)
class TraceSummary:
    """What one trace contributes to its session's row: its turns and tool calls, tokens (``None``: none
    recorded), the earliest start and latest end of its spans (nanoseconds), its earliest turn as ``(time, user
    text)`` (the text's first :data:`SHOWN_TEXT_CHARS` characters; time ``0.0`` when unknown, as sorting by time
    treats it), the names it carries, what could not be read (``warnings``) and how many spans were read (``0``:
    only log records so far)."""

    turns: int = 0
    tool_calls: int = 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    started_ns: int | None = None
    ended_ns: int | None = None
    first_turn: tuple[float, str] | None = None
    app_name: str = ""
    user_id: str = ""
    eval_id: str = ""
    warnings: tuple[str, ...] = ()
    spans: int = 0


def summarize_trace(conversation: TraceConversation | None, notes: list[str], spans: list[Span]) -> TraceSummary:
    """The summary of one trace from what :func:`~agentgauge.traces.trace_conversation` read of it."""
    starts = [s.start_ns for s in spans if s.start_ns]
    ends = [s.end_ns for s in spans if s.end_ns]
    started, ended = (min(starts) if starts else None), (max(ends) if ends else None)
    if conversation is None:  # no conversation to read (no content): the spans still say what the calls cost
        input_tokens, output_tokens = spans_tokens(spans)
        return TraceSummary(
            started_ns=started,
            ended_ns=ended,
            warnings=tuple(notes),
            spans=len(spans),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
        )
    tokens = [turn_tokens(invocation, spans) for invocation in conversation.invocations]
    inputs = [i for i, _ in tokens if i is not None]
    outputs = [o for _, o in tokens if o is not None]
    turns = enumerate(conversation.invocations)
    first = min(((inv.creation_timestamp or 0.0, i, inv.user_content.content) for i, inv in turns), default=None)
    text = first[2] if first is not None else ""
    text = text if len(text) <= SHOWN_TEXT_CHARS else text[:SHOWN_TEXT_CHARS] + "…"
    return TraceSummary(
        turns=len(conversation.invocations),
        tool_calls=sum(len(inv.tools) for inv in conversation.invocations),
        input_tokens=sum(inputs) if inputs else None,
        output_tokens=sum(outputs) if outputs else None,
        first_turn=(first[0], text) if first is not None else None,
        app_name=conversation.app_name,
        user_id=conversation.user_id,
        eval_id=conversation.eval_id,
        warnings=(*notes, *conversation.warnings),
        spans=len(spans),
        started_ns=started,
        ended_ns=ended,
    )


_EMPTY = TraceSummary()


@dataclass(slots=True)
class SessionTally:
    """A session's row, folded from its traces' summaries (trace ``index``: its place in the session, in the
    order traces arrived). :meth:`replace` costs O(1) but when the trace that gave the first turn or a name loses
    it (then the traces are looked through again)."""

    summaries: list[TraceSummary | None] = field(default_factory=list)
    turns: int = 0
    tool_calls: int = 0
    spans: int = 0
    input_tokens: int = 0
    input_traces: int = 0
    output_tokens: int = 0
    output_traces: int = 0
    started_ns: int | None = None
    ended_ns: int | None = None
    first: tuple[float, int, str] | None = None
    names: dict[str, tuple[int, str]] = field(default_factory=dict)
    warned: list[int] = field(default_factory=list)
    warning_count: int = 0

    def replace(self, index: int, new: TraceSummary) -> None:
        """Trace ``index`` now reads as ``new``."""
        while len(self.summaries) <= index:
            self.summaries.append(None)
        old = self.summaries[index] or _EMPTY
        self.summaries[index] = new
        self.turns += new.turns - old.turns
        self.tool_calls += new.tool_calls - old.tool_calls
        self.spans += new.spans - old.spans
        self.input_tokens += (new.input_tokens or 0) - (old.input_tokens or 0)
        self.input_traces += (new.input_tokens is not None) - (old.input_tokens is not None)
        self.output_tokens += (new.output_tokens or 0) - (old.output_tokens or 0)
        self.output_traces += (new.output_tokens is not None) - (old.output_tokens is not None)
        # A trace only gains spans, so its earliest start and latest end only move outwards.
        if new.started_ns is not None and (self.started_ns is None or new.started_ns < self.started_ns):
            self.started_ns = new.started_ns
        if new.ended_ns is not None and (self.ended_ns is None or new.ended_ns > self.ended_ns):
            self.ended_ns = new.ended_ns
        self._first(index, new)
        for name in NAME_FIELDS:
            self._name(name, index, getattr(new, name))
        if bool(old.warnings) != bool(new.warnings):
            if new.warnings:
                bisect.insort(self.warned, index)
            else:
                self.warned.pop(bisect.bisect_left(self.warned, index))
        self.warning_count += len(new.warnings) - len(old.warnings)

    def _first(self, index: int, new: TraceSummary) -> None:
        mine = (new.first_turn[0], index, new.first_turn[1]) if new.first_turn is not None else None
        if self.first is not None and self.first[1] == index and (mine is None or mine[:2] > self.first[:2]):
            found = [
                (s.first_turn[0], i, s.first_turn[1])
                for i, s in enumerate(self.summaries)
                if s is not None and s.first_turn is not None
            ]
            self.first = min(found, default=None)
        elif mine is not None and (self.first is None or self.first[1] == index or mine[:2] < self.first[:2]):
            self.first = mine

    def _name(self, name: str, index: int, value: str) -> None:
        current = self.names.get(name)
        if value and (current is None or index <= current[0]):
            self.names[name] = (index, value)
        elif not value and current is not None and current[0] == index:
            found = [(i, getattr(s, name)) for i, s in enumerate(self.summaries) if s is not None and getattr(s, name)]
            if found:
                self.names[name] = found[0]
            else:
                del self.names[name]

    def name(self, field_name: str) -> str:
        """The session's ``app_name``, ``user_id`` or ``eval_id`` (``""`` when no trace has one)."""
        found = self.names.get(field_name)
        return found[1] if found is not None else ""

    def warnings(self, limit: int) -> list[str]:
        """The first ``limit`` distinct warnings, in trace order (the count of all is :attr:`warning_count`)."""
        out: dict[str, None] = {}
        for index in self.warned:
            summary = self.summaries[index]
            out.update(dict.fromkeys(summary.warnings if summary is not None else ()))
            if len(out) >= limit:
                return list(out)[:limit]
        return list(out)


@dataclass(frozen=True, slots=True)
class LiveSummary:
    """A live session's row as of one version: what the list of sessions shows, without its turns. Times are
    nanoseconds (``started_ns``) and milliseconds (``duration_ms``); ``trace_ids`` are the first
    :data:`LISTED_TRACE_IDS` of ``trace_count``, ``warnings`` the first :data:`LISTED_WARNINGS` of
    ``warning_count``."""

    key: str
    session_id: str
    trace_ids: tuple[str, ...]
    trace_count: int
    app_name: str
    user_id: str
    eval_id: str
    first_user_text: str
    span_count: int
    ended: bool
    received: float
    version: int
    started_ns: int | None
    duration_ms: float | None
    turns: int
    tool_calls: int
    input_tokens: int | None
    output_tokens: int | None
    warnings: tuple[str, ...]
    warning_count: int
