"""What the Model Context Protocol tools of the server answer, as compact JSON-ready dicts (a coding agent's context
is small): apps, eval sets and results listed in a line each, a case's failures with their reasons and first
divergence, a comparison's changed cases, a case's turns, a file's check, a run's summary.

Every answer is built from what the rest of the server reads (its eval sets, result history, replay, comparison and
runs) and passes through :func:`~agentgauge._util.redact.redact` on its way out (:func:`compact_json`). Long texts
are cut (:data:`TEXT_LIMIT`), long lists too (``limit``, at most :data:`MAX_LIMIT`), saying how many were left out.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..model import EvalCaseResult, EvalSetResult, EvalStatus
from ..summary import case_mismatches, format_tool_call, message_text, one_line

if TYPE_CHECKING:  # pragma: no cover
    from ..compare import Comparison
    from ..summary import CaseSummary, Mismatch
    from ._answers import ReplayAnswer, ReplayEvent
    from ._state import ServerState

__all__ = [
    "MAX_LIMIT",
    "TEXT_LIMIT",
    "app_rows",
    "check_limit",
    "compact_json",
    "comparison_answer",
    "eval_set_rows",
    "failures_answer",
    "replay_answer",
    "result_rows",
    "result_summary",
]

TEXT_LIMIT = 300
"""Characters of any one text in an answer (a reason, a response, a tool call)."""
MAX_LIMIT = 200
"""The most items any list of an answer holds."""


def compact_json(answer: Any) -> str:
    """``answer`` as one line of JSON, secrets masked."""
    from .._util.redact import redact

    return redact(json.dumps(answer, ensure_ascii=False, separators=(",", ":"), default=str))


def check_limit(limit: int, name: str = "limit") -> int:
    """``limit`` when it is between 1 and :data:`MAX_LIMIT`; :class:`InputError` naming ``name`` otherwise."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InputError(f"{name}: must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}")
    return limit


def _cut(text: str | None) -> str | None:
    return None if text is None else one_line(text, TEXT_LIMIT)


def _limited(
    items: Sequence[Any], limit: int, answer: dict[str, Any], key: str, total: int | None = None
) -> dict[str, Any]:
    """``answer`` with the first ``limit`` of ``items`` under ``key`` and, when there were more (``total`` of
    them, default: all of ``items``), how many were left out."""
    total = len(items) if total is None else total
    answer[key] = list(items[:limit])
    if total > limit:
        answer["leftOut"] = total - limit
    return answer


def _when(timestamp: float | None) -> str | None:
    if not timestamp:
        return None
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def app_rows(state: ServerState) -> list[dict[str, Any]]:
    """Each app: its name, whether an agent is served for it, its eval set ids."""
    return [
        {"app": app, "agent": state.has_agent(app), "evalSets": state.eval_sets.list(app)} for app in state.app_names()
    ]


def eval_set_rows(state: ServerState, app: str) -> list[dict[str, Any]]:
    """Each eval set of the app: id, number of cases, the first case ids (a broken file: its error)."""
    from ..errors import NotFoundError

    rows: list[dict[str, Any]] = []
    for set_id in state.eval_sets.list(state.check_app(app)):
        try:
            cases = [c.eval_id for c in state.eval_sets.snapshot(app, set_id).eval_set.eval_cases]
        except InputError as exc:
            rows.append({"evalSetId": set_id, "error": _cut(str(exc))})
            continue
        except NotFoundError:
            continue  # removed meanwhile
        rows.append({"evalSetId": set_id, "cases": len(cases), "caseIds": cases[:20]})
    return rows


def _row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "resultId": row["evalSetResultId"],
        "evalSetId": row["evalSetId"],
        "created": _when(row["creationTimestamp"]),
        "status": row["overallStatus"],
        "counts": {status: count for status, count in row["counts"].items() if count},
    }
    if row["labels"]:
        out["labels"] = row["labels"]
    if row["interrupted"] or row["cancelled"]:
        out["interrupted"] = True
    return out


