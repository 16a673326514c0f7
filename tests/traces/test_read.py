"""Trace file readers: Jaeger JSON, OTLP JSON (Tempo variants), OTLP JSONL, attribute decoding, precise errors."""

from __future__ import annotations

import base64
import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.traces import extract_conversation, load_traces, parse_traces, trace_files

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"
HAND = DATA / "handmade"
_FIELDS = ["resourceSpans", "batches", "trace", "scopeSpans", "instrumentationLibrarySpans", "spans", "data",
           "traceID", "spanID", "traceId", "spanId", "parentSpanId", "name", "operationName", "references",
           "refType", "tags", "key", "value", "type", "attributes", "events", "stringValue", "intValue",
           "arrayValue", "kvlistValue", "values", "processes", "logs", "fields", "resource", "scope",
           "startTimeUnixNano", "startTime", "duration"]  # fmt: skip


def _otlp(spans: list[dict[str, Any]], resource: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {"resource": {"attributes": resource or []}, "scopeSpans": [{"scope": {"name": "s"}, "spans": spans}]}
        ]
    }


def _span(span_id: str = "00000000000000a1", parent: str = "", **extra: Any) -> dict[str, Any]:
    return {"traceId": "0" * 31 + "1", "spanId": span_id, "parentSpanId": parent, "name": "n", **extra}


def test_jaeger_sample_tree_and_process_resource() -> None:
    [trace] = load_traces(AE / "helm.json")
    assert trace.trace_id == "3e289017fe03ffd7c4145316d2eb3d0d"
    assert len(trace.spans) == 96
    assert [r.name for r in trace.roots] == ["POST /"]
    invoke = next(s for s in trace.spans if s.name == "invoke_agent helm_agent")
    assert invoke.parent is not None and invoke.parent.name == "invocation"
    assert [c.name for c in invoke.children if c.name == "call_llm"] == ["call_llm", "call_llm"]
    # Jaeger's processes block becomes the resource (agentevals ignores it).
    assert invoke.attr("service.name") == "helm_agent"
    assert invoke.attr("service.namespace") == "kagent"
    assert invoke.start_ns == 1771237534578946 * 1000


def test_tempo_batches_with_instrumentation_library_spans() -> None:
    [trace] = load_traces(AE / "tempo_export_with_batches.json")
    assert trace.trace_id == "dd547580319ab0312cee07f1def50dad"
    scopes = {s.scope for s in trace.spans}
    assert "opentelemetry.instrumentation.httpx" in scopes


def test_tempo_v2_wrapper_and_scope_attributes() -> None:
    [trace] = load_traces(HAND / "genai_content.tempo.json")
    chat = next(s for s in trace.spans if s.name.startswith("chat"))
    assert chat.scope == "opentelemetry.instrumentation.openai_v2"
    assert chat.attr("service.name") == "orders-bot"
    assert chat.parent is not None and chat.parent.name == "POST /chat"


def test_otlp_any_values_are_decoded() -> None:
    attrs = [
        {"key": "s", "value": {"stringValue": "x"}},
        {"key": "i", "value": {"intValue": "42"}},
        {"key": "d", "value": {"doubleValue": 0.5}},
        {"key": "b", "value": {"boolValue": True}},
        {"key": "a", "value": {"arrayValue": {"values": [{"stringValue": "p"}, {"intValue": 3}]}}},
        {"key": "k", "value": {"kvlistValue": {"values": [{"key": "z", "value": {"boolValue": False}}]}}},
        {"key": "y", "value": {"bytesValue": base64.b64encode(b"hello").decode()}},
        {"key": "e", "value": {}},
    ]
    [trace] = parse_traces(json.dumps(_otlp([_span(attributes=attrs)])))
    assert trace.spans[0].attributes == {
        "s": "x", "i": 42, "d": 0.5, "b": True, "a": ["p", 3], "k": {"z": False}, "y": "hello", "e": None,
        "otel.scope.name": "s",
    }  # fmt: skip


def test_span_attribute_wins_over_resource_attribute() -> None:
    spans = [_span(attributes=[{"key": "service.name", "value": {"stringValue": "span"}}])]
    [trace] = parse_traces(json.dumps(_otlp(spans, [{"key": "service.name", "value": {"stringValue": "res"}}])))
    assert trace.spans[0].attr("service.name") == "span"
    assert trace.spans[0].resource["service.name"] == "res"


def test_flat_and_nested_dict_attributes() -> None:
    doc = _span(attributes={"gen_ai": {"request": {"model": "m"}}, "plain": 1})
    [trace] = parse_traces(json.dumps(doc), jsonl=True)
    assert trace.spans[0].attributes["gen_ai.request.model"] == "m"
    assert trace.spans[0].attributes["plain"] == 1


