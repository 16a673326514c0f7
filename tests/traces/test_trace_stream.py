"""The streamed trace reader: the same traces as reading every file whole, handed on one trace at a time."""

from __future__ import annotations

import itertools
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.traces import build_traces, load_traces, merge_log_records, parse_spans, trace_files
from agentgauge.traces._read import iter_trace_groups
from agentgauge.traces._spans import Trace

DATA = Path(__file__).parent / "data"
AE = DATA / "agentevals"


def _whole(path: Path) -> list[Trace]:
    """The reference: every file parsed whole, spans grouped at the end (what load_traces did before streaming)."""
    spans = []
    for file in trace_files(path):
        jsonl = True if file.suffix == ".jsonl" else None
        spans.extend(parse_spans(file.read_bytes(), source=str(file), jsonl=jsonl, merge_logs=False))
    return build_traces(merge_log_records(spans, str(path)))


def _shape(traces: list[Trace]) -> list[tuple[Any, ...]]:
    """What a trace is made of: id, source, spans in order with parent, children, attributes, events, location."""
    return [
        (
            t.trace_id,
            t.source,
            [r.span_id for r in t.roots],
            [
                (s.span_id, s.parent.span_id if s.parent else "", [c.span_id for c in s.children], s.name,
                 s.attributes, s.resource, [(e.name, e.attributes) for e in s.events], s.location, s.source)
                for s in t.spans
            ],
        )
        for t in traces
    ]  # fmt: skip


@pytest.mark.parametrize(
    "path",
    [
        *sorted(p for p in DATA.rglob("*.json*") if "evalset" not in p.name and "eval_set" not in p.name),
        DATA / "recorded" / "adk_event_only",
    ],
    ids=lambda p: p.name,
)
def test_every_sample_reads_as_the_whole_file_reader_reads_it(path: Path) -> None:
    def outcome(read: Any) -> Any:
        try:
            return _shape(read(path))
        except InputError as exc:  # log records alone: the same error
            return str(exc)

    assert outcome(load_traces) == outcome(_whole)


def _jaeger_trace(number: int, spans: int = 3) -> dict[str, Any]:
    trace_id = f"{number + 1:032x}"
    return {
        "traceID": trace_id,
        "spans": [
            {"traceID": trace_id, "spanID": f"{i + 1:016x}", "operationName": f"op{i}", "startTime": i,
             "references": [{"refType": "CHILD_OF", "traceID": trace_id, "spanID": f"{i:016x}"}] if i else [],
             "tags": [{"key": "n", "type": "int64", "value": number}]}
            for i in range(spans)
        ],
        "processes": {},
    }  # fmt: skip


def test_traces_are_handed_on_before_the_rest_of_the_file_is_parsed(tmp_path: Path) -> None:
    doc = {"data": [_jaeger_trace(0), _jaeger_trace(1), {"traceID": "f" * 32, "spans": [{"operationName": "x"}]}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    groups = iter_trace_groups(path)
    first = next(groups)  # the third trace is broken, but it has not been parsed yet
    assert (first[0], first[1].trace_id, len(first[1].spans)) == (0, f"{1:032x}", 3)
    assert next(groups)[1].trace_id == f"{2:032x}"
    with pytest.raises(InputError) as caught:
        next(groups)
    assert caught.value.location == "data[2].spans[0]"  # the same place the whole-file reader names
    with pytest.raises(InputError) as whole:
        _whole(path)
    assert str(whole.value) == str(caught.value)


def _peak_bytes(path: Path) -> int:
    tracemalloc.start()
    try:
        for _, trace in iter_trace_groups(path):
            for span in trace.spans:  # parents and children refer to each other: freed now, not at the next collection
                span.parent, span.children = None, []
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_number_of_traces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.traces import _scan

    monkeypatch.setattr(_scan, "_CHUNK", 1 << 16)  # the first pass reads 8 MB at a time: more than these files
    (sample,) = json.loads((AE / "helm.json").read_text())["data"]
    raw = json.dumps(sample)
    paths = []
    for copies in (10, 40):
        items = [raw.replace(sample["traceID"], f"{n + 1:032x}") for n in range(copies)]
        path = tmp_path / f"n{copies}.json"
        path.write_text('{"data": [' + ",".join(items) + "]}")
        paths.append(path)
    small, large = (_peak_bytes(p) for p in paths)
    assert large < 1.25 * small  # 4x the traces: the whole-file reader's peak grows about 4x (22 MB -> 87 MB)


def test_a_trace_spread_over_lines_and_files_is_one_trace_once_complete(tmp_path: Path) -> None:
    def line(trace: int, span: int, parent: int = 0) -> str:
        return json.dumps({"traceId": f"{trace:032x}", "spanId": f"{span:016x}",
                           "parentSpanId": f"{parent:016x}" if parent else "", "name": f"s{span}"})  # fmt: skip

    (tmp_path / "a.jsonl").write_text("\n".join([line(1, 1), line(2, 5), line(1, 2, 1)]) + "\n")
    (tmp_path / "b.jsonl").write_text("\n".join([line(3, 7), line(2, 6, 5)]) + "\n")
    handed = [(ordinal, trace.trace_id, len(trace.spans)) for ordinal, trace in iter_trace_groups(tmp_path)]
    # trace 1 ends in a.jsonl; trace 2 only in b.jsonl, after trace 3 started: handed on in that order,
    # numbered by first appearance
    assert handed == [(0, f"{1:032x}", 2), (2, f"{3:032x}", 1), (1, f"{2:032x}", 2)]
    assert _shape(load_traces(tmp_path)) == _shape(_whole(tmp_path))


def test_a_document_holding_two_exports_is_refused_when_the_first_is_not_the_one_used(tmp_path: Path) -> None:
    otlp = {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "1" * 32, "spanId": "2" * 16, "name": "x"}]}]}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({**otlp, "data": [_jaeger_trace(0)]}))  # resourceSpans first: data ignored, as before
    assert _shape(load_traces(path)) == _shape(_whole(path))
    path.write_text(json.dumps({"data": [_jaeger_trace(0)], **otlp}))
    with pytest.raises(InputError, match="holds 'data' beside another trace export"):
        load_traces(path)


