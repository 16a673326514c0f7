"""Result files: native, ADK (snake/camel, int statuses) and ADK's legacy string-wrapped JSON."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ..errors import InputError
from ..model import EvalMetricResult, EvalSetResult, EvalStatus, Invocation
from ._adk_read import invocation_from_adk, is_genai_invocation
from ._adk_write import invocation_to_adk
from ._jsonio import parse_json, type_name, validation_error
from ._keys import get_key, has_key, pop_key, snake_key

__all__ = ["result_from_document", "to_adk_result"]

_NATIVE_CRITERIA = frozenset(
    {"toolTrajectory", "tool_trajectory", "finalResponse", "final_response", "llmJudge", "llm_judge", "adk"}
)
_ADK_STATUS = {
    EvalStatus.PASSED: 1,
    EvalStatus.FAILED: 2,
    EvalStatus.NOT_EVALUATED: 3,
    EvalStatus.INFORMATIONAL: 4,
    EvalStatus.ERROR: 2,  # ADK has no error status and forbids other values: an undecided metric did not pass
}


def _metric_result(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    criterion = out.get("criterion")
    if isinstance(criterion, dict) and criterion and not (set(criterion) & _NATIVE_CRITERIA):
        out["criterion"] = {"adk": criterion}  # an ADK BaseCriterion: keep it as written, ADK semantics
    if "threshold" in out and out["threshold"] is None:
        adk = criterion if isinstance(criterion, dict) else {}
        if isinstance(adk.get("threshold"), (int, float)):
            out["threshold"] = adk["threshold"]
        else:
            del out["threshold"]
    if has_key(out, "custom_function_path") and get_key(out, "custom_function_path") is None:
        pop_key(out, "custom_function_path")
    details = out.get("details")
    if isinstance(details, dict):
        # ADK writes every optional detail, null when absent (rubric_scores, token_usage_details, ...); an empty
        # list of rubric scores says no more than null does.
        details = {k: v for k, v in details.items() if v is not None and v != []}
        if isinstance(get_key(details, "rubric_scores"), list):
            details["rubric_scores"] = [_rubric_score(s) for s in pop_key(details, "rubric_scores")]
        for name in ("token_usage_details", "duration_details"):
            counts = get_key(details, name)
            if isinstance(counts, dict):  # ADK's field names, whichever spelling the file used
                pop_key(details, name)
                details[name] = {snake_key(k): v for k, v in counts.items()}
        if details:
            out["details"] = details
        else:
            del out["details"]
    return out


def _rubric_score(raw: Any) -> Any:
    if not isinstance(raw, dict) or not (has_key(raw, "rubric_id") or "rationale" in raw):
        return raw
    out = dict(raw)
    out["id"] = pop_key(out, "rubric_id", "")
    if "rationale" in out:
        out["reason"] = out.pop("rationale")
    return out


def _invocation(raw: Any, source: str, path: str) -> Any:
    if isinstance(raw, dict) and is_genai_invocation(raw):
        return invocation_from_adk(raw, source, path)
    return raw


def _case_result(raw: Any, source: str, path: str) -> Any:
    if not isinstance(raw, dict):
        return raw
    out = dict(raw)
    pop_key(out, "eval_metric_results")  # ADK's deprecated (EvalMetric, EvalMetricResult) tuples
    for key in ("user_id", "eval_set_file", "session_details"):  # ADK writes them as null when unset
        if has_key(out, key) and get_key(out, key) is None:
            pop_key(out, key)
    overall = get_key(out, "overall_eval_metric_results")
    if isinstance(overall, list):
        pop_key(out, "overall_eval_metric_results")
        out["overall_eval_metric_results"] = [_metric_result(m) for m in overall]
    per = get_key(out, "eval_metric_result_per_invocation")
    if isinstance(per, list):
        pop_key(out, "eval_metric_result_per_invocation")
        converted = []
        for j, item in enumerate(per):
            if isinstance(item, dict):
                item = dict(item)
                where = f"{path}.evalMetricResultPerInvocation[{j}]"
                for field, camel in (
                    ("actual_invocation", "actualInvocation"),
                    ("expected_invocation", "expectedInvocation"),
                ):
                    if has_key(item, field):
                        value = pop_key(item, field)
                        if value is not None:
                            item[field] = _invocation(value, source, f"{where}.{camel}")
                results = get_key(item, "eval_metric_results")
                if isinstance(results, list):
                    pop_key(item, "eval_metric_results")
                    item["eval_metric_results"] = [_metric_result(m) for m in results]
            converted.append(item)
        out["eval_metric_result_per_invocation"] = converted
    return out


def result_from_document(doc: Any, source: str) -> EvalSetResult:
    """A parsed result document (native, ADK, or a JSON string that contains the result JSON)."""
    if isinstance(doc, str):
        doc = parse_json(doc, source)  # ADK before 1.22 wrote json.dumps(model_dump_json())
    if not isinstance(doc, dict) or not (has_key(doc, "eval_case_results") or has_key(doc, "eval_set_result_id")):
        found = (
            f"an object with keys {', '.join(sorted(doc)[:6])}" if isinstance(doc, dict) else f"a JSON {type_name(doc)}"
        )
        raise InputError(
            f"not an eval set result: found {found}; expected an object with 'evalSetResultId', 'evalSetId' and "
            "'evalCaseResults' (native or ADK)",
            file=source,
        )
    top = dict(doc)
    if has_key(top, "eval_set_result_name") and get_key(top, "eval_set_result_name") is None:
        pop_key(top, "eval_set_result_name")
    cases = get_key(top, "eval_case_results")
    if isinstance(cases, list):
        pop_key(top, "eval_case_results")
        top["eval_case_results"] = [_case_result(c, source, f"evalCaseResults[{i}]") for i, c in enumerate(cases)]
    try:
        return EvalSetResult.model_validate(top)
    except ValidationError as exc:
        raise validation_error(exc, source, "") from None


def _adk_metric(metric: EvalMetricResult) -> dict[str, Any]:
    criterion = metric.criterion
    if criterion is not None and criterion.adk is not None:
        adk_criterion: dict[str, Any] = dict(criterion.adk)
    else:
        native = criterion.model_dump(mode="json") if criterion is not None else {}
        adk_criterion = {"threshold": metric.threshold, **native}
    out: dict[str, Any] = {
        "metric_name": metric.metric_name,
        "threshold": metric.threshold,
        "criterion": adk_criterion,
        "score": metric.score,
        "eval_status": _ADK_STATUS[metric.eval_status],
    }
    custom_path = (metric.model_extra or {}).get("custom_function_path")
    if isinstance(custom_path, str):
        out["custom_function_path"] = custom_path
    details = metric.details
    if details is not None:
        adk_details: dict[str, Any] = {}
        if details.rubric_scores:
            adk_details["rubric_scores"] = [
                {"rubric_id": s.id, "rationale": s.reason or None, "score": s.score} for s in details.rubric_scores
            ]
        if details.token_usage_details is not None:
            adk_details["token_usage_details"] = details.token_usage_details
        if details.duration_details is not None:
            adk_details["duration_details"] = details.duration_details
        if adk_details:
            out["details"] = adk_details
    return out


def _adk_invocation(inv: Invocation | None) -> dict[str, Any] | None:
    return None if inv is None else invocation_to_adk(inv)


def to_adk_result(result: EvalSetResult) -> dict[str, Any]:
    """The result as an ADK EvalSetResult JSON object (snake_case, int statuses 1-4).

    ADK has no place for a metric's ``reason``; it is not written. ADK has no ``error`` status either: it is
    written as ``FAILED`` (2), the case's ``error_message`` saying what went wrong. Keys ADK ignores
    (``run_id``, ``error_message``, ``error_traceback``, ``summary``, ``run_metadata``) are written so our own
    reader keeps them.
    """
    cases = []
    for case in result.eval_case_results:
        item: dict[str, Any] = {
            "eval_set_id": case.eval_set_id,
            "eval_id": case.eval_id,
            "final_eval_status": _ADK_STATUS[case.final_eval_status],
            "overall_eval_metric_results": [_adk_metric(m) for m in case.overall_eval_metric_results],
            "eval_metric_result_per_invocation": [
                {
                    "actual_invocation": _adk_invocation(per.actual_invocation),
                    "expected_invocation": _adk_invocation(per.expected_invocation),
                    "eval_metric_results": [_adk_metric(m) for m in per.eval_metric_results],
                }
                for per in case.eval_metric_result_per_invocation
            ],
            "session_id": case.session_id,
            "user_id": case.user_id or None,
            "run_id": case.run_id,
        }
        if case.error_message:
            item["error_message"] = case.error_message
        if case.error_traceback:
            item["error_traceback"] = case.error_traceback
        extra = case.model_extra or {}
        for key in ("session_details", "eval_set_file"):  # kept from an ADK result
            value = extra.get(key, extra.get(to_camel(key)))
            if value is not None:
                item[key] = value
        cases.append(item)
    out: dict[str, Any] = {
        "eval_set_result_id": result.eval_set_result_id,
        "eval_set_result_name": result.eval_set_result_name or result.eval_set_result_id,
        "eval_set_id": result.eval_set_id,
        "eval_case_results": cases,
        "creation_timestamp": result.creation_timestamp or 0.0,
    }
    if result.summary is not None:
        out["summary"] = result.summary.model_dump(mode="json")
    if result.run_metadata is not None:  # ignored by ADK's reader like ``summary``; read back by ours
        out["run_metadata"] = result.run_metadata.model_dump(mode="json", by_alias=False)
    return out
