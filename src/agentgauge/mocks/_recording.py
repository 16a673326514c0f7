"""Recorded conversations as replayable cases: each turn's recorded tool calls become its ``toolMock`` rules.

A replay case plays the recorded user turns to the agent (which runs for real) and answers every tool call from the
recording (see :mod:`._replay`). The sources are a recorded conversation (a trace, a live session), the actual
invocations of a saved result, or an eval case with intermediate data (ADK's ``tool_uses`` / ``tool_responses``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..criteria import canonical_value
from ..model import (
    EvalCase,
    EvalCaseResult,
    EvalSet,
    EvalSetResult,
    Invocation,
    ReplayMode,
    ToolMock,
    ToolMockArguments,
    ToolMockRule,
)

__all__ = [
    "ReplaySet",
    "is_replay_case",
    "recorded_tool_mock",
    "replay_case",
    "replay_eval_set",
    "replay_invocations",
]

_DROPPED = frozenset({"duration", "model_duration", "tool_duration", "usage", "replay", "creation_timestamp"})
"""What a recorded turn had that its expectation does not: how long it took, what it cost, how it was replayed."""


def is_replay_case(case: EvalCase) -> bool:
    """Whether a turn of ``case`` is replayed from a recording (its ``toolMock`` has a replay mode)."""
    return any(inv.tool_mock is not None and inv.tool_mock.replay for inv in case.conversation or [])


def recorded_tool_mock(invocation: Invocation, mode: ReplayMode) -> tuple[ToolMock, list[str]]:
    """The ``toolMock`` of one replayed turn: one rule per recorded call (tool name, canonical arguments, recorded
    result), in the recorded order; the invocation's ``expected`` rules are kept. The warnings name the calls
    without a recorded result, which cannot be replayed (a replay answers them with an error)."""
    rules: list[ToolMockRule] = []
    warnings: list[str] = []
    for number, tool in enumerate(invocation.tools, start=1):
        if tool.result is None:
            warnings.append(f"call {number} ({tool.name}) has no recorded result")
            continue
        arguments = canonical_value(tool.arguments if tool.arguments is not None else {})
        rules.append(ToolMockRule(name=tool.name, arguments=ToolMockArguments(expected=arguments), result=tool.result))
    kept = invocation.tool_mock.expected if invocation.tool_mock is not None else []
    return ToolMock(actual=rules, expected=list(kept), replay=mode), warnings


def replay_invocations(recorded: Sequence[Invocation], mode: ReplayMode) -> tuple[list[Invocation], list[str]]:
    """Copies of the recorded turns, each with its recording as ``toolMock`` (timings, usage and an earlier replay
    record left out), and the warnings of :func:`recorded_tool_mock` prefixed with the turn."""
    out: list[Invocation] = []
    warnings: list[str] = []
    for number, invocation in enumerate(recorded, start=1):
        mock, problems = recorded_tool_mock(invocation, mode)
        warnings += [f"turn {number}: {problem}" for problem in problems]
        copy = invocation.model_copy(deep=True, update=dict.fromkeys(_DROPPED))
        copy.tool_mock = mock
        out.append(copy)
    return out, warnings


def replay_case(case: EvalCase, mode: ReplayMode) -> tuple[EvalCase, list[str]]:
    """An eval case as a replay case: its recording (``actualConversation`` of a trace-mode case, else
    ``conversation``) becomes the conversation, each turn with its recorded tool results as ``toolMock``.

    A trace-mode case with a golden ``conversation`` of the same length keeps the golden turns as expectations
    (the mocks still come from the recording).
    """
    recorded = case.actual_conversation if case.is_trace and case.actual_conversation else case.conversation or []
    turns, warnings = replay_invocations(recorded, mode)
    golden = case.conversation or []
    if case.is_trace and case.actual_conversation and len(golden) == len(turns):
        turns = [g.model_copy(deep=True, update={"tool_mock": t.tool_mock}) for g, t in zip(golden, turns, strict=True)]
    update = {"eval_mode": "", "actual_conversation": None, "conversation": turns}
    return case.model_copy(deep=True, update=update), warnings


@dataclass(slots=True)
class ReplaySet:
    """A replay eval set and what could not be replayed (``warnings``: one line per problem, naming the case)."""

    eval_set: EvalSet
    warnings: list[str] = field(default_factory=list)


def _result_cases(result: EvalSetResult, mode: ReplayMode) -> tuple[list[EvalCase], list[str]]:
    chosen: dict[str, EvalCaseResult] = {}
    for run in result.eval_case_results:
        first = chosen.get(run.eval_id)
        if run.eval_metric_result_per_invocation and (first is None or run.run_id < first.run_id):
            chosen[run.eval_id] = run
    skipped: dict[str, EvalCaseResult] = {}
    for run in result.eval_case_results:
        if run.eval_id not in chosen:
            skipped.setdefault(run.eval_id, run)
    warnings = [
        f"case {eval_id}: no recorded turns ({run.error_message or 'nothing was recorded'})"
        for eval_id, run in skipped.items()
    ]
    cases = []
    for eval_id, run in chosen.items():
        recorded = [entry.actual_invocation for entry in run.eval_metric_result_per_invocation]
        turns, problems = replay_invocations(recorded, mode)
        warnings += [f"case {eval_id}: {problem}" for problem in problems]
        cases.append(EvalCase(eval_id=eval_id, conversation=turns))
    return cases, warnings


def replay_eval_set(source: EvalSet | EvalSetResult, mode: ReplayMode, eval_set_id: str | None = None) -> ReplaySet:
    """Every case of an eval set, or every case of a saved result (its first run with recorded turns), as a
    replay case (see :func:`replay_case`). A result does not hold the cases' session input: replay cases from a
    result start with an empty session state."""
    if isinstance(source, EvalSet):
        cases, warnings = [], []
        for case in source.eval_cases:
            replayed, problems = replay_case(case, mode)
            cases.append(replayed)
            warnings += [f"case {case.eval_id}: {problem}" for problem in problems]
        set_id = eval_set_id or source.eval_set_id
        description = f"Replay ({mode}) of eval set {source.eval_set_id}"
    else:
        cases, warnings = _result_cases(source, mode)
        set_id = eval_set_id or f"{source.eval_set_id or 'result'}_replay"
        description = f"Replay ({mode}) of result {source.eval_set_result_id}"
    return ReplaySet(EvalSet(eval_set_id=set_id, name=set_id, description=description, eval_cases=cases), warnings)
