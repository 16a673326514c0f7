"""``/apps/{app}/compare/cases/{case_id}``: one case of two results side by side — per turn the user message and
each side's final response and tool calls, the words and calls that differ marked (``-`` only the base has, ``+``
only the new one), each side's status and first reason. The Compare tab shows it under the case's row."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from ..model import EvalCaseResult, Invocation
from ._deps import StateDep
from ._replay import _segments, _tool_sides, pick_run
from ._result_views import case_runs, load_result

__all__ = ["router"]

router = APIRouter()
"""``/apps/{app}/compare/cases/{case_id}`` (mounted under ``/api``)."""

_ID_MAX = 1024


def _side(state: StateDep, app: str, result_id: str, case_id: str) -> EvalCaseResult | None:
    runs = case_runs(load_result(state, app, result_id), case_id)
    return pick_run(runs, case_id, None) if runs else None


def _facts(case: EvalCaseResult | None, result_id: str) -> dict[str, Any] | None:
    from ..summary._reasons import first_reason

    if case is None:
        return None
    return {
        "resultId": result_id,
        "runId": case.run_id,
        "status": case.final_eval_status.value,
        "reason": first_reason(case),
    }


def _text(invocation: Invocation | None) -> str | None:
    if invocation is None or invocation.final_response is None:
        return None
    return invocation.final_response.content


def _turn(index: int, base: Invocation | None, new: Invocation | None) -> dict[str, Any]:
    from ..reporting._diff import word_diff
    from ..summary._reasons import format_tool_call

    base_calls = [format_tool_call(t) for t in base.tools] if base is not None else []
    new_calls = [format_tool_call(t) for t in new.tools] if new is not None else []
    left, right = _tool_sides(base_calls, new_calls, True)
    base_text, new_text = _text(base), _text(new)
    base_words: list[tuple[str, str]] | None
    new_words: list[tuple[str, str]] | None
    if base_text is not None and new_text is not None:
        words = word_diff(base_text, new_text)
        base_words, new_words = [s for s in words if s[0] != "+"], [s for s in words if s[0] != "-"]
    else:
        base_words = [("-", base_text)] if base_text is not None else None
        new_words = [("+", new_text)] if new_text is not None else None
    either = new if new is not None else base
    user = either.user_content.content if either is not None else ""

    def answer(words: Any, calls: list[Any]) -> dict[str, Any]:
        return {
            "finalResponse": None if words is None else [s.model_dump() for s in _segments(words)],
            "toolCalls": [[s.model_dump() for s in call] for call in calls],
        }

    right_calls = [r if r is not None else _segments([("=", c)]) for r, c in zip(right, new_calls, strict=True)]
    return {"index": index, "user": user, "base": answer(base_words, left), "new": answer(new_words, right_calls)}


@router.get("/apps/{app}/compare/cases/{case_id}")
def compare_case(
    app: str,
    case_id: str,
    state: StateDep,
    base: Annotated[str, Query(max_length=_ID_MAX)],
    new: Annotated[str, Query(max_length=_ID_MAX)],
) -> JSONResponse:
    """One case of results ``base`` and ``new`` side by side, turn by turn (each side's run that did not pass
    first): user message, final responses and tool calls with the differences marked, each side's status and
    first reason. A side without the case is ``null``."""
    state.check_app(app)
    base_case, new_case = _side(state, app, base, case_id), _side(state, app, new, case_id)
    base_turns = [p.actual_invocation for p in base_case.eval_metric_result_per_invocation] if base_case else []
    new_turns = [p.actual_invocation for p in new_case.eval_metric_result_per_invocation] if new_case else []
    count = max(len(base_turns), len(new_turns))
    turns = [
        _turn(i + 1, base_turns[i] if i < len(base_turns) else None, new_turns[i] if i < len(new_turns) else None)
        for i in range(count)
    ]
    return JSONResponse(
        {"evalId": case_id, "base": _facts(base_case, base), "new": _facts(new_case, new), "turns": turns}
    )
