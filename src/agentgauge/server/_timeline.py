"""``/api`` route of a case run's span timeline: a waterfall of agent, model and tool spans with durations and
tokens, each linked to the turn (invocation) of the replay it belongs to.

Where the spans come from, first found first:

1. ``spans``: the spans recorded for the case run's session: by the server's span collector while it ran the case
   (an agent that makes OpenTelemetry spans, e.g. a google-adk agent, with ``opentelemetry-sdk`` installed; kept in
   memory while the server runs) or received by the OTLP receiver (``serve --otlp``) under that session id;
2. ``invocations``: derived from what the result file records per invocation: its start and wall time, the time
   spent in model calls and in tools, and its tokens (live runs and trace-mode results record them). Result files
   keep no individual spans, so the model and tool bars are each invocation's totals, drawn from its start;
3. ``none``: the result recorded no timing at all (e.g. an ADK result file).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request

from ..model import EvalCaseResult
from ._answers import Answer
from ._deps import StateDep
from ._result_views import case_runs, load_result

__all__ = ["Timeline", "TimelineSpan", "router"]

router = APIRouter()
"""``/apps/{app}/results/{result_id}/cases/{case_id}/timeline`` (mounted under ``/api``)."""

SpanKind = Literal["agent", "model", "tool", "other"]


class TimelineSpan(Answer):
    """One bar of the waterfall: seconds from the start of the case run, its kind, tokens when recorded, the turn
    (1-based invocation) it belongs to, and whether it is a per-turn total rather than one recorded span."""

    id: str
    parent_id: str | None = None
    name: str
    kind: SpanKind
    start: float
    duration: float
    depth: int = 0
    turn: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    model: str | None = None
    aggregate: bool = False


class Timeline(Answer):
    """The waterfall of a case run: where its spans came from (``spans``, ``invocations`` or ``none``, see the
    module docs), a note saying so, its total length in seconds and the bars in start order."""

    source: Literal["spans", "invocations", "none"]
    note: str
    total: float
    spans: list[TimelineSpan]


_LLM_NAMES = ("call_llm", "generate_content", "chat")


def _kind(name: str, attributes: dict[str, Any]) -> SpanKind:
    operation = str(attributes.get("gen_ai.operation.name") or "")
    if name.startswith("execute_tool") or operation == "execute_tool" or "gen_ai.tool.name" in attributes:
        return "tool"
    if name.startswith(("invoke_agent", "invoke_workflow")) or operation in ("invoke_agent", "invoke_workflow"):
        return "agent"
    if name.startswith(_LLM_NAMES) or operation in ("chat", "generate_content", "text_completion"):
        return "model"
    return "model" if "gen_ai.request.model" in attributes else "other"


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _from_spans(raw: list[dict[str, Any]], case: EvalCaseResult) -> Timeline:
    """Recorded spans (ADK Web's ``WebUiSpan`` shape, nanoseconds) as bars, linked to turns by the invocation id
    the span names, else by its outermost span (the i-th of as many as there are turns is turn i), else by its
    parent's turn, else by the turn whose time it starts in."""
    spans = sorted((s for s in raw if s.get("start_time")), key=lambda s: int(s["start_time"]))
    origin = int(spans[0]["start_time"])
    links = _tree_links(spans)
    invocations = [p.actual_invocation for p in case.eval_metric_result_per_invocation]
    turn_of_id = {inv.invocation_id: i for i, inv in enumerate(invocations, start=1) if inv.invocation_id}
    starts = [inv.creation_timestamp for inv in invocations]
    # The outermost spans, one per turn when they are as many as the turns (each turn runs inside its own span).
    roots = [s["span_id"] for s, (parent, _) in zip(spans, links, strict=True) if parent is None]
    turn_of_root = {r: i for i, r in enumerate(roots, start=1)} if len(roots) == len(invocations) else {}
    bars: list[TimelineSpan] = []
    turn_of_span: dict[Any, int | None] = {}
    for span, (parent, depth) in zip(spans, links, strict=True):
        attributes = span.get("attributes") or {}
        turn = turn_of_id.get(str(attributes.get("gcp.vertex.agent.invocation_id") or ""))
        turn = turn if turn is not None else turn_of_root.get(span["span_id"])
        if turn is None and parent in turn_of_span:
            turn = turn_of_span[parent]
        if turn is None and any(starts):
            seconds = int(span["start_time"]) / 1e9
            turn = max((i for i, s in enumerate(starts, start=1) if s is not None and s <= seconds), default=None)
        turn_of_span[span["span_id"]] = turn
        end = int(span.get("end_time") or span["start_time"])
        bars.append(
            TimelineSpan(
                id=str(span["span_id"]),
                parent_id=str(parent) if parent is not None else None,
                name=str(span.get("name") or ""),
                kind=_kind(str(span.get("name") or ""), attributes),
                start=(int(span["start_time"]) - origin) / 1e9,
                duration=max(0, end - int(span["start_time"])) / 1e9,
                depth=depth,
                turn=turn,
                input_tokens=_int(attributes.get("gen_ai.usage.input_tokens")),
                output_tokens=_int(attributes.get("gen_ai.usage.output_tokens")),
                model=attributes.get("gen_ai.request.model") or attributes.get("gen_ai.response.model"),
            )
        )
    total = max((b.start + b.duration for b in bars), default=0.0)
    note = f"{len(bars)} spans recorded for session {case.session_id}."
    return Timeline(source="spans", note=note, total=total, spans=bars)


def _tree_links(spans: list[dict[str, Any]]) -> list[tuple[Any, int]]:
    """Each span's parent id (``None`` for a root) and depth, read from the span tree of its trace: a span naming
    itself or a loop of spans as its parents is a root there, so the depths are finite (see
    :func:`~agentgauge.traces.build_traces`)."""
    from ..traces import Span, build_traces

    nodes = [Span(str(s.get("trace_id")), str(s["span_id"]), _id_text(s.get("parent_span_id")), "") for s in spans]
    depth: dict[int, int] = {}
    for trace in build_traces(nodes):
        for node in trace.walk():  # parents before their children
            depth[id(node)] = depth[id(node.parent)] + 1 if node.parent is not None else 0
    raw_id = {str(s["span_id"]): s["span_id"] for s in reversed(spans)}  # the first of a repeated id, as linked
    return [(raw_id[n.parent.span_id] if n.parent else None, depth.get(id(n), 0)) for n in nodes]


def _id_text(value: Any) -> str:
    return "" if value is None else str(value)


def _turn_bars(number: int, start: float, inv: Any) -> list[TimelineSpan]:
    usage = inv.usage
    tools = ", ".join(t.name for t in inv.tools)
    calls = usage.model_calls if usage is not None and usage.model_calls else None
    turn = TimelineSpan(
        id=f"turn-{number}",
        name=f"turn {number}",
        kind="agent",
        start=start,
        duration=inv.duration or 0.0,
        turn=number,
        input_tokens=usage.input_tokens if usage is not None else None,
        output_tokens=usage.output_tokens if usage is not None else None,
        model=usage.model if usage is not None else None,
    )
    bars = [turn]
    if inv.model_duration is not None:
        name = f"model calls ({calls})" if calls else "model calls"
        bars.append(
            TimelineSpan(
                id=f"turn-{number}-model",
                parent_id=turn.id,
                name=name,
                kind="model",
                start=start,
                duration=inv.model_duration,
                depth=1,
                turn=number,
                input_tokens=turn.input_tokens,
                output_tokens=turn.output_tokens,
                model=turn.model,
                aggregate=True,
            )
        )
    if inv.tool_duration is not None:  # unknown is not zero: no bar
        bars.append(
            TimelineSpan(
                id=f"turn-{number}-tools",
                parent_id=turn.id,
                name=f"tools: {tools}" if tools else "tools",
                kind="tool",
                start=start,
                duration=inv.tool_duration,
                depth=1,
                turn=number,
                aggregate=True,
            )
        )
    return bars


def _from_invocations(case: EvalCaseResult) -> Timeline:
    """Bars from each invocation's recorded timings: a turn bar from its start, with its model and tool totals."""
    invocations = [p.actual_invocation for p in case.eval_metric_result_per_invocation]
    timed = any(inv.duration is not None or inv.model_duration is not None for inv in invocations)
    if not timed:
        note = "This result recorded no timings (no span, no per-invocation duration): nothing to draw."
        return Timeline(source="none", note=note, total=0.0, spans=[])
    known = [inv.creation_timestamp for inv in invocations if inv.creation_timestamp is not None]
    origin = min(known) if known else 0.0
    bars: list[TimelineSpan] = []
    cursor = 0.0
    for number, inv in enumerate(invocations, start=1):
        # Without a recorded start, a turn follows the previous one.
        start = inv.creation_timestamp - origin if inv.creation_timestamp is not None else cursor
        bars.extend(_turn_bars(number, start, inv))
        cursor = max(cursor, start + (inv.duration or 0.0))
    note = (
        "No spans were recorded for this case run: the bars are each turn's recorded wall time and its totals in "
        "model calls and tools (from the result file), each drawn from the turn's start."
    )
    return Timeline(source="invocations", note=note, total=cursor, spans=bars)


def recorded_spans(request: Request, session_id: str) -> list[dict[str, Any]]:
    """The spans the server holds for a session: collected while it ran the case, else received over OTLP."""
    from ._adk_trace import _received, session_spans

    if not session_id:
        return []
    return session_spans().of_session(session_id) or _received(request, session_id)


@router.get("/apps/{app}/results/{result_id}/cases/{case_id}/timeline")
def case_timeline(
    app: str,
    result_id: str,
    case_id: str,
    request: Request,
    state: StateDep,
    run_id: Annotated[int | None, Query(alias="runId", ge=1)] = None,
) -> Timeline:
    """The span waterfall of one case run (``runId``; default: the worst run, as the replay): recorded spans when
    the server holds them, else bars derived from the result's per-invocation timings (``source`` says which)."""
    from ._replay import pick_run

    state.check_app(app)
    case = pick_run(case_runs(load_result(state, app, result_id), case_id), case_id, run_id)
    spans = recorded_spans(request, case.session_id)
    if any(s.get("start_time") for s in spans):
        return _from_spans(spans, case)
    return _from_invocations(case)
