"""Replay: recorded tool calls as toolMock rules, and the ledger that serves a replayed turn from its recording."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pydantic import ValidationError

from agentgauge.mocks import (
    ReplayLedger,
    mocked_call,
    mocks_for,
    recorded_tool_mock,
    replay_case,
    replay_eval_set,
    use_mocks,
)
from agentgauge.model import EvalCase, EvalSet, EvalSetResult, Invocation, ToolMock, ToolMockRule


def _recorded(*calls: tuple[str, Any, Any]) -> Invocation:
    tools = [{"name": n, "arguments": a, "result": r} for n, a, r in calls]
    return Invocation.model_validate({"userContent": {"content": "q"}, "tools": tools})


def _ledger(mode: str, *calls: tuple[str, Any, Any]) -> ReplayLedger:
    mock, _ = recorded_tool_mock(_recorded(*calls), mode)  # type: ignore[arg-type]
    return ReplayLedger(mode, mock.actual)  # type: ignore[arg-type]


def test_recorded_calls_become_rules_keyed_by_name_and_canonical_arguments() -> None:
    invocation = _recorded(("calc", {"b": 2, "a": 1}, {"r": 3}), ("log", {}, None), ("calc", {"a": 3}, 9))
    mock, warnings = recorded_tool_mock(invocation, "strict")
    assert mock.replay == "strict"
    assert [(r.name, r.arguments.expected if r.arguments else None, r.result) for r in mock.actual] == [
        ("calc", {"a": 1, "b": 2}, {"r": 3}),
        ("calc", {"a": 3}, 9),
    ]
    assert list(mock.actual[0].arguments.expected) == ["a", "b"]  # type: ignore[union-attr]
    assert warnings == ["call 2 (log) has no recorded result"]  # a call without a result cannot be served


def test_fifo_serves_recorded_results_in_order_and_reports_drift_unrecorded_and_unconsumed() -> None:
    ledger = _ledger("fifo", ("calc", {"a": 1}, "one"), ("calc", {"a": 2}, "two"), ("prime", {"n": 3}, True))
    assert ledger.answer("calc", {"a": 2}) == "one"  # fifo: the first recorded result, whatever the arguments
    assert ledger.answer("calc", {"a": 2.0}) == "two"  # 2 == 2.0 as the trajectory criterion compares
    extra = ledger.answer("calc", {"a": 9})
    assert "more calls of this tool than the recording has" in extra["error"]
    assert "never called it" in ledger.answer("search", {"q": "x"})["error"]
    record = ledger.record()
    assert record.recorded == 3
    assert [(c.call, c.name) for c in record.answered] == [(2, "calc")]
    [drift] = record.drift
    assert (drift.call, drift.recorded_call, drift.recorded, drift.arguments, drift.served) == (
        1,
        1,
        {"a": 1},
        {"a": 2},
        True,
    )
    assert drift.difference.startswith("actual 2 != expected 1 at $.a")
    assert [(c.call, c.name, c.reason) for c in record.unrecorded] == [
        (3, "calc", "more calls of this tool than the recording has"),
        (4, "search", "the recording never called it"),
    ]
    assert [(c.call, c.name, c.arguments) for c in record.unconsumed] == [(3, "prime", {"n": 3})]
    assert record.fidelity == pytest.approx(1 / 5)


def test_strict_answers_only_identical_arguments_and_the_agent_sees_an_error_otherwise() -> None:
    ledger = _ledger("strict", ("w", {"city": "Paris"}, {"t": 20}), ("w", {"city": "Oslo"}, {"t": 5}))
    assert ledger.answer("w", {"city": "Oslo"}) == {"t": 5}  # any recorded call with these arguments, in order
    refused = ledger.answer("w", {"city": "Lyon"})
    assert refused["error"].startswith('replay: no recorded result for w({"city": "Lyon"}): arguments differ')
    assert ledger.answer("w", {"city": "Paris"}) == {"t": 20}  # the drifted call did not consume the recording
    record = ledger.record()
    assert [c.arguments for c in record.answered] == [{"city": "Oslo"}, {"city": "Paris"}]
    assert [(d.recorded_call, d.served) for d in record.drift] == [(1, False)]
    assert record.unconsumed == [] and record.fidelity == 1.0


def test_an_identical_replay_consumes_everything_and_a_turn_without_calls_is_faithful() -> None:
    ledger = _ledger("strict", ("a", {}, 1), ("b", {"x": [1, {"y": 2}]}, 2))
    assert (ledger.answer("a", {}), ledger.answer("b", {"x": [1, {"y": 2}]})) == (1, 2)
    assert ledger.record().fidelity == 1.0
    assert _ledger("fifo").record().fidelity == 1.0


def test_the_ledger_is_safe_under_concurrent_calls_from_threads() -> None:
    ledger = _ledger("fifo", *[("t", {"i": i}, i) for i in range(200)])
    served: list[Any] = []
    threads = [threading.Thread(target=lambda: served.append(ledger.answer("t", {"i": -1}))) for _ in range(200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(served) == list(range(200))  # each recorded result served exactly once
    assert len(ledger.record().drift) == 200


async def test_a_replayed_turn_answers_every_tool_and_nothing_runs_for_real() -> None:
    invocation = _recorded(("w", {"c": 1}, "recorded"))
    invocation.tool_mock = recorded_tool_mock(invocation, "fifo")[0]
    mocks = mocks_for(invocation, "actual")
    assert mocks is not None and mocks.replay is not None
    assert mocks.mocks("w") and mocks.mocks("never_recorded")
    ran: list[str] = []

    async def real() -> str:
        ran.append("real")
        return "live"

    with use_mocks(mocks):
        assert await mocked_call("w", {"c": 1}, real) == "recorded"
        assert "error" in await mocked_call("other", {}, real)
    assert ran == []
    assert mocks_for(invocation, "expected") is None  # the recording is the evaluated agent's only


def test_a_replay_cannot_generate_results() -> None:
    rule = {"name": "w", "llmGenerator": {"prompt": "make one up"}}
    with pytest.raises(ValidationError, match="llmGenerator cannot be used with replay"):
        ToolMock.model_validate({"actual": [rule], "replay": "fifo"})
    with pytest.raises(ValidationError):
        ToolMock.model_validate({"actual": [], "replay": "sometimes"})
    assert ToolMock(actual=[ToolMockRule(name="w", result=1)], replay="strict").model_dump()["replay"] == "strict"


def test_replay_cases_from_a_trace_mode_case_and_a_result() -> None:
    recorded = [_recorded(("w", {"c": "Paris"}, {"t": 1})).model_dump(mode="json")]
    golden = [{"userContent": {"content": "q"}, "finalResponse": {"role": "assistant", "content": "golden"}}]
    case = EvalCase.model_validate(
        {"evalId": "c", "evalMode": "trace", "conversation": golden, "actualConversation": recorded}
    )
    replayed, warnings = replay_case(case, "strict")
    assert not replayed.is_trace and replayed.actual_conversation is None and warnings == []
    [turn] = replayed.conversation or []
    assert turn.final_response is not None and turn.final_response.content == "golden"  # the golden expectation
    assert turn.tool_mock is not None and [r.name for r in turn.tool_mock.actual] == ["w"]  # the recording's calls

    actual = _recorded(("w", {"c": 1}, 2)).model_dump(mode="json") | {"duration": 1.5, "usage": {"inputTokens": 3}}
    result = EvalSetResult.model_validate(
        {
            "evalSetResultId": "r1",
            "evalSetId": "s",
            "evalCaseResults": [
                {"evalId": "ok", "runId": 2, "evalMetricResultPerInvocation": [{"actualInvocation": actual}]},
                {"evalId": "ok", "runId": 1, "evalMetricResultPerInvocation": [{"actualInvocation": actual}]},
                {"evalId": "crashed", "errorMessage": "agent failed on invocation 1 of 1: boom"},
            ],
        }
    )
    built = replay_eval_set(result, "fifo")
    assert built.eval_set.eval_set_id == "s_replay"
    assert [c.eval_id for c in built.eval_set.eval_cases] == ["ok"]
    [turn] = built.eval_set.eval_cases[0].conversation or []
    assert turn.duration is None and turn.usage is None  # the expectation keeps what was said and called only
    assert built.warnings == ["case crashed: no recorded turns (agent failed on invocation 1 of 1: boom)"]
    assert replay_eval_set(EvalSet(eval_set_id="x"), "strict", "y").eval_set.eval_set_id == "y"
