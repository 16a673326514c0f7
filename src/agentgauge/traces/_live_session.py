"""A live session and its traces as the live store keeps them: where each trace's spans are on disk, the spans
held in memory (when they are), and the trace's summary as of its last change."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._live_files import LineRef
from ._live_summary import LiveSummary, SessionTally, TraceSummary
from ._spans import Span

__all__ = ["SESSION_ATTRIBUTES", "LiveSession", "LiveTrace", "span_session_id"]

SESSION_ATTRIBUTES = ("gen_ai.conversation.id", "gcp.vertex.agent.session_id", "session.id")
"""Span attributes naming the session a trace belongs to (the first found wins), as trace extraction reads them."""


@dataclass(eq=False, slots=True)
class LiveTrace:
    """One trace of a live session. ``lines`` are the stored requests holding its spans (read back from there);
    ``spans`` the spans (log records as marker spans) when held in memory, else ``None``; ``memory`` what holding
    them costs, in bytes (an estimate); ``stamp`` changes whenever spans of it arrive (a number never used before in
    the store); ``summary`` is its reading as of ``summary_stamp``."""

    trace_id: str
    index: int
    stamp: int = 0
    lines: list[LineRef] = field(default_factory=list)
    spans: list[Span] | None = field(default_factory=list)
    memory: int = 0
    span_count: int = 0
    rooted: bool = False
    summary: TraceSummary | None = None
    summary_stamp: int = -1

    @property
    def current(self) -> bool:
        """Whether :attr:`summary` reads the trace as it is now."""
        return self.summary_stamp == self.stamp


@dataclass(eq=False)
class LiveSession:
    """One live session: its traces (by id, in the order they arrived) and what is known of it without reading its
    spans. ``key`` is the session id, else the id of its only trace; ``version`` changes whenever spans of it
    arrive, and ``changed`` is the store's change number at that moment (see :meth:`LiveStore.changes
    <agentgauge.traces.LiveStore.changes>`); ``tally`` folds its traces' summaries, ``rooted`` counts the traces
    that have their root span."""

    key: str
    session_id: str
    traces: dict[str, LiveTrace] = field(default_factory=dict)
    span_count: int = 0
    received: float = 0.0
    version: int = 0
    changed: int = 0
    rooted: int = 0
    tally: SessionTally = field(default_factory=SessionTally)
    stale: dict[str, None] = field(default_factory=dict)
    """The traces whose summaries are not folded in as they are now (an ordered set)."""
    summary: LiveSummary | None = None
    """The last summary made (see :meth:`LiveStore.summary <agentgauge.traces.LiveStore.summary>`), if any."""

    @property
    def trace_ids(self) -> list[str]:
        """The ids of its traces, in the order they arrived."""
        return list(self.traces)

    @property
    def ended(self) -> bool:
        """Every trace of the session has its root span (a root span ends, and so is exported, last)."""
        return bool(self.traces) and self.rooted == len(self.traces)

    @property
    def held(self) -> bool:
        """Whether the spans of any of its traces are held in memory."""
        return any(trace.spans is not None for trace in self.traces.values())


def span_session_id(span: Span) -> str:
    """The session id a span carries (see :data:`SESSION_ATTRIBUTES`), else ``""``."""
    for key in SESSION_ATTRIBUTES:
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
