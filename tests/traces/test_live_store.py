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


def test_memory_is_bounded_in_bytes_and_dropped_traces_are_read_back_from_disk(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp", max_memory_bytes=20_000, max_listed_sessions=4)
    for number in range(1, 7):
        store.receive(_trace_doc(number), "traces")
        assert 0 < store.held_memory <= 20_000
    assert [s.key for s in store.sessions()] == ["s6", "s5", "s4", "s3"]  # older ones are on disk only
    assert not store.sessions()[-1].held and store.sessions()[0].held
    assert store.summary("s3").turns == 1 and store.summary("s3").first_user_text == "q3"
    assert _turns(store, "s3") == [("q3", "a3", [])]  # read back from its line
    with pytest.raises(NotFoundError):
        store.session("s1")
    from_files = read_conversations(tmp_path / "otlp", by_session=True).conversations
    assert sorted(c.session_id for c in from_files) == [f"s{n}" for n in range(1, 7)]


def test_the_session_being_updated_is_dropped_too_when_it_alone_passes_the_budget(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp", max_memory_bytes=24_000)
    for number in range(1, 9):  # eight traces of one session: far beyond the budget together
        doc = _trace_doc(number)
        for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
            span["attributes"][1]["value"]["stringValue"] = "one"
        store.receive(doc, "traces")
        assert store.held_memory <= 24_000
    [session] = store.sessions()
    assert len(session.traces) == 8 and [t.spans is None for t in session.traces.values()][:5] == [True] * 5
    summary = store.summary("one")
    assert (summary.turns, summary.input_tokens, summary.trace_count) == (8, 8 * 14, 8)  # two model calls a turn
    assert [u for u, _, _ in _turns(store, "one")] == [f"q{n}" for n in range(1, 9)]


def test_the_index_of_sessions_and_traces_counts_against_the_budget_too(tmp_path: Path) -> None:
    """Traces without much in them still cost their index entry (about 1 KiB a trace, 1 KiB a session): beyond
    half the budget the least recently updated sessions are forgotten, so tiny traces cannot grow the server."""
    store = LiveStore(tmp_path / "otlp", max_memory_bytes=64_000)  # the index may take 32,000 bytes: 15 sessions
    for number in range(1, 41):
        store.receive(_trace_doc(number, spans=2), "traces")
        assert store.held_memory <= 64_000
    assert [s.key for s in store.sessions()] == [f"s{n}" for n in range(40, 25, -1)]
    assert store.changes(0).removed[-1] == "s25"
    from_files = read_conversations(tmp_path / "otlp", by_session=True).conversations
    assert len(from_files) == 40  # forgotten from the listing, not from the files


def test_a_torn_tail_is_cut_before_the_next_append_and_every_acknowledged_request_survives_restarts(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "otlp"
    LiveStore(folder).receive(_trace_doc(1), "traces")
    [file] = folder.iterdir()
    with file.open("ab") as handle:
        handle.write(b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "00')  # a writer killed mid-line
    restarted = LiveStore(folder)  # the torn line is skipped, not an error
    assert [s.key for s in restarted.sessions()] == ["s1"]
    assert restarted.receive(_trace_doc(2), "traces") == ["s2"]  # acknowledged
    assert file.read_bytes().count(b"\n") == 2 and file.read_bytes().endswith(b"\n")
    for _ in range(2):
        again = LiveStore(folder)
        assert sorted(s.key for s in again.sessions()) == ["s1", "s2"]
        assert _turns(again, "s2") == [("q2", "a2", [])]
    assert sorted(c.session_id for c in read_conversations(folder, by_session=True).conversations) == ["s1", "s2"]


def test_a_failed_write_leaves_no_half_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from agentgauge.traces import _live_files

    store = LiveStore(tmp_path / "otlp")
    store.receive(_trace_doc(1), "traces")
    real_write = os.write

    def disk_full(fd: int, data: Any) -> int:
        real_write(fd, bytes(data)[:10])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_live_files.os, "write", disk_full)
    with pytest.raises(OSError, match="No space"):
        store.receive(_trace_doc(2), "traces")
    monkeypatch.undo()
    [file] = (tmp_path / "otlp").iterdir()
    assert file.read_bytes().count(b"\n") == 1 and file.read_bytes().endswith(b"\n")
    assert [s.key for s in store.sessions()] == ["s1"]


def _many_sessions(count: int, spans_per_trace: int = 2) -> dict[str, Any]:
    """One export request holding ``count`` one-trace sessions."""
    spans = []
    for number in range(count):
        spans.extend(_trace_doc(number + 1, spans_per_trace)["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "test"}, "spans": spans}]}]}


def test_two_thousand_sessions_are_listed_after_a_restart_without_reading_a_received_file(tmp_path: Path) -> None:
    import shutil
    import time

    folder = tmp_path / "otlp"
    LiveStore(folder).receive(_many_sessions(2_000), "traces")
    restarted = LiveStore(folder)
    shutil.rmtree(folder)  # whatever the listing needs is in memory: nothing is read back
    started = time.monotonic()
    summaries = [restarted.summary(s.key) for s in restarted.sessions()]
    assert time.monotonic() - started < 1.0  # generous: about 0.1 s here
    assert len(summaries) == 2_000 and {s.turns for s in summaries} == {1}
    assert sorted(s.first_user_text for s in summaries) == sorted(f"q{n}" for n in range(1, 2_001))
    assert restarted.summary("s7") is summaries[-7]  # made once per version


def test_changes_cost_what_changed(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp", max_listed_sessions=3)
    everything = store.changes(0)
    assert everything.sessions == [] and everything.complete
    for number in range(1, 5):
        store.receive(_trace_doc(number), "traces")
    first = store.changes(0)
    assert [s.key for s in first.sessions] == ["s4", "s3", "s2"] and first.removed == ["s1"]
    store.receive(_trace_doc(3), "traces")
    later = store.changes(first.number)
    assert [s.key for s in later.sessions] == ["s3"] and later.removed == [] and later.complete
    for number in range(5, 12):  # more removals than the store remembers (as many as it lists)
        store.receive(_trace_doc(number), "traces")
    assert not store.changes(later.number).complete and store.changes(store.changes(0).number).complete


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"startTimeUnixNano": float("inf")}, "spans[0].startTimeUnixNano: number out of range: inf"),
        ({"droppedAttributesCount": 2**64}, "spans[0].droppedAttributesCount: number out of range"),
        ({"startTimeUnixNano": -1}, "spans[0].startTimeUnixNano: expected an integer from 0 to"),
    ],
)
def test_a_document_with_a_number_out_of_range_is_refused_before_anything_is_stored(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    doc = _trace_doc(1)
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0].update(change)
    store = LiveStore(tmp_path / "otlp")
    with pytest.raises(InputError) as info:
        store.receive(doc, "traces", "/v1/traces")
    assert str(info.value).startswith("/v1/traces: resourceSpans[0].scopeSpans[0].") and message in str(info.value)
    assert str(tmp_path) not in str(info.value)
    assert not (tmp_path / "otlp").exists() and store.sessions() == []


def test_a_document_nested_too_deep_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    doc = _trace_doc(1)
    deep: Any = 1
    for _ in range(250):  # orjson writes at most 255 levels
        deep = {"x": deep}
    doc["resourceSpans"][0]["unknownField"] = deep
    store = LiveStore(tmp_path / "otlp")
    with pytest.raises(InputError, match=r"^<OTLP traces export>: resourceSpans\[0\]\.unknownField\.x.*deeper than"):
        store.receive(doc, "traces")
    assert not (tmp_path / "otlp").exists()


def test_a_session_with_mended_span_links_says_so(tmp_path: Path) -> None:
    doc = _trace_doc(1)
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    spans[0]["parentSpanId"] = spans[0]["spanId"]  # its own parent
    spans[1]["parentSpanId"], spans[2]["parentSpanId"] = spans[2]["spanId"], spans[1]["spanId"]  # a loop of two
    store = LiveStore(tmp_path / "otlp")
    store.receive(doc, "traces")
    summary = store.summary("s1")
    assert summary.turns == 1 and summary.warning_count == 1
    assert "1 span(s) named as their own parent" in summary.warnings[0] and "1 loop(s)" in summary.warnings[0]


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