def result_rows(
    state: ServerState, app: str, eval_set_id: str | None, labels: dict[str, str], limit: int
) -> dict[str, Any]:
    """The app's results, newest first (of one eval set, with every one of ``labels``), at most ``limit``."""
    rows = [
        _row(r)
        for r in state.results.rows(state.check_app(app))
        if (eval_set_id is None or r["evalSetId"] == eval_set_id)
        and all(r["labels"].get(key) == value for key, value in labels.items())
    ]
    return _limited(rows, limit, {"app": app}, "results")


def result_summary(result: EvalSetResult, row: dict[str, Any] | None, result_id: str) -> dict[str, Any]:
    """One result in a few lines: its list row (status, counts, labels), each metric's mean, the cases that did not
    pass with their reason."""
    from ..summary import metric_summaries

    summary: dict[str, Any] = _row(row) if row is not None else {"resultId": result_id, "evalSetId": result.eval_set_id}
    overall = (m for c in result.eval_case_results for m in c.overall_eval_metric_results)
    summary["metrics"] = {m.metric_name: _score(m.average_score) for m in metric_summaries(overall)}
    failing = _not_passed(result)
    return _limited([_case_line(c) for c in failing[:20]], 20, summary, "notPassed", len(failing))


def _not_passed(result: EvalSetResult, wanted: set[str] | None = None) -> list[CaseSummary]:
    """The cases (of ``wanted`` when given) whose case status is not passed: the one status ``show`` and every
    report give a case, decided over its runs by the result's rule."""
    from ..summary import result_summary as summarize

    return [c for c in summarize(result).cases if not c.passed and (not wanted or c.eval_id in wanted)]


def _score(score: float | None) -> float | None:
    return None if score is None else round(score, 4)


def _case_line(case: CaseSummary) -> dict[str, Any]:
    line: dict[str, Any] = {"caseId": case.eval_id, "status": case.status.value}
    if case.runs > 1:
        line["runs"] = case.runs_text
        if case.reason_run is not None:
            line["run"] = case.reason_run
    line["reason"] = _cut(case.reason)
    return line


def _divergence(first: Mismatch) -> dict[str, Any]:
    """Where the agent first left the expected path: the turn, the user's message and each side's tool calls and
    final response (only what differs)."""
    assert first.invocation_index is not None
    actual, expected = first.actual, first.expected
    found: dict[str, Any] = {"turn": first.invocation_index + 1}
    if actual is not None:
        found["user"] = _cut(message_text(actual.user_content))
    act_tools = [_cut(format_tool_call(t)) for t in actual.tools] if actual is not None else []
    exp_tools = [_cut(format_tool_call(t)) for t in expected.tools] if expected is not None else []
    if expected is not None and act_tools != exp_tools:
        found["expectedTools"], found["actualTools"] = exp_tools, act_tools
    act_text = message_text(actual.final_response) if actual is not None else None
    exp_text = message_text(expected.final_response) if expected is not None else None
    if expected is not None and act_text != exp_text:
        found["expectedResponse"], found["actualResponse"] = _cut(exp_text), _cut(act_text)
    elif act_text is not None and "expectedTools" not in found:
        found["actualResponse"] = _cut(act_text)
    return found


def _case_failure(case: CaseSummary, run: EvalCaseResult | None) -> dict[str, Any]:
    """A not-passed case: its line, then the failed metrics and first divergence of the run its reason comes from."""
    line = _case_line(case)
    if run is None:
        return line
    if run.score is not None:
        line["caseScore"] = run.score
    mismatches = case_mismatches(run)
    metrics: dict[str, dict[str, Any]] = {}
    for m in mismatches:  # one line per metric: its first failing turn
        if m.metric_name not in metrics:
            metrics[m.metric_name] = {
                "metric": m.metric_name,
                "score": _score(m.score),
                "threshold": m.threshold,
                **({"turn": m.invocation_index + 1} if m.invocation_index is not None else {}),
                **({"reason": _cut(m.reason)} if m.reason else {}),
            }
    line["failedMetrics"] = list(metrics.values())
    first = next((m for m in mismatches if m.invocation_index is not None), None)
    if first is not None:
        line["firstDivergence"] = _divergence(first)
    return line


