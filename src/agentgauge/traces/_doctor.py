"""``agentgauge traces doctor``: what a trace export lacks for scoring, per producer, and the setting that fixes it.

Each agent, model or tool span is attributed to the instrumentation that wrote it (its *producer*: Google ADK 1.x
or 2.x, the OpenAI v2 instrumentation, OpenLLMetry, LangChain, Strands, the agentevals SDK, or plain GenAI
conventions). For each producer four things are checked — message content on the model calls, tool results, token
usage, and (for producers that can write content to log records) whether such records were merged — and for each
gap the exact environment variable or code that fixes it is given. Two notes follow for the whole input: how turns
are found, and whether traces name their eval case.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from ._agents import is_agent_span
from ._extract import AGENTEVALS_CASE_ATTRIBUTE, EVAL_ID_ATTRIBUTE, _is_llm, _is_tool
from ._messages import input_messages, is_withheld, output_messages
from ._read import iter_trace_groups, trace_files
from ._spans import Span, Trace, TreeRepairs, ancestor_test
from ._usage import span_usage

__all__ = [
    "Check",
    "DoctorReport",
    "ProducerReport",
    "Verdict",
    "content_fix",
    "diagnose",
    "diagnose_traces",
    "producer_of",
]

Status = Literal["ok", "missing", "partial", "note"]
Verdict = Literal["ready", "ready with gaps", "not ready"]

ADK1, ADK2 = "Google ADK 1.x (legacy schema)", "Google ADK 2.x (default schema)"
OPENAI, OPENLLMETRY = "OpenAI instrumentation (openai-v2)", "OpenLLMetry / Traceloop"
LANGCHAIN, STRANDS, AGENTEVALS = "LangChain / LangGraph", "Strands Agents", "agentevals SDK"
OPENINFERENCE, TRPC = "OpenInference", "trpc-agent-go"
GENAI = "GenAI semantic conventions"

_CONTENT_FIX = {
    ADK2: "export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY (or SPAN_AND_EVENT; EVENT_ONLY puts "
    "it in log records), or ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1 for the legacy schema",
    ADK1: "export ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (the default; something set it to false)",
    OPENAI: "export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY and "
    "OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental",
    OPENLLMETRY: "export TRACELOOP_TRACE_CONTENT=true (or Traceloop.init(trace_content=True))",
    LANGCHAIN: "export TRACELOOP_TRACE_CONTENT=true (OpenLLMetry) or OPENINFERENCE_HIDE_INPUTS=false and "
    "OPENINFERENCE_HIDE_OUTPUTS=false (OpenInference)",
    STRANDS: "export OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental (Strands records content by default)",
    AGENTEVALS: "export OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY for the instrumented client",
    OPENINFERENCE: "OpenInference records llm.input_messages / llm.output_messages unless hidden: unset "
    "OPENINFERENCE_HIDE_INPUTS, OPENINFERENCE_HIDE_OUTPUTS, OPENINFERENCE_HIDE_INPUT_MESSAGES and "
    "OPENINFERENCE_HIDE_OUTPUT_MESSAGES (or pass TraceConfig(hide_inputs=False, hide_outputs=False) to the "
    "instrumentor)",
    TRPC: "trpc-agent-go's chat spans carry gen_ai.input.messages.otel / gen_ai.output.messages.otel unless a span "
    "attribute policy given to trace.Start withholds them: remove trace.WithAttributeRule(trace.OperationChat, "
    "trace.AttrInputMessagesOTel or trace.AttrOutputMessagesOTel, trace.Drop() / trace.Omit() / trace.Truncate(n)) "
    'from trace.WithSpanAttributePolicy (an omitted value reads {"omitted":true})',
    GENAI: "turn on your instrumentation's content capture, e.g. "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY, or set gen_ai.input.messages / "
    "gen_ai.output.messages on the model-call spans",
}
_TOOL_FIX = {
    ADK2: "content capture records tool results too: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY",
    ADK1: "export ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (gcp.vertex.agent.tool_response)",
}
_TOOL_FIX_DEFAULT = (
    "set gen_ai.tool.call.result on each execute_tool span, or record the model call that receives the tool "
    "message (its input carries the result)"
)
_USAGE_FIX = {
    OPENAI: "usage is recorded when the API returns it; with stream=True pass stream_options={'include_usage': True}",
    OPENLLMETRY: "usage is recorded when the API returns it; with stream=True pass "
    "stream_options={'include_usage': True}",
    ADK1: "ADK records the model's usage_metadata; a model (or test double) that returns none leaves usage out",
    ADK2: "ADK records the model's usage_metadata; a model (or test double) that returns none leaves usage out",
}
_USAGE_FIX_DEFAULT = "set gen_ai.usage.input_tokens and gen_ai.usage.output_tokens on each model-call span"
_TREE_FIX = (
    "the exporter wrote parent links that are not a tree (a span its own parent, a loop) or repeated span ids; "
    "each trace is read as a tree without them: check the instrumentation that sets parentSpanId"
)
_LOG_EVENT = "gen_ai.client.inference.operation.details"
_BLOCKING = ("message content", "log records")
_LOGS_FIX = (
    "if the agent ran with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=EVENT_ONLY, export the OpenTelemetry "
    "log records too (OTLP JSON) and give them with the spans, e.g. both files in one directory"
)


@dataclass(slots=True)
class Check:
    """One finding: ``name`` (``message content``, ``tool results``, ``token usage``, ``log records``, ...),
    ``status`` (``ok``, ``missing``, ``partial``, ``note``), what was seen and, for a gap, the ``fix``."""

    name: str
    status: Status
    detail: str
    fix: str = ""


@dataclass(slots=True)
class ProducerReport:
    """The spans one producer wrote (``traces`` they appear in, ``spans`` counted) and the checks on them."""

    producer: str
    traces: int
    spans: int
    checks: list[Check] = field(default_factory=list)


@dataclass(slots=True)
class DoctorReport:
    """The diagnosis of a file or directory: counts, one report per producer, and notes on the whole input."""

    path: str
    files: int
    traces: int
    genai_traces: int
    producers: list[ProducerReport] = field(default_factory=list)
    notes: list[Check] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        """True when the model calls carry message content, the one thing no score can do without (missing tool
        results or usage only empty some metrics)."""
        return bool(self.genai_traces) and not any(
            c.status == "missing" and c.name in _BLOCKING for p in self.producers for c in p.checks
        )

    @property
    def gaps(self) -> list[str]:
        """What is partly or wholly missing, per producer: ``message content: 4 of 8 model calls (OpenAI ...)``."""
        return [
            f"{c.name}: {c.detail} ({p.producer})"
            for p in self.producers
            for c in p.checks
            if c.status in ("missing", "partial")
        ]

    @property
    def verdict(self) -> Verdict:
        """``ready`` (nothing missing), ``ready with gaps`` (scores can be made, some metrics miss what the
        :attr:`gaps` name) or ``not ready`` (:attr:`ready` is false)."""
        if not self.ready:
            return "not ready"
        return "ready with gaps" if self.gaps else "ready"

    def to_json(self) -> dict[str, Any]:
        """The report as plain JSON data (``--format json``)."""
        return {**asdict(self), "ready": self.ready, "verdict": self.verdict, "gaps": self.gaps}


def _scope_producer(span: Span) -> str:
    scope = span.scope.lower()
    if "openinference" in scope or "openinference.span.kind" in span.attributes:
        return OPENINFERENCE
    if "trpc" in scope or any(k.startswith("trpc.go.agent.") for k in span.attributes):
        return TRPC
    if "langchain" in scope or "langgraph" in scope or any(k.startswith("langchain.") for k in span.attributes):
        return LANGCHAIN
    if "strands" in scope or span.attributes.get("gen_ai.system") == "strands-agents":
        return STRANDS
    if "openai_v2" in scope or (scope == "opentelemetry.util.genai.handler" and span.attr("gen_ai.provider.name")):
        return OPENAI
    if any(k.startswith(("gen_ai.prompt.", "gen_ai.completion.", "llm.")) for k in span.attributes):
        return OPENLLMETRY
    if scope.startswith(("opentelemetry.instrumentation.openai", "traceloop")):
        return OPENLLMETRY
    return ""


def _adk_legacy(span: Span) -> bool:
    return span.name.startswith("call_llm") or "gcp.vertex.agent.llm_request" in span.attributes


def _producer(span: Span, adk_legacy: bool) -> str:
    attrs = span.attributes
    if span.scope == "gcp.vertex.agent" or any(k.startswith("gcp.vertex.agent.") for k in attrs):
        return ADK1 if adk_legacy else ADK2
    found = _scope_producer(span)
    if found:
        return found
    if span.resource.get("agentevals.session_name") is not None:
        return AGENTEVALS
    return GENAI


def producer_of(spans: list[Span]) -> str:
    """The producer that wrote most of a trace's agent, model and tool spans (:data:`GENAI` when none is known)."""
    relevant = [s for s in spans if is_agent_span(s) or _is_llm(s) or _is_tool(s)] or spans
    legacy = any(_adk_legacy(s) for s in relevant)
    counts: dict[str, int] = {}
    for span in relevant:
        producer = _producer(span, legacy)
        counts[producer] = counts.get(producer, 0) + 1
    return max(counts, key=lambda p: counts[p]) if counts else GENAI


