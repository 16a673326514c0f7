"""A live session's view is kept up to date trace by trace: a batch of spans re-reads only the trace it belongs to,
and the view equals the one built from scratch (a restarted server reading the received files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgauge.server._live_hub import LiveHub
from agentgauge.traces import LiveStore


def _span(turn: int, index: int) -> dict[str, Any]:
    """Span ``index`` of turn ``turn`` (one trace per turn, all in session ``s``): the agent span, then model calls."""
    trace_id = f"{turn + 1:032x}"
    messages = [{"role": "user", "parts": [{"type": "text", "content": f"question {turn}"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": f"answer {turn}.{index}"}]}]
    attributes = [
        ("gen_ai.operation.name", {"stringValue": "chat" if index else "invoke_agent"}),
        ("gen_ai.conversation.id", {"stringValue": "s"}),
        ("gen_ai.input.messages", {"stringValue": json.dumps(messages)}),
        ("gen_ai.output.messages", {"stringValue": json.dumps(answer)}),
        ("gen_ai.usage.input_tokens", {"intValue": "5"}),
    ]
    span = {
        "traceId": trace_id,
        "spanId": f"{index + 1:016x}",
        "parentSpanId": "" if index == 0 else f"{1:016x}",
        "name": "chat model" if index else "invoke_agent bot",
        "startTimeUnixNano": str(10**12 * (turn + 1) + index),
        "endTimeUnixNano": str(10**12 * (turn + 1) + 10**6 - index),
        "attributes": [{"key": key, "value": value} for key, value in attributes],
    }
    return {"resourceSpans": [{"scopeSpans": [{"scope": {"name": "test"}, "spans": [span]}]}]}


def test_each_batch_re_reads_only_its_trace_and_the_view_equals_one_built_from_scratch(tmp_path: Path) -> None:
    turns, spans_per_turn = 12, 4
    store = LiveStore(tmp_path / "otlp")
    hub = LiveHub(store)
    batches = 0
    for turn in range(turns):
        for index in range(spans_per_turn):
            store.receive(_span(turn, index), "traces")
            batches += 1
            view = hub.detail("s")  # what the event stream asks for after every batch
            assert view["spanCount"] == batches
    # Re-reading every trace of the session on each batch would read 12 * 13 / 2 * 4 = 312 traces.
    assert hub.traces_read == batches
    assert view["turnCount"] == turns
    assert [t["user"] for t in view["turns"]] == [f"question {n}" for n in range(turns)]
    assert view["toolCallCount"] == 0 and view["durationMs"] is not None
    whole, _, _ = store.conversations("s")  # the session read whole, every trace at once
    assert [t["user"] for t in view["turns"]] == [i.user_content.content for c in whole for i in c.invocations]
    assert [t["response"] for t in view["turns"]] == [i.final_response.content for c in whole for i in c.invocations
                                                     if i.final_response]  # fmt: skip
    scratch = LiveHub(LiveStore(tmp_path / "otlp")).detail("s")
    assert {k: v for k, v in view.items() if k != "received"} == {k: v for k, v in scratch.items() if k != "received"}
    assert hub.detail("s") is view  # nothing changed: the view is reused as it is


def test_a_trace_that_did_not_change_is_not_read_again(tmp_path: Path) -> None:
    store = LiveStore(tmp_path / "otlp")
    hub = LiveHub(store)
    for index in range(2):
        store.receive(_span(0, index), "traces")
    before = hub.detail("s")
    for index in range(2):
        store.receive(_span(1, index), "traces")
    after = hub.detail("s")
    assert (before["turnCount"], after["turnCount"]) == (1, 2)
    assert after["turns"][0] == before["turns"][0]
    assert hub.traces_read == 2  # the first trace was read once, not again when the second arrived