def test_base64_ids_from_protobuf_json_mapping() -> None:
    trace_id, span_id = bytes(range(16)), bytes(range(8))
    doc = _otlp(
        [
            {
                "traceId": base64.b64encode(trace_id).decode(),
                "spanId": base64.b64encode(span_id).decode(),
                "name": "x",
            }
        ]
    )
    [trace] = parse_traces(json.dumps(doc))
    assert trace.trace_id == trace_id.hex()
    assert trace.spans[0].span_id == span_id.hex()


def test_jsonl_lines_may_be_spans_or_export_requests() -> None:
    line1 = json.dumps(_span("00000000000000a1"))
    line2 = json.dumps(_otlp([_span("00000000000000a2", parent="00000000000000a1")]))
    [trace] = parse_traces(f"{line1}\n\n{line2}\n")
    assert [s.span_id for s in trace.walk()] == ["00000000000000a1", "00000000000000a2"]


def test_several_traces_keep_file_order() -> None:
    traces = load_traces(HAND / "openllmetry_and_events.spans.jsonl")
    assert [t.trace_id for t in traces] == ["1" * 32, "2" * 32]


def test_missing_parent_becomes_root_and_cycles_are_cut() -> None:
    spans = [_span("00000000000000a1", parent="00000000000000ff"), _span("00000000000000b1", parent="00000000000000b2"),
             _span("00000000000000b2", parent="00000000000000b1")]  # fmt: skip
    [trace] = parse_traces(json.dumps(_otlp(spans)))
    assert len(list(trace.walk())) == 3
    assert "00000000000000a1" in {r.span_id for r in trace.roots}


def test_directory_reads_trace_files_and_skips_eval_sets(tmp_path: Path) -> None:
    (tmp_path / "b.jsonl").write_text(json.dumps(_span("00000000000000b1")) + "\n")
    (tmp_path / "a.json").write_text(json.dumps(_otlp([_span("00000000000000a1")])))
    (tmp_path / "golden.evalset.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in trace_files(tmp_path)] == ["a.json", "b.jsonl"]
    [trace] = load_traces(tmp_path)  # both files hold spans of one trace: merged
    assert [s.span_id for s in trace.spans] == ["00000000000000a1", "00000000000000b1"]
    assert trace.source == str(tmp_path / "a.json")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "empty file"),
        ("{oops", "invalid JSON"),
        ('{"foo": 1}', "not a trace export: found an object with keys foo"),
        ('{"data": [{"traceID": "ab", "spans": [{"operationName": "x"}]}]}',
         "data[0].spans[0]: missing or invalid 'spanID'"),
        ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz!", "spanId": "01"}]}]}]}',
         "resourceSpans[0].scopeSpans[0].spans[0]: invalid 'traceId'"),
        ('{"resourceSpans": []}', "no spans found"),
        ('{"resourceSpans": [{"scopeSpans": 3}]}', "resourceSpans[0].scopeSpans: expected an array"),
    ],
)  # fmt: skip
def test_broken_files_name_file_and_path(content: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_traces(content, source="t.json", jsonl=False)
    assert str(info.value).startswith("t.json")
    assert message in str(info.value)


def test_broken_jsonl_line_is_named() -> None:
    good = json.dumps(_span())
    with pytest.raises(InputError, match=r"t.jsonl: line 2: invalid JSON"):
        parse_traces(f"{good}\n{{bad\n", source="t.jsonl", jsonl=True)


def test_missing_path_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        load_traces(tmp_path / "nope.json")
    with pytest.raises(InputError, match="no trace files"):
        load_traces(tmp_path)


_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_FIELDS), inner, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(_value)
def test_fuzzed_documents_give_clean_errors_only(doc: Any) -> None:
    for jsonl in (False, True):
        try:
            traces = parse_traces(json.dumps(doc), source="f.json", jsonl=jsonl)
        except InputError as exc:
            assert str(exc).startswith("f.json")
            continue
        for trace in traces:
            with contextlib.suppress(InputError):
                extract_conversation(trace)


@pytest.mark.parametrize(
    "span_extra",
    [
        {"attributes": [{"key": "x", "value": {"arrayValue": [1]}}]},
        {"attributes": [{"key": "x", "value": {"kvlistValue": 3}}]},
        {"events": 5},
        {
            "attributes": [
                {"key": "gen_ai.input.messages", "value": {"stringValue": '[{"role": "user", "tool_calls": 7}]'}}
            ]
        },
        {
            "attributes": [
                {"key": "gcp.vertex.agent.llm_request", "value": {"stringValue": '{"contents": [{"parts": 1}]}'}}
            ]
        },
    ],
)
def test_malformed_values_inside_valid_files_do_not_crash(span_extra: dict[str, Any]) -> None:
    [trace] = parse_traces(json.dumps(_otlp([_span(name="call_llm", **span_extra)])))
    with contextlib.suppress(InputError):
        extract_conversation(trace)


def test_malformed_jaeger_lists_do_not_crash() -> None:
    doc = {"data": [{"traceID": "ab", "processes": [], "spans": [{"spanID": "01", "references": 3, "logs": 4}]}]}
    [trace] = parse_traces(json.dumps(doc))
    assert trace.spans[0].parent_id == ""
