"""``/api`` routes of the review views: the case list of an eval set (last status, first failure reason), the cases
of a result, and one case run replayed turn by turn with the expected side and the differences marked as the HTML
report marks them (:mod:`agentgauge.reporting._diff`: only in the parts a failed metric compared)."""

from __future__ import annotations

import difflib
import json
from typing import Annotated, Any, NamedTuple

from fastapi import APIRouter, Query, Response

from ..errors import InputError, NotFoundError
from ..model import (
    CaseNotRun,
    EvalCaseResult,
    EvalMetricResult,
    EvalMetricResultPerInvocation,
    EvalStatus,
    Invocation,
    Tool,
)
from ._answers import (
    CaseListAnswer,
    DiffSegment,
    MetricVerdict,
    ReplayAnswer,
    ReplayEvent,
    ReplayExpected,
    ReplayTurn,
    json_answer,
)
from ._deps import StateDep
from ._digest import TEXT_LIMIT, ResultDigest, search_text
from ._result_views import case_runs, load_result

__all__ = ["router"]

router = APIRouter()
"""``/apps/{app}/eval-sets/{set_id}/case-list``, ``/apps/{app}/results/{result_id}/cases[/{case_id}/replay]``
(mounted under ``/api``)."""

_HANDOFF_TOOLS = frozenset({"transfer_to_agent"})  # ADK's hand-off to a sub-agent is a tool call


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _first_shown(cases: list[EvalCaseResult]) -> EvalCaseResult:
    """The run of a case a reader looks at first: its first run that did not pass (where the case's reason comes
    from), else its first run."""
    failing = [c for c in cases if c.final_eval_status is not EvalStatus.PASSED]
    return min(failing or cases, key=lambda c: c.run_id)


class _Outline(NamedTuple):
    """A case of a set as its list row shows it: id, turns, first user message and the words searched."""

    eval_id: str
    turns: int
    text: str
    search: str


def _case_row(
    eval_id: str, digest: ResultDigest | None, outline: _Outline | None, result_id: str | None
) -> dict[str, Any]:
    """A :class:`CaseListRow` as JSON (built directly: five thousand of them are answered at once): the case's
    status over its runs (as every report gives it, with the rule that decided it), its first reason (and its
    one-line form, when that differs) and the words searched (when they are more than the first user message)."""
    from ..summary import short_reason

    case = digest.cases.get(eval_id) if digest is not None else None
    shown = digest.first_run(eval_id) if digest is not None and case is not None else None
    text = (outline.text if outline is not None else "") or (shown.text if shown is not None else "")
    search = (outline.search if outline is not None else "") or (shown.search if shown is not None else "")
    row: dict[str, Any] = {
        "evalId": eval_id,
        "status": None,
        "statusText": None,
        "reason": None,
        "reasonShort": None,
        "turns": (outline.turns if outline is not None else 0) or (shown.turns if shown is not None else 0),
        "text": text,
        "search": search if search and search != text else None,  # most single-turn cases: nothing more to send
        "runs": 0,
        "runsPassed": 0,
        "resultId": None,
    }
    if case is None:
        reason = digest.not_run_reasons.get(eval_id) if digest is not None else None
        if reason is not None:  # the result could not run it (a trace run's case without a trace)
            text = CaseNotRun(eval_id=eval_id, reason=reason).status_text
            row.update(statusText=text, reason=text, resultId=result_id)
        return row
    row.update(
        status=case.status.value,
        statusText=case.status_text,
        reason=case.reason,
        runs=case.runs,
        runsPassed=case.runs_passed,
        resultId=result_id,
    )
    short = short_reason(case.reason) if case.reason else None
    if short is not None and short != case.reason:
        row["reasonShort"] = short
    return row


def _outline(eval_set: Any) -> list[_Outline]:
    """Each case of the set: its id, turns, first user message (else its scenario's starting prompt) and the words
    the case list searches (every user message and expected final answer, the scenario's prompt and plan)."""
    out = []
    for case in eval_set.eval_cases:
        turns = case.conversation or case.actual_conversation or []
        text = turns[0].user_content.content if turns else ""
        words = [
            w for t in turns for w in (t.user_content.content, t.final_response.content if t.final_response else "")
        ]
        scenario = case.conversation_scenario
        if scenario is not None:
            text = text or scenario.starting_prompt or ""
            words += [scenario.starting_prompt, scenario.conversation_plan]
        out.append(_Outline(case.eval_id, len(turns), text[:TEXT_LIMIT], search_text(words)))
    return out