def content_fix(producer: str) -> str:
    """The setting that makes ``producer`` record message content (for ADK 2.x, also where ``EVENT_ONLY`` put it)."""
    fix = _CONTENT_FIX.get(producer, _CONTENT_FIX[GENAI])
    if producer == ADK2:
        fix += (
            "; with EVENT_ONLY the content is in OpenTelemetry log records: give their OTLP JSON export together "
            "with the spans, e.g. in one directory"
        )
    return fix


def _has_content(span: Span) -> bool:
    return bool(input_messages(span) or output_messages(span))


def _has_usage(span: Span, above: Callable[[Span], bool]) -> bool:
    # The same call seen by two instrumentations (ADK's call_llm over an OpenAI client span): either may hold it.
    return above(span) or any(span_usage(s) for s in (span, *span.descendants()) if _is_llm(s))


def _tool_result(span: Span) -> bool:
    keys = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response", "trpc.go.agent.tool_response")
    return any(key in span.attributes and not is_withheld(span.attributes[key]) for key in keys)


def _answered_ids(spans: Iterable[Span]) -> set[str]:
    return {
        response.id
        for span in spans
        if _is_llm(span)
        for message in input_messages(span)
        for response in message.tool_responses
        if response.id
    }


@dataclass(slots=True)
class _Tally:
    """Counts for one producer, summed trace by trace (so a large input is never held whole)."""

    traces: int = 0
    spans: int = 0
    calls: int = 0
    content: int = 0
    usage: int = 0
    logs_merged: bool = False
    tools: int = 0
    results: int = 0
    requested: int = 0
    answered: int = 0
    nested: int = 0

    def add(self, spans: list[Span], answered: set[str]) -> None:
        self.traces += 1
        self.spans += len(spans)
        in_llm = ancestor_test(_is_llm)  # remembers its answers: a deeply nested trace costs O(spans)
        usage_above = ancestor_test(lambda a: _is_llm(a) and bool(span_usage(a)))
        llms = [s for s in spans if _is_llm(s) and not in_llm(s)]
        self.nested += sum(_is_llm(s) for s in spans) - len(llms)
        self.calls += len(llms)
        self.content += sum(_has_content(s) for s in llms)
        self.usage += sum(_has_usage(s, usage_above) for s in llms)
        self.logs_merged = self.logs_merged or any(e.name == _LOG_EVENT for s in llms for e in s.events)
        tools = [s for s in spans if _is_tool(s)]
        self.tools += len(tools)
        for tool in tools:
            call_id = tool.attributes.get("gen_ai.tool.call.id")
            self.results += _tool_result(tool) or (str(call_id) in answered if call_id else False)
        if not tools:
            requested = {c.id for s in llms for m in output_messages(s) for c in m.tool_calls if c.id}
            self.requested += len(requested)
            self.answered += len(requested & answered)


