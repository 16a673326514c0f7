"""The live store of received OTLP data: grouping by session as ``eval --traces --by-session`` does, spans and log
records merged, everything appended to files that ``eval --traces`` reads and a restart reloads, memory bounded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError, NotFoundError
from agentgauge.traces import LiveStore, export_document, read_conversations

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "traces" / "data" / "recorded"
ADK_WEATHER = ROOT / "examples" / "traces" / "adk_weather.otlp.jsonl"


def _documents(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _feed(store: LiveStore, path: Path, signal: str = "traces") -> None:
    for doc in _documents(path):
        store.receive(doc, signal)  # type: ignore[arg-type]


def _turns(store: LiveStore, key: str) -> list[tuple[str, str | None, list[str]]]:
    conversations, _, _ = store.conversations(key)
    return [
        (
            inv.user_content.content,
            inv.final_response.content if inv.final_response else None,
            [t.name for t in inv.tools],
        )
        for c in conversations
        for inv in c.invocations
    ]


def test_per_turn_traces_are_one_session_as_by_session_groups_them(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp")
    _feed(store, RECORDED / "adk_per_turn.otlp.jsonl")
    [session] = store.sessions()
    assert len(session.trace_ids) == 2 and session.session_id and session.key == session.session_id
    assert session.ended
    expected = read_conversations(RECORDED / "adk_per_turn.otlp.jsonl", by_session=True).conversations
    assert [(i.user_content.content, i.final_response.content if i.final_response else None) for i in
            expected[0].invocations] == [(u, r) for u, r, _ in _turns(store, session.key)]  # fmt: skip
    assert [u for u, _, _ in _turns(store, session.key)] == ["What is the weather in Paris?", "And in Tokyo?"]


def test_log_records_sent_apart_are_merged_into_their_spans(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp")
    _feed(store, RECORDED / "adk_event_only" / "spans.otlp.jsonl")
    before = store.conversations(store.sessions()[0].key)
    assert before[0] == [] and any("content" in note for note in before[1])  # content is in the logs
    _feed(store, RECORDED / "adk_event_only" / "logs.otlp.jsonl", "logs")
    [session] = store.sessions()
    turns = _turns(store, session.key)
    assert [t[0] for t in turns] == ["What is the weather in Paris?", "And in Tokyo?"]
    assert turns[0][2] == ["get_weather"] and turns[0][1] == "It is sunny in Paris, 21 °C."


def test_received_files_are_what_eval_traces_reads_and_a_restart_reloads(tmp_path: Path) -> None:
    folder = tmp_path / "otlp"
    store = LiveStore(folder)
    _feed(store, RECORDED / "adk_event_only" / "spans.otlp.jsonl")
    _feed(store, RECORDED / "adk_event_only" / "logs.otlp.jsonl", "logs")
    _feed(store, ADK_WEATHER)
    assert [p.name for p in folder.iterdir()] == ["received-00001.jsonl"]
    from_files = read_conversations(folder, by_session=True).conversations
    assert sorted(len(c.invocations) for c in from_files) == [2, 2]
    again = LiveStore(folder)
    assert [(s.key, s.trace_ids, s.span_count, s.ended) for s in again.sessions()] == [
        (s.key, s.trace_ids, s.span_count, s.ended) for s in store.sessions()
    ]
    for session in store.sessions():
        assert _turns(again, session.key) == _turns(store, session.key)


def test_a_trace_joins_its_session_when_a_later_span_names_it(tmp_path: Path) -> None:
    """Exporters send children first: the trace is its own session until a span names the session id."""
    store = LiveStore(tmp_path / "otlp")
    spans = _documents(ADK_WEATHER)
    doc = spans[0]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    trace_id = doc["traceId"]
    bare = {
        "resourceSpans": [
            {"scopeSpans": [{"spans": [{"traceId": trace_id, "spanId": "00000000000000aa", "name": "child"}]}]}
        ]
    }
    store.receive(bare, "traces")
    assert [s.key for s in store.sessions()] == [trace_id]
    _feed(store, ADK_WEATHER)
    [session] = store.sessions()
    assert session.key != trace_id and session.trace_ids == [trace_id]
    assert session.span_count == 1 + sum(
        len(g["spans"]) for d in spans for r in d["resourceSpans"] for g in r["scopeSpans"]
    )


def _trace_doc(number: int, spans: int = 3) -> dict[str, Any]:
    trace_id = f"{number:032x}"
    items = [
        {
            "traceId": trace_id,
            "spanId": f"{i + 1:016x}",
            "parentSpanId": "" if i == 0 else f"{1:016x}",
            "name": "chat model" if i else "invoke_agent bot",
            "startTimeUnixNano": str(1_000 + i),
            "endTimeUnixNano": str(2_000 - i),
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat" if i else "invoke_agent"}},
                {"key": "gen_ai.conversation.id", "value": {"stringValue": f"s{number}"}},
                {
                    "key": "gen_ai.input.messages",
                    "value": {
                        "stringValue": json.dumps(
                            [{"role": "user", "parts": [{"type": "text", "content": f"q{number}"}]}]
                        )
                    },
                },
                {
                    "key": "gen_ai.output.messages",
                    "value": {
                        "stringValue": json.dumps(
                            [{"role": "assistant", "parts": [{"type": "text", "content": f"a{number}"}]}]
                        )
                    },
                },
                {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "7"}},
            ],
        }
        for i in range(spans)
    ]
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "test"}, "spans": items}]}]}


def test_memory_is_bounded_and_dropped_sessions_are_read_back_from_disk(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp", max_live_sessions=2, max_cached_spans=7, max_listed_sessions=4)
    for number in range(1, 7):
        store.receive(_trace_doc(number), "traces")
        held = [s for s in store.sessions() if s.spans is not None]
        assert len(held) <= 2 and store.cached_spans <= 7 + 3  # the session just updated always stays
    assert [s.key for s in store.sessions()] == ["s6", "s5", "s4", "s3"]  # older ones are on disk only
    assert store.sessions()[-1].spans is None
    assert _turns(store, "s3") == [("q3", "a3", [])]
    with pytest.raises(NotFoundError):
        store.session("s1")
    from_files = read_conversations(tmp_path / "otlp", by_session=True).conversations
    assert sorted(c.session_id for c in from_files) == [f"s{n}" for n in range(1, 7)]


def test_an_empty_export_request_changes_nothing(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp")
    assert store.receive(export_document(b"{}", protobuf=False, signal="traces"), "traces") == []
    assert store.sessions() == [] and not (tmp_path / "otlp").exists()


@pytest.mark.parametrize(
    ("body", "signal", "message"),
    [
        (b"[1]", "traces", "expected an OTLP export object, found list"),
        (b'{"resourceLogs": []}', "traces", "not an OTLP traces export: expected 'resourceSpans'"),
        (b'{"resourceSpans": {}}', "traces", "expected an array"),
        (b"{", "logs", "invalid JSON"),
        (b"\x0a\x05junk", "traces", "invalid OTLP protobuf"),
    ],
)
def test_bad_export_bodies_are_input_errors(body: bytes, signal: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        export_document(body, protobuf=body.startswith(b"\x0a"), signal=signal, source="/v1/x")  # type: ignore[arg-type]


_hex = st.text("0123456789abcdef", min_size=1, max_size=1)


@settings(max_examples=40, deadline=None)
@given(
    trace_id=st.binary(min_size=16, max_size=16).filter(any),
    span_id=st.binary(min_size=8, max_size=8).filter(any),
    name=st.text(max_size=30),
    value=st.one_of(st.text(max_size=30), st.integers(-(2**63), 2**63 - 1), st.booleans()),
    start=st.integers(0, 2**63),
)
def test_a_protobuf_request_reads_as_the_same_span_as_its_json(
    trace_id: bytes, span_id: bytes, name: str, value: Any, start: int
) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans
    from opentelemetry.proto.trace.v1.trace_pb2 import Span as ProtoSpan

    any_value = (
        AnyValue(bool_value=value)
        if isinstance(value, bool)
        else AnyValue(int_value=value)
        if isinstance(value, int)
        else AnyValue(string_value=value)
    )
    span = ProtoSpan(
        trace_id=trace_id,
        span_id=span_id,
        name=name,
        start_time_unix_nano=start,
        attributes=[KeyValue(key="k", value=any_value)],
    )
    request = ExportTraceServiceRequest(resource_spans=[ResourceSpans(scope_spans=[ScopeSpans(spans=[span])])])
    doc = export_document(request.SerializeToString(), protobuf=True, signal="traces")
    from agentgauge.traces import payload_spans

    [read] = payload_spans(doc, "wire")
    assert (read.trace_id, read.span_id, read.name, read.start_ns) == (trace_id.hex(), span_id.hex(), name, start)
    assert read.attributes["k"] == value
    as_json = json.dumps(doc).encode()
    [again] = payload_spans(export_document(as_json, protobuf=False, signal="traces"), "file")
    assert (again.trace_id, again.span_id, again.attributes) == (read.trace_id, read.span_id, read.attributes)


def test_registered_secrets_never_reach_the_files(tmp_path: Path) -> None:
    from agentgauge._util.redact import clear_secrets, register_secret

    doc = _trace_doc(1)
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"].append(
        {"key": "http.request.header.authorization", "value": {"stringValue": "Bearer sk-live-0123456789"}}
    )
    register_secret("sk-live-0123456789")
    try:
        store = LiveStore(tmp_path / "otlp")
        store.receive(doc, "traces")
    finally:
        clear_secrets()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "otlp").iterdir())
    assert b"sk-live" not in stored and b"Bearer ***" in stored
    [root] = [s for s in store.spans("s1") if not s.parent_id]
    assert root.attributes["http.request.header.authorization"] == "Bearer ***"