def test_bad_json_is_named_as_the_whole_file_reader_names_it(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"data": [' + json.dumps(_jaeger_trace(0)) + ", {]}")
    with pytest.raises(InputError) as caught:
        list(iter_trace_groups(path))
    with pytest.raises(InputError) as whole:
        _whole(path)
    assert str(caught.value) == str(whole.value)
    assert "line 1 column" in str(caught.value)


_spans = st.lists(
    st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(0, 6), st.sampled_from(["a", "b"])),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(spans=_spans, cuts=st.lists(st.integers(0, 30), max_size=3), batched=st.booleans(), base64_ids=st.booleans())
def test_any_spread_of_spans_reads_as_the_whole_file_reader(
    tmp_path_factory: pytest.TempPathFactory, spans: list[tuple[int, int, int, str]], cuts: list[int],
    batched: bool, base64_ids: bool,
) -> None:  # fmt: skip
    import base64

    folder = tmp_path_factory.mktemp("spread")

    def ident(number: int, size: int) -> str:
        raw = number.to_bytes(size, "big")
        return base64.b64encode(raw).decode() if base64_ids else raw.hex()

    docs = [
        {"traceId": ident(t, 16), "spanId": ident(s, 8), "parentSpanId": ident(p, 8) if p else "", "name": name,
         "attributes": [{"key": "k", "value": {"intValue": str(i)}}]}
        for i, (t, s, p, name) in enumerate(spans)
    ]  # fmt: skip
    bounds = sorted({0, len(docs), *(min(c, len(docs)) for c in cuts)})
    for number, (start, end) in enumerate(itertools.pairwise(bounds)):
        part = docs[start:end]
        if batched:  # one OTLP document per file, one resource batch per span
            text = json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [d]}]} for d in part]})
            (folder / f"{number:02d}.json").write_text(text)
        else:  # JSON Lines, named .jsonl, or .json (then recognised by its lines; one line is a bare span)
            suffix = ".json" if base64_ids else ".jsonl"
            (folder / f"{number:02d}{suffix}").write_text("".join(json.dumps(d) + "\n" for d in part))
    assert _shape(load_traces(folder)) == _shape(_whole(folder))


def _deep_jaeger_file(tmp_path: Path, levels: int) -> Path:
    """Three traces; the second holds a tag value of arrays nested so that the document is ``levels`` deep."""
    doc = {"data": [_jaeger_trace(0), _jaeger_trace(1), _jaeger_trace(2)]}
    text = json.dumps(doc).replace('"value": 1}', '"value": ' + "[" * (levels - 7) + "]" * (levels - 7) + "}", 1)
    path = tmp_path / "deep.json"
    path.write_text(text)
    return path


def test_a_trace_nested_too_deep_is_named_as_the_whole_file_reader_names_it(tmp_path: Path) -> None:
    from agentgauge.formats._jsonio import MAX_DEPTH

    # data[1].spans[0].tags[0].value: seven levels of document around the value's own arrays.
    assert len(list(iter_trace_groups(_deep_jaeger_file(tmp_path, MAX_DEPTH)))) == 3
    path = _deep_jaeger_file(tmp_path, MAX_DEPTH + 1)
    with pytest.raises(InputError) as caught:
        list(iter_trace_groups(path))
    with pytest.raises(InputError) as whole:
        _whole(path)
    assert str(caught.value) == str(whole.value)
    assert f"nested deeper than {MAX_DEPTH} levels" in str(caught.value)