def _share(label: str, have: int, total: int, what: str, fix: str) -> Check:
    if have == total:
        return Check(label, "ok", f"{have} of {total} {what}")
    status: Status = "missing" if have == 0 else "partial"
    return Check(label, status, f"{have} of {total} {what}", fix)


def _checks(producer: str, tally: _Tally) -> list[Check]:
    out: list[Check] = []
    if tally.nested:
        out.append(Check("model calls", "note", f"{tally.nested} call(s) inside another instrumentation's model-call "
                         "spans: the same calls, read there (their token counts fill gaps)"))  # fmt: skip
    if tally.calls:
        out.append(_share("message content", tally.content, tally.calls, "model calls", _CONTENT_FIX[producer]))
        if tally.logs_merged:
            out.append(Check("log records", "ok", "content merged from OpenTelemetry log records"))
        elif producer == ADK2 and tally.content < tally.calls:
            out.append(Check("log records", "missing", "none merged into the spans", _LOGS_FIX))
        out.append(_share("token usage", tally.usage, tally.calls, "model calls",
                          _USAGE_FIX.get(producer, _USAGE_FIX_DEFAULT)))  # fmt: skip
    if tally.tools:
        fix = _TOOL_FIX.get(producer, _TOOL_FIX_DEFAULT)
        out.append(_share("tool results", tally.results, tally.tools, "tool calls", fix))
    elif tally.requested:
        out.append(_share("tool results", tally.answered, tally.requested, "requested tool calls", _TOOL_FIX_DEFAULT))
    return out