@router.get("/apps/{app}/eval-sets/{set_id}/case-list", response_model=CaseListAnswer)
def set_case_list(app: str, set_id: str, state: StateDep) -> Response:
    """Every case of the eval set in its order, with the status and first failure reason of its latest result
    (the newest result of the set; ``status`` is ``null`` for a case that result did not run)."""
    state.check_app(app)
    cases: list[_Outline] = state.eval_sets.snapshot(app, set_id).view("review-outline", _outline)
    latest: ResultDigest | None = None
    result_id = None
    for row, digest in state.results.listed(app):  # newest first: the first of the set is its latest result
        if row["evalSetId"] == set_id:
            latest, result_id = digest, row["evalSetResultId"]
            break
    rows = [_case_row(case.eval_id, latest, case, result_id) for case in cases]
    return json_answer({"app": app, "evalSetId": set_id, "resultId": result_id, "cases": rows})


@router.get("/apps/{app}/results/{result_id}/cases", response_model=CaseListAnswer)
def result_case_list(app: str, result_id: str, state: StateDep) -> Response:
    """The cases of a result in its order, each with its status over runs and first failure reason, then the cases
    of its set it could not run (status ``null``, reason ``not run: no trace``)."""
    state.check_app(app)
    digest = state.results.digest(app, result_id)
    rows = [_case_row(i, digest, None, result_id) for i in (*digest.cases, *digest.not_run_reasons)]
    return json_answer({"app": app, "evalSetId": digest.eval_set_id, "resultId": result_id, "cases": rows})


def _verdict(metric: EvalMetricResult) -> MetricVerdict:
    details = metric.details
    scores = details.rubric_scores if details is not None else []
    rubrics = [f"{r.id}: {'yes' if (r.score or 0) >= 1 else 'no'} ({r.reason})" for r in scores]
    return MetricVerdict(
        metric_name=metric.metric_name,
        score=metric.score,
        threshold=metric.threshold,
        status=metric.eval_status.value,
        reason=(details.reason or "") if details is not None else "",
        rubrics=rubrics,
        value=details.value.text() if details is not None and details.value is not None else None,
    )


def _segments(pairs: Any) -> list[DiffSegment]:
    return [DiffSegment(op=op, text=text) for op, text in pairs]


def _tool_sides(expected: list[str], actual: list[str], mark: bool) -> tuple[list[list[DiffSegment]], list[Any]]:
    """The expected and actual calls aligned as the HTML report aligns them: a changed call word-diffed against the
    expected call it replaces, a missing one all ``-``, an extra one all ``+``; nothing marked unless ``mark``."""
    from ..reporting._diff import word_diff

    left: list[list[DiffSegment]] = []
    right: list[Any] = [None] * len(actual)
    if not mark:
        return [_segments([("=", c)]) for c in expected], right
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, expected, actual, autojunk=False).get_opcodes():
        if op == "equal":
            left += [_segments([("=", c)]) for c in expected[i1:i2]]
            continue
        paired = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(paired):
            segments = word_diff(expected[i1 + k], actual[j1 + k])
            left.append(_segments(s for s in segments if s[0] != "+"))
            right[j1 + k] = _segments(s for s in segments if s[0] != "-")
        left += [_segments([("-", c)]) for c in expected[i1 + paired : i2]]
        for j in range(j1 + paired, j2):
            right[j] = _segments([("+", actual[j])])
    return left, right


def _handoffs(actual: Invocation) -> list[ReplayEvent]:
    """The turn's hand-offs from its executed-agent records: each sub-agent, from the agent that started it."""
    names = {a.invocation_id: a.name or a.branch for a in actual.agents if a.invocation_id}
    return [
        ReplayEvent(kind="handoff", name=a.name or a.branch, author=names[a.parent_invocation_id] or None)
        for a in actual.agents
        if a.parent_invocation_id in names
    ]


def _events(actual: Invocation, tool_marks: list[Any]) -> list[ReplayEvent]:
    from ..summary._reasons import format_tool_call

    events: list[ReplayEvent] = _handoffs(actual)
    tool: Tool
    for tool, mark in zip(actual.tools, tool_marks, strict=True):
        if tool.name in _HANDOFF_TOOLS and isinstance(tool.arguments, dict):
            target = str(tool.arguments.get("agent_name") or tool.arguments.get("agentName") or "")
            events.append(ReplayEvent(kind="handoff", name=target, arguments=_json(tool.arguments)))
            continue
        events.append(
            ReplayEvent(
                kind="tool_call",
                name=tool.name,
                arguments=_json(tool.arguments),
                text=format_tool_call(tool),
                diff=mark,
            )
        )
        if tool.result is not None:
            events.append(ReplayEvent(kind="tool_result", name=tool.name, result=_json(tool.result)))
    previous = None
    for message in actual.intermediate_responses:
        author = (message.model_extra or {}).get("author")
        author = str(author) if author else None
        if author and previous and author != previous:
            events.append(ReplayEvent(kind="handoff", name=author, author=previous))
        previous = author or previous
        events.append(ReplayEvent(kind="text", text=message.content, author=author))
    return events


