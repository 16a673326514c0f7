"""Scoring a live session and saving it as a golden case.

Scoring is the trace run of :mod:`agentgauge.launch` -- the flow of ``eval --traces --by-session`` -- on one
received session: it is paired with a case of the eval set the body names, the metrics are the body's or those
found beside the eval set as ``eval`` finds them, and the result is saved with the server's other results; without
an eval set only reference-free metrics are accepted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import InputError, NotFoundError
from ..launch import segment

if TYPE_CHECKING:  # pragma: no cover
    from ..launch import EvalRequest
    from ..model import EvalSetResult
    from ..run import EvaluationResult
    from ..storage import EvalResultManager
    from ..traces import TraceConversation
    from ._live_bodies import LiveSaveBody, LiveScoreBody
    from ._live_hub import LiveHub
    from ._state import ServerState

__all__ = ["LiveScoring", "save_session", "score_conversations", "score_session"]


def _conversations(hub: LiveHub, key: str) -> list[TraceConversation]:
    conversations, notes, _ = hub.store.conversations(key)
    if not conversations:
        why = "; ".join(notes) or "no spans"
        raise InputError(f"live session {key!r} holds no agent conversation yet: {why}")
    return conversations


def _request(state: ServerState, key: str, conversations: list[TraceConversation], body: LiveScoreBody) -> EvalRequest:
    """The trace run of the session: against the eval set the body names (its cases paired as ``eval --traces``
    pairs them), else with the body's reference-free metrics."""
    from ..formats import parse_metrics
    from ..launch import EvalRequest, EvalSetSpec, RecordedTraces
    from ._runs import served, served_set

    metrics = None if body.metrics is None else tuple(parse_metrics(json.dumps(body.metrics), source="metrics"))
    sets: tuple[EvalSetSpec, ...] = ()
    if body.eval_set_id:
        app = state.check_app(body.app_name or "")
        golden = state.eval_sets.snapshot(app, body.eval_set_id).eval_set  # read only: matched cases are copies
        sets = (served_set(state, app, body.eval_set_id, [body.case_id] if body.case_id else [], golden),)
    received = RecordedTraces(tuple(conversations), segment(f"live_{key}")[:100] or "live", source=f"session {key}")
    request = EvalRequest(
        traces=received,
        sets=sets,
        config=metrics,
        app_name=body.app_name or None,
        parallelism=state.config.default_parallelism,
    )
    return served(state, request)


class LiveScoring(NamedTuple):
    """A scored live session: the app and eval set its result is under, each case's pairing with the eval set
    (``caseId``, ``by``) and the evaluation's outcome."""

    app: str
    eval_set_id: str
    matches: list[dict[str, str]]
    outcome: EvaluationResult


async def score_conversations(
    state: ServerState,
    key: str,
    conversations: list[TraceConversation],
    body: LiveScoreBody,
    *,
    results: EvalResultManager | None = None,
    record_metadata: bool = True,
) -> LiveScoring:
    """Score a session's ``conversations`` as ``body`` says (see the module): the one scoring entry of received
    sessions, the Live tab's and online evaluation's. The result is saved to ``results``, by default with the
    server's results; ``record_metadata`` off leaves out the run's provenance (git state, versions: a process per
    run, which online scoring of many small sessions cannot afford)."""
    from ..launch import prepare

    request = _request(state, key, conversations, body)
    if results is not None:
        request = dataclasses.replace(request, results=results)
    request = dataclasses.replace(request, record_metadata=record_metadata)
    prepared = await asyncio.to_thread(prepare, request)
    [set_run] = prepared.sets
    [outcome] = await prepared.run()
    matches = [{"caseId": case_id, "by": how} for case_id, how in set_run.matches]
    return LiveScoring(prepared.app_name, set_run.heading.eval_set_id, matches, outcome)


async def score_session(state: ServerState, hub: LiveHub, key: str, body: LiveScoreBody) -> dict[str, Any]:
    """Score one live session (see the module); the answer names the result, the case pairing and each case's
    metric scores, statuses and reasons."""
    conversations = await asyncio.to_thread(_conversations, hub, key)
    scoring = await score_conversations(state, key, conversations, body)
    outcome = scoring.outcome
    header = outcome.result_header
    return {
        "appName": scoring.app,
        "evalSetId": scoring.eval_set_id,
        "resultId": header.eval_set_result_id if header is not None else None,
        "status": outcome.overall_status.value,
        "matches": scoring.matches,
        "cases": _case_rows(outcome.eval_set_result),
    }


def _case_rows(result: EvalSetResult | None) -> list[dict[str, Any]]:
    if result is None:
        return []
    rows = []
    for case in result.eval_case_results:
        rows.append(
            {
                "evalId": case.eval_id,
                "status": case.final_eval_status.value,
                "errorMessage": case.error_message,
                "metrics": [
                    {
                        "name": m.metric_name,
                        "score": m.score,
                        "threshold": m.threshold,
                        "status": m.eval_status.value,
                        "reason": m.details.reason if m.details is not None else None,
                    }
                    for m in case.overall_eval_metric_results
                ],
            }
        )
    return rows


def _free_id(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted_2``, ``wanted_3``, ... when a case of the set has it already (a session scored
    against a case carries that case's id: saving it as a new case must not collide with it)."""
    if wanted not in taken:
        return wanted
    number = 2
    while f"{wanted}_{number}" in taken:
        number += 1
    return f"{wanted}_{number}"


def save_session(state: ServerState, hub: LiveHub, key: str, body: LiveSaveBody) -> dict[str, Any]:
    """Add the session's conversation to an eval set as a golden case (the set is created when missing)."""
    from ..model._ids import check_case_id
    from ..traces import golden_eval_set

    conversations = _conversations(hub, key)
    app = state.check_app(body.app_name)
    golden = golden_eval_set(conversations, body.eval_set_id).eval_cases
    case = golden[0]
    for other in golden[1:]:  # one session is one case, even when its traces did not share a session id
        case.conversation = [*(case.conversation or []), *(other.conversation or [])]
    try:
        taken = {c.eval_id for c in state.eval_sets.snapshot(app, body.eval_set_id).eval_set.eval_cases}
    except NotFoundError:
        state.eval_sets.create(app, body.eval_set_id)
        taken = set()
    eval_id = body.eval_id or _free_id(segment(case.eval_id) or "live_session", taken)
    check_case_id(eval_id)
    case = case.model_copy(update={"eval_id": eval_id})
    state.eval_sets.add_case(app, body.eval_set_id, case)
    return {"appName": app, "evalSetId": body.eval_set_id, "evalId": eval_id, "turns": len(case.conversation or [])}