def diagnose_traces(traces: Iterable[Trace], path: str, files: int) -> DoctorReport:
    """The :class:`DoctorReport` of ``traces`` (read from ``path``, ``files`` files), taken one at a time."""
    tallies: dict[str, _Tally] = {}
    total = genai = named = without_agents = mended = 0
    repairs = TreeRepairs()
    for trace in traces:
        total += 1
        if trace.repairs:
            mended += 1
            repairs.add(trace.repairs)
        relevant = [s for s in trace.spans if is_agent_span(s) or _is_llm(s) or _is_tool(s)]
        if not relevant:
            continue
        genai += 1
        named += any(s.attr(EVAL_ID_ATTRIBUTE) or s.attr(AGENTEVALS_CASE_ATTRIBUTE) for s in trace.spans)
        without_agents += not any(is_agent_span(s) for s in relevant)
        answered = _answered_ids(relevant)
        legacy = any(_adk_legacy(s) for s in relevant)
        groups: dict[str, list[Span]] = {}
        for span in relevant:
            groups.setdefault(_producer(span, legacy), []).append(span)
        for producer, spans in groups.items():
            tallies.setdefault(producer, _Tally()).add(spans, answered)
    report = DoctorReport(path, files, total, genai)
    for producer, tally in tallies.items():
        report.producers.append(ProducerReport(producer, tally.traces, tally.spans, _checks(producer, tally)))
    if mended:
        detail = f"{mended} of {total} traces had links mended: {repairs.describe()}"
        report.notes.append(Check("span tree", "note", detail, _TREE_FIX))
    if genai:
        report.notes.append(_case_note(named, genai))
        if without_agents:
            report.notes.append(Check("turns", "note", f"{without_agents} of {genai} traces have no agent span: turns "
                                      "are grouped by their latest user message"))  # fmt: skip
    return report


def _case_note(named: int, total: int) -> Check:
    if named == total:
        return Check("eval case ids", "ok", f"{named} of {total} traces name their eval case")
    return Check(
        "eval case ids",
        "note",
        f"{named} of {total} traces name their eval case; the others are matched by session id or first user message",
        f'span.set_attribute("{EVAL_ID_ATTRIBUTE}", case_id) on a span of the run (or {AGENTEVALS_CASE_ATTRIBUTE})',
    )


def diagnose(path: str | os.PathLike[str]) -> DoctorReport:
    """Diagnose the trace file or directory at ``path`` (an :class:`~agentgauge.errors.InputError` when it cannot
    be read at all; a trace without content is a finding, not an error)."""
    files = len(trace_files(path))
    return diagnose_traces((trace for _, trace in iter_trace_groups(path)), os.fspath(path), files)