def _turn_status(statuses: set[EvalStatus]) -> EvalStatus:
    """A turn fails when a metric judging it failed (or errored), passes when one passed and none failed."""
    for status in (EvalStatus.FAILED, EvalStatus.ERROR, EvalStatus.PASSED):
        if status in statuses:
            return status
    return EvalStatus.NOT_EVALUATED


def _turn(index: int, per_inv: EvalMetricResultPerInvocation) -> ReplayTurn:
    from ..reporting._diff import RESPONSE, TOOLS, failed_parts, response_strategy, strategy_phrase, word_diff
    from ..summary._reasons import format_tool_call

    actual, expected = per_inv.actual_invocation, per_inv.expected_invocation
    failed = [(m.metric_name, m.criterion) for m in per_inv.eval_metric_results if m.eval_status is EvalStatus.FAILED]
    parts = failed_parts(failed)
    act_calls = [format_tool_call(t) for t in actual.tools]
    act_text = actual.final_response.content if actual.final_response is not None else None
    exp_side, act_diff, tool_marks = None, None, [None] * len(act_calls)
    if expected is not None:
        exp_calls = [format_tool_call(t) for t in expected.tools]
        left, tool_marks = _tool_sides(exp_calls, act_calls, TOOLS in parts)
        exp_text = expected.final_response.content if expected.final_response is not None else None
        strategy = response_strategy(failed) if RESPONSE in parts else None
        exp_diff = None if exp_text is None else _segments([("=", exp_text)])
        if strategy is not None and exp_text is not None:
            exp_diff = _segments([("-", exp_text)])  # what the answer lacked, not a version to diff against
        elif RESPONSE in parts and exp_text is not None and act_text is not None and exp_text != act_text:
            segments = word_diff(exp_text, act_text)
            exp_diff = _segments(s for s in segments if s[0] != "+")
            act_diff = _segments(s for s in segments if s[0] != "-")
        exp_side = ReplayExpected(
            tool_calls=left,
            final_response=exp_diff,
            response_strategy=strategy_phrase(strategy) if strategy is not None else None,
        )
    status = _turn_status({m.eval_status for m in per_inv.eval_metric_results})
    usage = actual.usage
    return ReplayTurn(
        index=index,
        invocation_id=actual.invocation_id,
        status=status.value,
        user=actual.user_content.content,
        events=_events(actual, tool_marks),
        final_response=act_text,
        final_response_diff=act_diff,
        expected=exp_side,
        metrics=[_verdict(m) for m in per_inv.eval_metric_results],
        duration=actual.duration,
        model_duration=actual.model_duration,
        tool_duration=actual.tool_duration,
        input_tokens=usage.input_tokens if usage is not None else None,
        output_tokens=usage.output_tokens if usage is not None else None,
        replay=actual.replay.model_dump(mode="json") if actual.replay is not None else None,
    )


def pick_run(runs: list[EvalCaseResult], case_id: str, run_id: int | None) -> EvalCaseResult:
    """The case run asked for (default: its first run that did not pass, else its first run)."""
    if not runs:
        raise NotFoundError(f"case {case_id!r} is not in this result")
    if run_id is None:
        return _first_shown(runs)
    for case in runs:
        if case.run_id == run_id:
            return case
    raise InputError(f"runId: case {case_id!r} has no run {run_id} (runs: {[c.run_id for c in runs]})")


@router.get("/apps/{app}/results/{result_id}/cases/{case_id}/replay")
def replay_case(
    app: str,
    result_id: str,
    case_id: str,
    state: StateDep,
    run_id: Annotated[int | None, Query(alias="runId", ge=1)] = None,
) -> ReplayAnswer:
    """One case run turn by turn: user message, tool calls and results, hand-offs, intermediate text, final
    response; each turn's PASS/FAIL and metric verdicts, the expected side and the differences marked where a
    failed metric compared them. ``runId`` picks a run (default: the first that did not pass)."""
    from ..summary._reasons import first_reason

    state.check_app(app)
    result = load_result(state, app, result_id)
    runs = case_runs(result, case_id)
    case = pick_run(runs, case_id, run_id)
    return ReplayAnswer(
        app=app,
        result_id=result_id,
        eval_set_id=result.eval_set_id,
        eval_id=case.eval_id,
        run_id=case.run_id,
        run_ids=[c.run_id for c in runs],
        run_statuses=[c.final_eval_status.value for c in runs],
        status=case.final_eval_status.value,
        score=case.score,
        reason=first_reason(case),
        error_message=case.error_message,
        metrics=[_verdict(m) for m in case.overall_eval_metric_results],
        turns=[_turn(i, p) for i, p in enumerate(case.eval_metric_result_per_invocation, start=1)],
    )
