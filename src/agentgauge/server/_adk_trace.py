"""ADK Web's Trace tab: the spans of the chats and eval runs made through the server, answered on the routes ADK
Web calls (``/dev/apps/{app}/debug/trace/session/{session_id}`` and ``.../debug/trace/{event_id}``, also without
the ``/dev/apps/{app}`` prefix as older ADK versions call them), in ADK's ``WebUiSpan`` shape.

Where the spans come from:

- an in-memory span exporter on the process's OpenTelemetry SDK tracer provider (installed on the first chat turn,
  after the agent is imported: an agent that set up its own SDK provider keeps it, and gets this exporter added),
  bounded to :data:`MAX_SESSIONS` sessions of at most :data:`MAX_SPANS` spans each. Each chat turn runs inside an
  ``invoke_agent`` span naming the session and the invocation, so every span the agent makes (google-adk's, an
  instrumented client's) lands in the session's trace;
- with ``serve --otlp``, the received spans of the live session with that session id (an agent exporting to the
  receiver).

Without ``opentelemetry-sdk`` (installed with google-adk) turns are not traced and the tab shows what the receiver
holds, if anything.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

if TYPE_CHECKING:  # pragma: no cover
    from ..traces import Span

__all__ = ["MAX_SESSIONS", "MAX_SPANS", "SessionSpans", "install_tracing", "router", "session_spans", "turn_span"]

MAX_SESSIONS = 200
"""Sessions whose spans are kept in memory (the least recently traced are forgotten first)."""
MAX_SPANS = 2000
"""Spans kept per session (the oldest are dropped first)."""

_LLM_NAMES = ("call_llm", "generate_content", "chat")
_EVENT_SUFFIXES = ("-user", "-final", "-call", "-resp", "-text")


class SessionSpans:
    """Finished spans by session id, in ADK Web's ``WebUiSpan`` JSON shape; thread-safe and bounded."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, max_spans: int = MAX_SPANS) -> None:
        self.max_sessions, self.max_spans = max_sessions, max_spans
        self._sessions: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._trace_session: OrderedDict[int, str] = OrderedDict()
        # Spans whose session is not known yet (a tool span ends before any span naming the session), by trace.
        self._waiting: OrderedDict[int, list[dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def bind(self, trace_id: int, session_id: str) -> None:
        """Spans of ``trace_id`` belong to ``session_id`` (a turn's span ends, and is exported, after its children:
        they are placed by their trace)."""
        with self._lock:
            self._trace_session[trace_id] = session_id
            while len(self._trace_session) > self.max_sessions * 50:
                self._trace_session.popitem(last=False)

    def add(self, span: dict[str, Any]) -> None:
        """Keep one finished span (``WebUiSpan`` shape) under its session, if it has one."""
        attributes = span["attributes"]
        session_id = attributes.get("gcp.vertex.agent.session_id") or attributes.get("gen_ai.conversation.id")
        trace_id = span["trace_id"]
        with self._lock:
            if not isinstance(session_id, str) or not session_id:
                session_id = self._trace_session.get(trace_id)
            if not session_id:
                waiting = self._waiting.setdefault(trace_id, [])
                waiting.append(span)
                del waiting[: max(0, len(waiting) - self.max_spans)]
                while len(self._waiting) > self.max_sessions:
                    self._waiting.popitem(last=False)
                return
            self._trace_session.setdefault(trace_id, session_id)
            spans = self._sessions.setdefault(session_id, [])
            self._sessions.move_to_end(session_id)
            spans.extend(self._waiting.pop(trace_id, []))
            spans.append(span)
            del spans[: max(0, len(spans) - self.max_spans)]
            while len(self._sessions) > self.max_sessions:
                self._sessions.popitem(last=False)

    def of_session(self, session_id: str) -> list[dict[str, Any]]:
        """The session's spans, oldest first ([] when none were recorded)."""
        with self._lock:
            return list(self._sessions.get(session_id, []))

    def of_event(self, event_id: str) -> dict[str, Any] | None:
        """The attributes ADK Web shows for an event: those of the last model call of the turn the event belongs
        to (its invocation id is the event id without its suffix), else of the turn's own span."""
        invocation = _invocation_of(event_id)
        with self._lock:
            spans = [s for spans in self._sessions.values() for s in spans]
        turn = [s for s in spans if s["attributes"].get("gcp.vertex.agent.invocation_id") == invocation]
        if not turn:
            return None
        trace_ids = {s["trace_id"] for s in turn}
        in_trace = [s for s in spans if s["trace_id"] in trace_ids]
        models = [s for s in in_trace if s["name"].startswith(_LLM_NAMES)]
        chosen = models[-1] if models else turn[-1]
        return {**chosen["attributes"], "trace_id": chosen["trace_id"], "span_id": chosen["span_id"]}


def _invocation_of(event_id: str) -> str:
    """The invocation id inside an event id the server made (``{invocation}-final``, ``{invocation}-call0``...)."""
    head, sep, tail = event_id.rpartition("-")
    if sep and any(("-" + tail).startswith(s) for s in _EVENT_SUFFIXES):
        return head
    return event_id


_COLLECTOR = SessionSpans()
_installed = False
_install_lock = threading.Lock()


def session_spans() -> SessionSpans:
    """The process's span collector (one per process: the tracer provider is process-wide)."""
    return _COLLECTOR


def install_tracing() -> Any:
    """Our exporter on the SDK tracer provider (set as the global one when none is); the tracer, or ``None``
    without ``opentelemetry-sdk``. Called once an agent is imported (the first chat turn, a run's start), so an
    agent module that sets up its own SDK provider keeps it."""
    global _installed
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
    except ImportError:
        return None
    with _install_lock:
        if not _installed:

            class _ToCollector(SpanExporter):
                def export(self, spans: Any) -> Any:
                    for span in spans:
                        _COLLECTOR.add(_web_ui_span(span))
                    return SpanExportResult.SUCCESS

            provider = trace.get_tracer_provider()
            if not isinstance(provider, TracerProvider):
                provider = TracerProvider()
                trace.set_tracer_provider(provider)
            provider.add_span_processor(SimpleSpanProcessor(_ToCollector()))
            _installed = True
    return trace.get_tracer("agentgauge.server")


def _web_ui_span(span: Any) -> dict[str, Any]:
    context = span.get_span_context()
    return {
        "name": span.name,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "trace_id": context.trace_id,
        "span_id": context.span_id,
        "parent_span_id": span.parent.span_id if span.parent else None,
        "attributes": {k: list(v) if isinstance(v, tuple) else v for k, v in (span.attributes or {}).items()},
        "logs": [],
    }


@contextlib.contextmanager
def turn_span(app: str, session_id: str, user_id: str, invocation_id: str) -> Iterator[None]:
    """Run one chat turn inside an ``invoke_agent`` span naming its session and invocation (nothing happens
    without ``opentelemetry-sdk``)."""
    tracer = install_tracing()
    if tracer is None:
        yield
        return
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": app,
        "gen_ai.conversation.id": session_id,
        "gcp.vertex.agent.session_id": session_id,
        "gcp.vertex.agent.invocation_id": invocation_id,
        "user.id": user_id,
    }
    with tracer.start_as_current_span(f"invoke_agent {app}", attributes=attributes) as span:
        _COLLECTOR.bind(span.get_span_context().trace_id, session_id)
        yield


def _received(request: Request, session_id: str) -> list[dict[str, Any]]:
    """The spans the OTLP receiver holds for ``session_id`` (none without ``--otlp``), each naming its parent in
    the trace's span tree (a span that named itself, or a loop, has none)."""
    from ..errors import NotFoundError

    hub = getattr(request.app.state, "agentgauge_live", None)
    if hub is None:
        return []
    try:
        spans = hub.store.conversations(session_id)[2]
    except NotFoundError:
        return []
    return [_from_span(s) for s in spans]


def _from_span(span: Span) -> dict[str, Any]:
    return {
        "name": span.name,
        "start_time": span.start_ns or None,
        "end_time": span.end_ns or None,
        "trace_id": int(span.trace_id, 16),
        "span_id": int(span.span_id, 16),
        "parent_span_id": int(span.parent.span_id, 16) if span.parent is not None else None,  # the tree's: no loops
        "attributes": span.attributes,
        "logs": [
            {"event_name": e.name, "body": e.attributes.get("body"), "attributes": e.attributes} for e in span.events
        ],
    }


router = APIRouter(tags=["ADK debug"])
"""The trace routes of ADK Web's Trace tab."""


@router.get("/dev/apps/{app_name}/debug/trace/session/{session_id}")
@router.get("/debug/trace/session/{session_id}")
def get_session_trace(session_id: str, request: Request) -> JSONResponse:
    """The spans of a session's chat turns and eval runs (``WebUiSpan`` objects; ``[]`` when none were recorded)."""
    spans = session_spans().of_session(session_id) or _received(request, session_id)
    return JSONResponse(spans)


@router.get("/dev/apps/{app_name}/debug/trace/{event_id}")
@router.get("/debug/trace/{event_id}")
def get_event_trace(event_id: str) -> JSONResponse:
    """The attributes of the model call behind an event (404 ``Trace not found`` when none was recorded)."""
    found = session_spans().of_event(event_id)
    if found is None:
        return JSONResponse({"detail": "Trace not found", "error": "Trace not found"}, status_code=404)
    return JSONResponse(found)
