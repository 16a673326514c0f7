"""The index a streamed eval set keeps: small per case, and nothing else left behind by the scan."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from agentgauge.service import StreamedEvalSet


def _write(path: Path, n: int) -> Path:
    turn = {
        "invocationId": "t1",
        "userContent": {"role": "user", "content": "find flights to Paris"},
        "finalResponse": {"role": "assistant", "content": "Here are three flights."},
        "tools": [{"id": "c1", "name": "search_flights", "arguments": {"city": "Paris", "filters": {"max": [1, 2]}}}],
    }
    cases = [
        {
            "evalId": f"case{i:05d}",
            "evalMode": "trace",
            "conversation": [turn, turn],
            "actualConversation": [turn, turn],
            "sessionInput": {"appName": "app", "userId": "u"},
        }
        for i in range(n)
    ]
    path.write_text(json.dumps({"evalSetId": "big", "evalCases": cases}), encoding="utf-8")
    return path


def test_a_scan_with_the_collector_off_keeps_only_the_index(tmp_path: Path) -> None:
    # The command line pauses the collector during start-up; the scan read every case then and its garbage piled up
    # (60 KB per case: 1.2 GB for 20,000 cases) until the run began.
    path = _write(tmp_path / "big.evalset.json", 3000)
    gc.collect()
    gc.disable()
    try:
        before = len(gc.get_objects())
        source = StreamedEvalSet.scan(path)
        grown = len(gc.get_objects()) - before
    finally:
        gc.enable()
    assert source is not None and len(source.header.eval_cases) == 3000
    assert grown < 3000 * 3  # a stub and its field dict per case, nothing of the conversations


def test_index_stubs_hold_three_fields_and_read_the_rest_as_defaults(tmp_path: Path) -> None:
    source = StreamedEvalSet.scan(_write(tmp_path / "big.evalset.json", 3))
    assert source is not None
    first, second = source.header.eval_cases[:2]
    assert set(first.__dict__) == {"eval_id", "eval_mode", "session_input"}
    assert (first.eval_id, first.is_trace, first.session_input and first.session_input.app_name) == (
        "case00000",
        True,
        "app",
    )
    assert first.conversation is None and first.context_messages == [] and first.rubrics == []
    assert first.session_input is second.session_input  # one shared object per app name
    full = next(source.iter_cases("app", "big"))
    assert full.conversation is not None and len(full.conversation) == 2
