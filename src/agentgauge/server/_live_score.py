"""Scoring a live session and saving it as a golden case: the ``eval --traces`` flow on one received session.

Scoring pairs the session with a case exactly as ``eval --traces --by-session`` does (:func:`~agentgauge.traces.
match_traces`), runs the trace-mode evaluation with the server's metric registry and saves the result with the
server's other results; without an eval set only reference-free metrics are accepted.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TYPE_CHECKING, Any

from ..errors import InputError, NotFoundError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import EvalMetric, EvalSet, EvalSetResult
    from ..traces import TraceConversation
    from ._live_bodies import LiveSaveBody, LiveScoreBody
    from ._live_hub import LiveHub
    from ._state import ServerState

__all__ = ["save_session", "score_session"]


def _segment(name: str) -> str:
    """A name made safe as one path segment (app names and ids come from span attributes)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")


def _conversations(hub: LiveHub, key: str) -> list[TraceConversation]:
    conversations, notes, _ = hub.store.conversations(key)
    if not conversations:
        why = "; ".join(notes) or "no spans"
        raise InputError(f"live session {key!r} holds no agent conversation yet: {why}")
    return conversations


def _metrics(raw: Any, source: str) -> list[EvalMetric] | None:
    from ..formats import parse_metrics

    return None if raw is None else parse_metrics(json.dumps(raw), source=source)


def _against_set(
    state: ServerState, conversations: list[TraceConversation], body: LiveScoreBody
) -> tuple[str, EvalSet, list[EvalMetric], list[dict[str, str]]]:
    from ..formats import default_adk_metrics
    from ..service import select_cases
    from ..traces import EVAL_ID_ATTRIBUTE, match_traces, trace_eval_set

    app = state.check_app(body.app_name or "")
    set_id = body.eval_set_id or ""
    golden = state.eval_sets.snapshot(app, set_id).eval_set
    selected = [body.case_id] if body.case_id else None
    select_cases(golden, selected)
    matching = match_traces(conversations, golden, selected=selected)
    if matching.unmatched:
        listed = "; ".join(f"trace {c.trace_id}: {why}" for c, why in matching.unmatched)
        raise InputError(
            f"the session matches no case of eval set {set_id!r}: {listed}. Name the case (caseId), or set the "
            f"span attribute {EVAL_ID_ATTRIBUTE} when recording"
        )
    metrics = _metrics(body.metrics, "metrics")
    if metrics is None:
        try:
            metrics = state.metrics.get_all(app, set_id)
        except NotFoundError:
            metrics = default_adk_metrics()
    matches = [{"caseId": m.case.eval_id, "by": m.how} for m in matching.matches]
    return app, trace_eval_set(matching, golden.eval_set_id, golden=golden), metrics, matches


def _reference_free(
    state: ServerState, key: str, conversations: list[TraceConversation], body: LiveScoreBody
) -> tuple[str, EvalSet, list[EvalMetric]]:
    from ..traces import trace_eval_set

    metrics = _metrics(body.metrics, "metrics")
    if not metrics:
        raise InputError(
            "metrics: give an eval set (appName and evalSetId) to compare the session with expected "
            "conversations, or reference-free metrics (e.g. safety_v1, hallucinations_v1, llm_rubric_response)"
        )
    registry = state.registry
    registry.validate_metrics(metrics, file="metrics")
    needing = [
        m.metric_name for m in metrics if m.metric_name in registry and registry.info(m.metric_name).needs_expected
    ]
    if needing:
        raise InputError(
            f"metrics: {', '.join(needing)} compare with expected data: give an eval set (appName and evalSetId) "
            "or use reference-free metrics only"
        )
    names = [body.app_name or "", *(c.app_name for c in conversations), "live"]
    app = state.check_app(next(_segment(n) for n in names if _segment(n)))
    set_id = _segment(f"live_{key}")[:100] or "live"
    return app, trace_eval_set(conversations, set_id), metrics


async def score_session(state: ServerState, hub: LiveHub, key: str, body: LiveScoreBody) -> dict[str, Any]:
    """Score one live session (see the module); the answer names the result, the case pairing and each case's
    metric scores, statuses and reasons."""
    from ..run._evaluator import AgentEvaluator
    from ..storage import InMemoryEvalSetManager, InMemoryMetricManager

    conversations = await asyncio.to_thread(_conversations, hub, key)
    matches: list[dict[str, str]] = []
    if body.eval_set_id:
        app, eval_set, metrics, matches = await asyncio.to_thread(_against_set, state, conversations, body)
    else:
        app, eval_set, metrics = _reference_free(state, key, conversations, body)
    sets, metric_store = InMemoryEvalSetManager(), InMemoryMetricManager()
    sets.put(app, eval_set)
    metric_store.put_all(app, eval_set.eval_set_id, metrics)
    evaluator = AgentEvaluator(
        app,
        None,
        eval_set_manager=sets,
        metric_manager=metric_store,
        result_manager=state.results.writer,
        registry=state.registry,
        parallelism=state.config.default_parallelism,
    )
    outcome = await evaluator.evaluate(eval_set.eval_set_id)
    result = outcome.eval_set_result
    header = outcome.result_header
    return {
        "appName": app,
        "evalSetId": eval_set.eval_set_id,
        "resultId": header.eval_set_result_id if header is not None else None,
        "status": outcome.overall_status.value,
        "matches": matches,
        "cases": _case_rows(result),
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
    eval_id = body.eval_id or _segment(case.eval_id) or "live_session"
    check_case_id(eval_id)
    case = case.model_copy(update={"eval_id": eval_id})
    try:
        state.eval_sets.snapshot(app, body.eval_set_id)
    except NotFoundError:
        state.eval_sets.create(app, body.eval_set_id)
    state.eval_sets.add_case(app, body.eval_set_id, case)
    return {"appName": app, "evalSetId": body.eval_set_id, "evalId": eval_id, "turns": len(case.conversation or [])}
