"""Eval set documents of every supported shape → :class:`~agentgauge.model.EvalSet`.

Detection works on the parsed JSON: an object with ``evalCases`` / ``eval_cases`` is an eval set (each invocation is
read in native or genai/ADK shape by looking at it); a JSON array is one of ADK's legacy forms. Anything else is
rejected with a message that says what was found and what was expected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..errors import InputError, InvalidIdError
from ..model import EvalCase, EvalSet, Invocation
from ..model._ids import check_case_id, check_id_text
from ._adk_read import invocation_from_adk, is_genai_invocation, rubric_from_adk
from ._fast_build import build_case
from ._jsonio import gc_paused, type_name, validation_error
from ._keys import get_key, has_key, pop_key
from ._legacy import is_legacy_document, legacy_eval_set
from ._stash import STASH_KEY, fingerprint

if TYPE_CHECKING:
    from ._unknown import EvalSetKeys

__all__ = [
    "case_from_raw",
    "case_to_native",
    "describe_document",
    "eval_set_from_document",
    "eval_set_top",
    "is_scenarios_document",
]


def is_scenarios_document(doc: Any) -> bool:
    """True for an ADK ``ConversationScenarios`` document: an object with a ``scenarios`` array and no cases."""
    return isinstance(doc, dict) and isinstance(doc.get("scenarios"), list) and not has_key(doc, "eval_cases")


def describe_document(doc: Any) -> str:
    """What a parsed document looks like, for 'nothing matched' messages."""
    if isinstance(doc, dict):
        if has_key(doc, "eval_case_results") or has_key(doc, "eval_set_result_id"):
            return "an eval set result"
        if "criteria" in doc:
            return "an ADK test_config.json (metrics)"
        keys = ", ".join(sorted(doc)[:6]) or "no keys"
        return f"an object with keys {keys}"
    if isinstance(doc, list):
        if doc and isinstance(doc[0], dict) and has_key(doc[0], "metric_name"):
            return "a metrics array"
        return f"an array whose first item is {type_name(doc[0])}" if doc else "an empty array"
    return f"a JSON {type_name(doc)}"


def eval_set_from_document(
    doc: Any, source: str, *, default_id: str, consume: bool = False, keys: EvalSetKeys | None = None
) -> EvalSet:
    """Build an eval set from a parsed document; ``consume`` lets the reader free the input as it goes; ``keys``
    gathers its unknown keys (each raw case is looked at before it is converted)."""
    if keys is not None and not (isinstance(doc, dict) and has_key(doc, "eval_cases")):
        keys.document(doc)  # a legacy array or a scenarios document: small, and read whole anyway
    if is_legacy_document(doc):
        return legacy_eval_set(doc, source, default_id=default_id)
    if is_scenarios_document(doc):  # ADK ConversationScenarios: one case per scenario, ids as ADK gives them
        from ._scenarios import scenarios_eval_set

        return scenarios_eval_set(doc, source, eval_set_id=default_id)
    if not isinstance(doc, dict) or not has_key(doc, "eval_cases"):
        raise InputError(
            f"not an eval set: found {describe_document(doc)}; expected an object with 'evalSetId' and 'evalCases' "
            "(native/trpc or Google ADK), or an ADK legacy array of {query, expected_tool_use, reference} rows or "
            "{name, data, initial_session} entries",
            file=source,
        )
    top = doc if consume else dict(doc)
    if keys is not None:
        keys.cases_under("eval_cases" if "eval_cases" in top else "evalCases")
        keys.top(top)
    cases = pop_key(top, "eval_cases")
    if not isinstance(cases, list):
        raise InputError(f"expected an array of eval cases (got {type_name(cases)})", file=source, location="evalCases")
    eval_set = eval_set_top(top, source)
    out: list[EvalCase] = []
    with gc_paused():
        for i in range(len(cases)):
            raw = cases[i]
            if consume:
                cases[i] = None  # free each raw case once it is converted: keeps peak memory low
            if keys is not None:
                keys.case(raw, i)
            out.append(case_from_raw(raw, source, f"evalCases[{i}]"))
    eval_set.eval_cases = out
    return eval_set


def eval_set_top(top: dict[str, Any], source: str) -> EvalSet:
    """The eval set described by a document's top-level keys other than its cases (``top`` may be modified)."""
    # Native output omits empty strings; remember ADK's explicit "" so the ADK writer can restore it.
    empty = [key for key in ("name", "description") if top.get(key) == ""]
    if empty:
        top["adk_empty_fields"] = empty
    try:
        eval_set = EvalSet.model_validate(top)
    except ValidationError as exc:
        raise validation_error(exc, source, "") from None
    try:
        check_id_text(eval_set.eval_set_id, "eval set id")  # it names result files and rows: no control characters
    except InvalidIdError as exc:
        raise InvalidIdError(exc.message, kind=exc.kind, value=exc.value, file=source, location="evalSetId") from None
    return eval_set


