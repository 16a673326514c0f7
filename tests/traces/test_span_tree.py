"""Span trees from hostile parent links: a span naming itself as its parent, loops of two and more, repeated span ids.
``build_traces`` always gives a forest (every walk over it ends), counts what it mended, and the numbers in a trace
file are range-checked with the JSON path named."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.errors import InputError
from agentgauge.traces import Span, TreeRepairs, build_traces, parse_traces
from agentgauge.traces._spans import ancestor_test

TRACE = "0" * 31 + "1"


def _span(span_id: str, parent: str = "", start: int = 0) -> Span:
    return Span(TRACE, span_id, parent, f"span {span_id}", start_ns=start)


def _visited(spans: list[Span]) -> list[str]:
    [trace] = build_traces(spans)
    return sorted(s.span_id for s in trace.walk())


@pytest.mark.parametrize(
    ("spans", "repairs"),
    [
        ([_span("a", "a")], TreeRepairs(self_parents=1)),
        ([_span("a", "b"), _span("b", "a")], TreeRepairs(loops=1)),
        ([_span("a", "b"), _span("b", "c"), _span("c", "a"), _span("t", "a")], TreeRepairs(loops=1)),
        ([_span("a"), _span("a", "a"), _span("b", "a")], TreeRepairs(duplicates=1)),
        ([_span("a", "a"), _span("b", "c"), _span("c", "b"), _span("c")], TreeRepairs(1, 1, 1)),
        ([_span("a"), _span("b", "a")], TreeRepairs()),
    ],
)
def test_loops_self_parents_and_repeated_ids_are_mended_and_counted(spans: list[Span], repairs: TreeRepairs) -> None:
    [trace] = build_traces(spans)
    assert trace.repairs == repairs and bool(trace.repairs) == bool(repairs)
    unique = sorted({s.span_id for s in spans})
    assert sorted(s.span_id for s in trace.walk()) == unique  # each kept span once: the walk ended
    for span in trace.spans:
        assert len(list(span.ancestors())) < len(unique)


def test_the_repairs_are_described_in_words() -> None:
    [trace] = build_traces([_span("a", "a"), _span("b", "c"), _span("c", "b"), _span("c")])
    assert trace.repairs.describe() == (
        "1 span(s) named as their own parent (made roots); 1 loop(s) of parent links cut; "
        "1 span(s) with an id seen before left out (the first kept)"
    )
    assert TreeRepairs().describe() == ""


def test_linking_again_starts_afresh() -> None:
    spans = [_span("a"), _span("b", "a")]
    build_traces(spans)
    [trace] = build_traces(spans)
    assert [c.span_id for c in trace.roots[0].children] == ["b"]  # not twice


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 7), st.integers(-1, 7), st.integers(0, 3)), min_size=1, max_size=14))
def test_any_parent_links_give_a_forest(links: list[tuple[int, int, int]]) -> None:
    spans = [_span(f"s{i}", "" if p < 0 else f"s{p}", start) for i, p, start in links]
    [trace] = build_traces(spans)
    walked = [s.span_id for s in trace.walk()]
    assert sorted(walked) == sorted({s.span_id for s in spans})  # every kept span reached exactly once
    assert trace.repairs.duplicates == len(spans) - len(set(walked))
    for span in trace.spans:
        chain = list(span.ancestors())
        assert len(chain) == len({id(s) for s in chain}) < len(walked)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(-1, 11), st.booleans()), min_size=1, max_size=12), st.randoms())
def test_the_remembering_ancestor_test_answers_as_walking_the_ancestors(
    links: list[tuple[int, bool]], rng: random.Random
) -> None:
    spans = [_span(f"s{i}", "" if p < 0 else f"s{p}") for i, (p, _) in enumerate(links)]
    marked = {f"s{i}" for i, (_, mark) in enumerate(links) if mark}
    [trace] = build_traces(spans)
    test = ancestor_test(lambda a: a.span_id in marked)
    order = list(trace.spans)
    rng.shuffle(order)  # asked in any order, the remembered answers stay right
    for span in order:
        assert test(span) == any(a.span_id in marked for a in span.ancestors())


def _otlp(span: dict[str, object]) -> str:
    base = {"traceId": TRACE, "spanId": "00000000000000a1", "name": "n"}
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{**base, **span}]}]}]})


_SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"
_TOO_SMALL = {"intValue": -(2**64)}


@pytest.mark.parametrize(
    ("text", "where", "found"),
    [
        (_otlp({"startTimeUnixNano": 1}).replace(": 1}", ": 1e999}"), f"{_SPAN}.startTimeUnixNano", "found inf"),
        (_otlp({"endTimeUnixNano": -5}), f"{_SPAN}.endTimeUnixNano", "found -5"),
        (_otlp({"startTimeUnixNano": str(2**64)}), f"{_SPAN}.startTimeUnixNano", f"found {2**64}"),
        (_otlp({"events": [{"timeUnixNano": 2**70}]}), f"{_SPAN}.events[0].timeUnixNano", "found"),
        (
            _otlp({"attributes": [{"key": "k", "value": {"intValue": str(2**63)}}]}),
            f"{_SPAN}.attributes[0].value.intValue",
            "from -9223372036854775808 to 9223372036854775807",
        ),
        (
            _otlp({"attributes": [{"key": "k", "value": {"arrayValue": {"values": [{"intValue": "x"}, _TOO_SMALL]}}}]}),
            f"{_SPAN}.attributes[0].value.arrayValue.values[1].intValue",
            "found",
        ),
        (
            json.dumps({"data": [{"traceID": "ab", "spans": [{"spanID": "01", "startTime": -1}]}]}),
            "data[0].spans[0].startTime",
            "from 0 to",
        ),
    ],
)
def test_numbers_out_of_range_name_their_json_path(text: str, where: str, found: str) -> None:
    with pytest.raises(InputError) as info:
        parse_traces(text, source="t.json", jsonl=False)
    assert str(info.value).startswith(f"t.json: {where}: expected an integer from ")
    assert found in str(info.value)
