"""Recorded OpenTelemetry traces as agent conversations: read, inspect, turn into eval sets, score.

Readers accept Jaeger JSON, OTLP JSON (also Grafana Tempo's ``batches`` and ``{"trace": ...}`` exports, and
protobuf-JSON base64 ids) and OTLP JSONL (one span or one export request per line); OTLP log records are merged
into the spans they name. Conversations are extracted
from Google ADK 1.x spans (``invoke_agent`` / ``call_llm`` / ``execute_tool``), ADK 2.x spans (``invoke_workflow``
/ ``invoke_agent`` / ``generate_content`` / ``execute_tool``, content captured on spans), OpenTelemetry GenAI
semantic conventions (``gen_ai.input.messages`` / ``gen_ai.output.messages``, parts- or content-based) and the
older flattened ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` attributes. One trace is one conversation.

:func:`export_result` goes the other way: an eval set result as OTLP spans with the GenAI evaluation attributes.

Example::

    from agentgauge.traces import read_conversations, golden_eval_set

    found = read_conversations("traces/")
    for conversation in found.conversations:
        print(conversation.trace_id, [inv.user_content.content for inv in conversation.invocations])
    eval_set = golden_eval_set(found.conversations, "recorded")
"""

from ._cases import (
    ONLY_CASE,
    Conversations,
    TraceMatch,
    TraceMatching,
    golden_eval_set,
    match_traces,
    merge_by_session,
    read_conversations,
    trace_eval_set,
)
from ._export import TRACE_ID_KEY, evaluation_events, export_result, result_to_otlp, traces_endpoint
from ._extract import (
    AGENTEVALS_CASE_ATTRIBUTE,
    CAPTURE_HINT,
    EVAL_ID_ATTRIBUTE,
    TraceConversation,
    extract_conversation,
    is_genai_trace,
)
from ._index import ConversationIndex, PlannedCase, index_conversations, plan_cases
from ._live_conversation import session_conversations, trace_conversation
from ._live_files import LineRef, ReceivedFiles
from ._live_session import SESSION_ATTRIBUTES, LiveSession, LiveTrace
from ._live_store import DEFAULT_LIVE_MEMORY_BYTES, LiveChanges, LiveStore
from ._live_summary import LiveSummary
from ._messages import ChatMessage, MessageToolCall, ToolResponse, input_messages, output_messages
from ._otlp_payload import (
    OTLP_PROTO_HINT,
    Signal,
    check_document,
    export_document,
    payload_spans,
    proto_request_document,
)
from ._read import iter_trace_groups, load_traces, merge_log_records, parse_spans, parse_traces, trace_files
from ._spans import Span, SpanEvent, Trace, TreeRepairs, build_traces
from ._usage import turn_tokens

# The old name of MessageToolCall, kept for callers of the public API; agentgauge.agents.ToolCall is a different
# thing (an event an agent yields), so the class itself is named after where it lives: in a ChatMessage.
ToolCall = MessageToolCall

__all__ = [
    "AGENTEVALS_CASE_ATTRIBUTE",
    "CAPTURE_HINT",
    "DEFAULT_LIVE_MEMORY_BYTES",
    "EVAL_ID_ATTRIBUTE",
    "ONLY_CASE",
    "OTLP_PROTO_HINT",
    "SESSION_ATTRIBUTES",
    "TRACE_ID_KEY",
    "ChatMessage",
    "ConversationIndex",
    "Conversations",
    "LineRef",
    "LiveChanges",
    "LiveSession",
    "LiveStore",
    "LiveSummary",
    "LiveTrace",
    "MessageToolCall",
    "PlannedCase",
    "ReceivedFiles",
    "Signal",
    "Span",
    "SpanEvent",
    "ToolCall",
    "ToolResponse",
    "Trace",
    "TraceConversation",
    "TraceMatch",
    "TraceMatching",
    "TreeRepairs",
    "build_traces",
    "check_document",
    "evaluation_events",
    "export_document",
    "export_result",
    "extract_conversation",
    "golden_eval_set",
    "index_conversations",
    "input_messages",
    "is_genai_trace",
    "iter_trace_groups",
    "load_traces",
    "match_traces",
    "merge_by_session",
    "merge_log_records",
    "output_messages",
    "parse_spans",
    "parse_traces",
    "payload_spans",
    "plan_cases",
    "proto_request_document",
    "read_conversations",
    "result_to_otlp",
    "session_conversations",
    "trace_conversation",
    "trace_eval_set",
    "trace_files",
    "traces_endpoint",
    "turn_tokens",
]