def case_from_raw(raw: Any, source: str, path: str) -> EvalCase:
    """One parsed eval case (any supported shape) as a model; ``path`` locates it in error messages."""
    case = build_case(raw)  # the common shapes, without per-object validation
    if case is None:
        native = case_to_native(raw, source, path)
        try:
            case = EvalCase.model_validate(native)
        except ValidationError as exc:
            raise validation_error(exc, source, path) from None
    try:
        check_case_id(case.eval_id)
    except InvalidIdError as exc:
        location = f"{path}.evalId"
        raise InvalidIdError(
            exc.message, kind=exc.kind, value=exc.value, limit=exc.limit, file=source, location=location
        ) from None
    return case


def _convert_conversation(case: dict[str, Any], field: str, source: str, path: str) -> list[Any] | None:
    conv = get_key(case, field)
    if conv is None:
        return None
    if not isinstance(conv, list):
        raise InputError(f"expected an array of invocations (got {type_name(conv)})", file=source, location=path)
    if not any(isinstance(inv, dict) and is_genai_invocation(inv) for inv in conv):
        return conv
    return [
        invocation_from_adk(inv, source, f"{path}[{j}]") if isinstance(inv, dict) and is_genai_invocation(inv) else inv
        for j, inv in enumerate(conv)
    ]


def case_to_native(raw: Any, source: str, path: str) -> Any:
    """One eval case (native, ADK or mixed) as a dict the native model validates."""
    if not isinstance(raw, dict):
        raise InputError(f"expected an eval case object (got {type_name(raw)})", file=source, location=path)
    if not has_key(raw, "eval_id"):
        raise InputError("missing required field", file=source, location=f"{path}.evalId")
    case = raw
    for field, camel in (("conversation", "conversation"), ("actual_conversation", "actualConversation")):
        converted = _convert_conversation(case, field, source, f"{path}.{camel}")
        if converted is not None and converted is not get_key(case, field):
            case = dict(case) if case is raw else case
            pop_key(case, field)
            case[field] = converted
    rubrics = get_key(case, "rubrics")
    if isinstance(rubrics, list) and any(isinstance(r, dict) and has_key(r, "rubric_id") for r in rubrics):
        case = dict(case) if case is raw else case
        case["rubrics"] = [rubric_from_adk(r, source, f"{path}.rubrics[{k}]") for k, r in enumerate(rubrics)]
    if STASH_KEY in case:
        case = dict(case) if case is raw else case
        _restore_stash(case, case.pop(STASH_KEY), source, path)
    return case


def _restore_stash(case: dict[str, Any], stash: Any, source: str, path: str) -> None:
    if not isinstance(stash, dict):
        raise InputError(f"expected an object (got {type_name(stash)})", file=source, location=f"{path}.{STASH_KEY}")
    scenario_extra = stash.get("conversation_scenario")
    if isinstance(scenario_extra, dict):
        scenario = get_key(case, "conversation_scenario")
        merged = dict(scenario) if isinstance(scenario, dict) else {}
        merged.update(scenario_extra)
        pop_key(case, "conversation_scenario")
        case["conversation_scenario"] = merged
    metrics = stash.get("rubric_metrics")
    rubrics = case.get("rubrics")
    if isinstance(metrics, dict) and isinstance(rubrics, list):
        case["rubrics"] = [
            {**r, "metric_name": metrics[r.get("id")]} if isinstance(r, dict) and r.get("id") in metrics else r
            for r in rubrics
        ]
    stored = stash.get("invocations")
    conv = case.get("conversation")
    if isinstance(stored, dict) and isinstance(conv, list):
        restored = list(conv)
        for key, entry in stored.items():
            if not (isinstance(key, str) and key.isdigit() and isinstance(entry, dict)):
                continue
            index = int(key)
            if index >= len(restored):
                continue
            try:
                current = Invocation.model_validate(restored[index])
            except ValidationError as exc:
                raise validation_error(exc, source, f"{path}.conversation[{index}]") from None
            if entry.get("fingerprint") == fingerprint(current):
                restored[index] = entry.get("invocation")
        case["conversation"] = restored
