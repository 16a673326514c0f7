"""The answers of the review routes (case lists, replay, timeline, history, metric picker) as pydantic models, so
that each is described in the OpenAPI schema and the API reference at ``/docs``."""

from __future__ import annotations

from typing import Any, Literal

import orjson
from fastapi import Response
from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "Answer",
    "CaseListAnswer",
    "CaseListRow",
    "DiffSegment",
    "MetricVerdict",
    "ReplayAnswer",
    "ReplayEvent",
    "ReplayExpected",
    "ReplayTurn",
    "json_answer",
]


def json_answer(body: Any) -> Response:
    """``body``, plain data already in an answer's JSON shape (camelCase keys), as the JSON response. The long
    lists (thousands of cases or runs) are answered this way: validating and dumping as many models on the way
    out would take longer than building the list. Non-finite floats are written as ``null``, as pydantic does."""
    return Response(orjson.dumps(body), media_type="application/json")


class Answer(BaseModel):
    """A JSON answer: camelCase keys."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, serialize_by_alias=True)


class CaseListRow(Answer):
    """One case of a list: its last status over its runs (``passed``, ``failed``, ``error``, ``not_evaluated``;
    ``None``: not run) and that status with the rule that decided it (``failed (3/5 runs passed; rule: all runs
    pass)``), why it did not pass (its first failing run's reason, and ``reasonShort``, its one-line form keeping
    the metric and what differs, when the reason is too long for a line), its runs and runs passed, its turns, its
    first user message (shown) and ``search``: every user message and expected final answer of its turns, one a
    line and cut to 2,000 characters (the list's search looks in them; left out when the same as ``text``)."""

    eval_id: str
    status: str | None = None
    status_text: str | None = None
    reason: str | None = None
    reason_short: str | None = None
    turns: int = 0
    text: str = ""
    search: str | None = None
    runs: int = 0
    runs_passed: int = 0
    result_id: str | None = None


class CaseListAnswer(Answer):
    """The cases of an eval set with their last status, or the cases of one result."""

    app: str
    eval_set_id: str | None = None
    result_id: str | None = Field(None, description="the result the statuses come from (none: never run)")
    cases: list[CaseListRow]


Op = Literal["=", "-", "+"]


class DiffSegment(Answer):
    """A piece of text: ``=`` on both sides, ``-`` only expected, ``+`` only actual (as the HTML report marks)."""

    op: Op
    text: str


class MetricVerdict(Answer):
    """One metric's outcome: score, threshold, status, the reason (rubric verdicts included) and the typed value
    the judge answered (``true``, ``'good'``, ``0.5``), when recorded."""

    metric_name: str
    score: float | None = None
    threshold: float = 0.0
    status: str
    reason: str = ""
    rubrics: list[str] = Field(default_factory=list)
    value: str | None = None


class ReplayEvent(Answer):
    """One thing the agent did in a turn: ``tool_call`` (``name``, ``arguments`` as JSON text), ``tool_result``
    (``name``, ``result`` as JSON text), ``handoff`` (to the agent ``name``) or ``text`` (an intermediate message,
    ``author`` when recorded). ``diff`` marks a tool call against the expected call it replaces."""

    kind: Literal["tool_call", "tool_result", "handoff", "text"]
    name: str = ""
    arguments: str | None = None
    result: str | None = None
    text: str | None = None
    author: str | None = None
    diff: list[DiffSegment] | None = None


class ReplayExpected(Answer):
    """The expected side of a turn: tool calls and final response, with differences marked where a failed metric
    compared them (``responseStrategy``: ``must contain`` / ``must match`` when the response was not compared for
    equality)."""

    tool_calls: list[list[DiffSegment]]
    final_response: list[DiffSegment] | None = None
    response_strategy: str | None = None


class ReplayTurn(Answer):
    """One invocation: the user message, the agent's events, the final response (``diff``: marked against the
    expected one), PASS/FAIL and every metric judging it, its timings and tokens; for a turn replayed from a
    recording (``toolMock.replay``), how its tool calls were served (``replay``: answered, drift, calls not in
    the recording, recorded results never consumed)."""

    index: int
    invocation_id: str = ""
    status: str
    user: str
    events: list[ReplayEvent]
    final_response: str | None = None
    final_response_diff: list[DiffSegment] | None = None
    expected: ReplayExpected | None = None
    metrics: list[MetricVerdict]
    duration: float | None = None
    model_duration: float | None = None
    tool_duration: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    replay: dict[str, Any] | None = None


class ReplayAnswer(Answer):
    """A case run turn by turn, with its overall verdicts and its case score (trpc's, when recorded)."""

    app: str
    result_id: str
    eval_set_id: str
    eval_id: str
    run_id: int
    run_ids: list[int]
    run_statuses: list[str] = []
    """The status of each run of :attr:`run_ids`, in the same order (the run picker shows them)."""
    status: str
    score: float | None = None
    reason: str | None = None
    error_message: str | None = None
    metrics: list[MetricVerdict]
    turns: list[ReplayTurn]