def failures_answer(
    result: EvalSetResult, result_id: str, case_ids: Iterable[str] | None, limit: int
) -> dict[str, Any]:
    """The cases of a result that did not pass (of ``case_ids`` when given): reason, failed metrics with their
    reasons, first divergence from the expected conversation (of the run the reason comes from)."""
    wanted = set(case_ids or ())
    if wanted and not any(c.eval_id in wanted for c in result.eval_case_results):
        raise InputError(f"caseIds: none of {sorted(wanted)} is in result {result_id!r}")
    cases = _not_passed(result, wanted)
    runs = {(c.eval_id, c.run_id): c for c in result.eval_case_results}
    answer: dict[str, Any] = {
        "resultId": result_id,
        "evalSetId": result.eval_set_id,
        "cases": len({c.eval_id for c in result.eval_case_results}),
        "notPassed": len(cases),
    }
    failures = [_case_failure(c, runs.get((c.eval_id, c.reason_run or c.first_run))) for c in cases[:limit]]
    return _limited(failures, limit, answer, "failures", len(cases))


def comparison_answer(comparison: Comparison, limit: int) -> dict[str, Any]:
    """What changed: the counts of each kind of change, the gate's verdict, the cases that changed (not the ones
    that stayed as they were), each metric's mean before and after."""
    from ..compare import ChangeKind

    stayed = (ChangeKind.STILL_PASSING, ChangeKind.STILL_FAILING)
    changed = [
        {"caseId": c.eval_id, "change": c.change.value, **({"reason": _cut(c.reason)} if c.reason else {})}
        for c in comparison.cases
        if c.change not in stayed
    ]
    answer: dict[str, Any] = {
        "base": comparison.base.eval_set_result_id or comparison.base.source,
        "new": comparison.new.eval_set_result_id or comparison.new.source,
        "counts": {kind.value: comparison.count(kind) for kind in ChangeKind if comparison.count(kind)},
        "regressed": comparison.regressed,
        "metrics": [
            {"metric": m.metric_name, "base": _score(m.base_mean), "new": _score(m.new_mean), "delta": _score(m.delta)}
            for m in comparison.metrics
        ],
    }
    if comparison.gate is not None:
        answer["gate"] = {"failed": comparison.gate.failed, "rule": comparison.gate.rule}
    if comparison.notes:
        answer["notes"] = comparison.notes
    return _limited(changed, limit, answer, "changed")


def _event_text(event: ReplayEvent) -> str | None:
    """One thing the agent did, on one line: ``tool_call NAME ARGS``, ``tool_result NAME -> RESULT``,
    ``handoff AGENT``, ``text: ...``."""
    if event.kind == "text":
        return _cut(f"text: {event.text or ''}")
    text = f"{event.kind} {event.name}".strip()
    if event.arguments:
        text += f" {event.arguments}"
    if event.result:
        text += f" -> {event.result}"
    return _cut(text)


def replay_answer(replay: ReplayAnswer) -> dict[str, Any]:
    """A case run turn by turn: the user's message, what the agent did (tool calls, hand-offs, texts), its final
    response, the turn's status and the metrics that failed it."""
    turns = []
    for turn in replay.turns:
        events = [_event_text(e) for e in turn.events]
        failed = [
            {"metric": m.metric_name, "score": _score(m.score), **({"reason": _cut(m.reason)} if m.reason else {})}
            for m in turn.metrics
            if m.status != EvalStatus.PASSED.value
        ]
        line: dict[str, Any] = {"turn": turn.index, "status": turn.status, "user": _cut(turn.user), "events": events}
        line["response"] = _cut(turn.final_response)
        if failed:
            line["failed"] = failed
        turns.append(line)
    answer: dict[str, Any] = {
        "resultId": replay.result_id,
        "caseId": replay.eval_id,
        "run": replay.run_id,
        "runs": replay.run_ids,
        "status": replay.status,
        "reason": _cut(replay.reason),
    }
    if replay.score is not None:
        answer["caseScore"] = replay.score
    answer["turns"] = turns
    return answer
