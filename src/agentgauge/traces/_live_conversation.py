"""A live session's conversation, read from the spans the store holds for it one trace at a time (so a live view
re-reads only the trace that changed), with notes on what could not be read instead of errors: a session the
receiver got is shown and scored as far as it goes."""

from __future__ import annotations

from ..errors import InputError
from ._cases import merge_by_session
from ._extract import TraceConversation, extract_conversation, is_genai_trace
from ._otlp_logs import LOG_RECORD, merge_log_records
from ._spans import Span, build_traces

__all__ = ["session_conversations", "trace_conversation"]


def session_conversations(
    trace_spans: dict[str, list[Span]], source: str
) -> tuple[list[TraceConversation], list[str], list[Span]]:
    """A session's conversation from the spans of its traces (:meth:`LiveStore.trace_spans`, which it links and
    changes), read one trace at a time and merged by session; the notes on what could not be read; its spans."""
    found: list[TraceConversation] = []
    notes: list[str] = []
    merged: list[Span] = []
    for spans in trace_spans.values():
        conversation, trace_notes, trace_merged = trace_conversation(spans, source)
        found.extend([conversation] if conversation is not None else [])
        notes.extend(trace_notes)
        merged.extend(trace_merged)
    if not merged:
        return [], ["only log records received so far"], []
    return merge_by_session(found), notes, merged


def trace_conversation(spans: list[Span], source: str) -> tuple[TraceConversation | None, list[str], list[Span]]:
    """One trace's conversation from its spans (log records merged in first; the spans are linked and changed),
    the notes on what could not be read (and on what linking its spans had to mend: loops, self-parents,
    repeated ids), and the spans. ``(None, [], [])`` for log records only: their spans have not arrived yet. A
    session's traces are read one at a time, so a live view re-reads only the trace that changed."""
    if not any(s.name != LOG_RECORD for s in spans):
        return None, [], []
    spans = merge_log_records(spans, source)
    [trace] = build_traces(spans)
    notes = [f"trace {trace.trace_id}: {trace.repairs.describe()}"] if trace.repairs else []
    if not is_genai_trace(trace):
        return None, [*notes, f"trace {trace.trace_id}: no agent, LLM or tool spans"], trace.spans
    try:
        return extract_conversation(trace), notes, trace.spans
    except InputError as exc:  # the note names the trace and turn, never the server's file
        return None, [*notes, f"{exc.location}: {exc.message}" if exc.location else exc.message], trace.spans
