"""``proto_json`` gives what ``plain_json(MessageToDict(...))`` gives, for the A2A messages a client receives."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from a2a.types import StreamResponse, Task
from google.protobuf import struct_pb2, timestamp_pb2, wrappers_pb2
from google.protobuf.json_format import MessageToDict, ParseDict
from hypothesis import given, settings
from hypothesis import strategies as st

from agentgauge.agents.remote._a2a_json import plain_json, proto_json

_IDS = {"taskId": "t1", "contextId": "c1"}
_EVENTS: list[dict[str, Any]] = [
    {"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_SUBMITTED"},
              "history": [{"messageId": "m1", **_IDS, "role": "ROLE_USER", "parts": [{"text": "2 + 3?"}]}],
              "metadata": {"n": 2, "f": 2.5, "nested": {"list": [1, 2.0, "x", None, True]}}}},
    {"statusUpdate": {**_IDS, "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-11-26T18:38:43.793546Z",
     "message": {"messageId": "m2", "role": "ROLE_AGENT", "parts": [
         {"data": {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1"}, "metadata": {"adk_type": "function_call"}},
     ]}}}},
    {"artifactUpdate": {**_IDS, "artifact": {"artifactId": "a1", "name": "answer",
     "parts": [{"text": "5"}, {"raw": "aGVsbG8=", "mediaType": "text/plain", "filename": "h.txt"},
               {"url": "https://example.com/f", "mediaType": "image/png"}]}, "append": True, "lastChunk": True}},
    {"statusUpdate": {**_IDS, "status": {"state": "TASK_STATE_COMPLETED"}, "metadata": {"usage": {"total": 12}}}},
    {"message": {"messageId": "m3", "role": "ROLE_AGENT", "parts": [{"text": ""}, {"data": None}]}},
]  # fmt: skip


@pytest.mark.parametrize("event", _EVENTS, ids=lambda e: next(iter(e)))
def test_events_read_as_message_to_dict_reads_them(event: dict[str, Any]) -> None:
    message = ParseDict(event, StreamResponse())
    assert proto_json(message) == plain_json(MessageToDict(message))


def test_a_task_read_back_with_get_task() -> None:
    task = ParseDict(_EVENTS[0]["task"], Task())
    assert proto_json(task) == plain_json(MessageToDict(task))


@pytest.mark.parametrize(
    "message",
    [
        timestamp_pb2.Timestamp(seconds=1_700_000_000, nanos=5000),
        wrappers_pb2.FloatValue(value=0.1),
        wrappers_pb2.DoubleValue(value=math.inf),
        wrappers_pb2.Int64Value(value=2**62),
        struct_pb2.ListValue(values=[struct_pb2.Value(number_value=3.0)]),
    ],
    ids=["timestamp", "float32", "infinity", "int64", "list"],
)
def test_well_known_types_keep_their_json_forms(message: Any) -> None:
    assert proto_json(message) == plain_json(MessageToDict(message))


_JSON = st.recursive(
    st.none() | st.booleans() | st.text(max_size=8) | st.integers(-(2**53), 2**53)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(data=st.dictionaries(st.text(max_size=6), _JSON, max_size=5), meta=st.dictionaries(st.text(max_size=6), _JSON))
def test_any_data_part_reads_the_same(data: dict[str, Any], meta: dict[str, Any]) -> None:
    event = {"statusUpdate": {**_IDS, "status": {"state": "TASK_STATE_WORKING", "message": {
        "messageId": "m", "role": "ROLE_AGENT", "parts": [{"data": data, "metadata": meta}]}}}}  # fmt: skip
    message = ParseDict(json.loads(json.dumps(event)), StreamResponse())
    assert proto_json(message) == plain_json(MessageToDict(message))
