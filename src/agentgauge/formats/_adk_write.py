"""Native eval sets → Google ADK EvalSet JSON (snake_case, genai ``Content``, ``intermediate_data``).

The output is accepted by ADK's ``EvalSet.model_validate_json``. Data that came from ADK is written back as it was
(see :mod:`._adk_read`); native-only data travels in the eval case's ``agentgauge`` key (see :mod:`._stash`).
"""

from __future__ import annotations

from typing import Any

from ..model import EvalCase, EvalSet, Invocation, Message, Tool
from ._adk_events import events_form, usage_from_data, usage_of
from ._adk_read import ADK_INVOCATION_EXTRAS, content_to_message, derive_intermediate, invocation_from_adk
from ._keys import snake_key
from ._stash import STASH_KEY, fingerprint

__all__ = ["case_to_adk", "invocation_to_adk", "message_to_content", "to_adk_eval_set"]

_ADK_ROLE = {"assistant": "model", "user": "user", "system": "system", "tool": "tool"}
_ADK_SCENARIO_FIELDS = ("starting_prompt", "conversation_plan", "user_persona")


def message_to_content(message: Message, *, default_role: str) -> dict[str, Any]:
    """A native message as genai ``Content`` (the preserved original when it still reads back the same)."""
    extra = message.model_extra or {}
    preserved = extra.get("adk_content")
    if isinstance(preserved, dict):
        try:
            again = content_to_message(preserved, "", "", default_role=default_role)
        except ValueError:
            again = None
        if again is not None and again["role"] == message.role and again["content"] == message.content:
            return preserved
    return {"role": _ADK_ROLE.get(message.role, message.role), "parts": [{"text": message.content}]}


def _call(tool: Tool) -> dict[str, Any]:
    # ADK's FunctionCall.args must be an object or absent. ``None`` (no arguments) is left out, as ADK writes it
    # (``exclude_none``); other JSON values are wrapped and the stash restores them.
    call: dict[str, Any] = {"id": tool.id, "name": tool.name}
    value = tool.arguments
    if value is not None:
        call["args"] = value if isinstance(value, dict) else {"value": value}
    return call


def _intermediate_data(inv: Invocation) -> dict[str, Any] | None:
    extra = inv.model_extra or {}
    tools = [t.model_dump(mode="json") for t in inv.tools]
    texts = [m.model_dump(mode="json") for m in inv.intermediate_responses]
    unpaired = extra.get("unpaired_tool_responses") or []
    preserved = extra.get("adk_intermediate_data")
    if isinstance(preserved, dict):
        try:
            p_tools, p_texts, p_unpaired, _ = derive_intermediate(preserved, "", "")
            p_inv = Invocation.model_validate({"user_content": {}, "tools": p_tools, "intermediate_responses": p_texts})
            same = (
                [t.model_dump(mode="json") for t in p_inv.tools] == tools
                and [m.model_dump(mode="json") for m in p_inv.intermediate_responses] == texts
                and p_unpaired == unpaired
                and usage_from_data(preserved) == usage_of(inv)
            )
        except ValueError:
            same = False
        if same:
            return preserved
    if inv.usage is not None:  # ADK keeps usage only on events
        return events_form(inv, list(unpaired))
    if not tools and not texts and not unpaired and extra.get("adk_no_intermediate_data"):
        return None
    data: dict[str, Any] = {
        "tool_uses": [_call(t) for t in inv.tools],
        "tool_responses": [
            {"id": t.id, "name": t.name, "response": t.result if isinstance(t.result, dict) else {"result": t.result}}
            for t in inv.tools
            if t.result is not None
        ]
        + list(unpaired),
        "intermediate_responses": [
            [str((m.model_extra or {}).get("author") or ""), [{"text": m.content}]] for m in inv.intermediate_responses
        ],
    }
    return data


def invocation_to_adk(inv: Invocation) -> dict[str, Any]:
    """One native invocation as an ADK ``Invocation`` dict (no stash; see :func:`to_adk_eval_set`)."""
    out: dict[str, Any] = {
        "invocation_id": inv.invocation_id,
        "user_content": message_to_content(inv.user_content, default_role="user"),
    }
    if inv.final_response is not None:
        out["final_response"] = message_to_content(inv.final_response, default_role="assistant")
    data = _intermediate_data(inv)
    if data is not None:
        out["intermediate_data"] = data
    if inv.creation_timestamp is not None:
        out["creation_timestamp"] = inv.creation_timestamp
    for name in ("duration", "model_duration", "tool_duration"):
        value = getattr(inv, name)
        if value is not None:
            out[name] = value
    for key, value in (inv.model_extra or {}).items():
        name = snake_key(key)
        if name in ADK_INVOCATION_EXTRAS and value is not None:
            out[name] = value
    return out


def _dump(model: Any) -> Any:
    return model.model_dump(mode="json")


def case_to_adk(case: EvalCase) -> dict[str, Any]:
    """One native eval case as an ADK ``EvalCase`` dict (snake_case; native-only data in the stash key)."""
    out: dict[str, Any] = {"eval_id": case.eval_id}
    stash: dict[str, Any] = {}
    if case.conversation is not None:
        conversation = []
        stored: dict[str, Any] = {}
        for index, inv in enumerate(case.conversation):
            adk_inv = invocation_to_adk(inv)
            back = Invocation.model_validate(invocation_from_adk(adk_inv, "", ""))
            if _dump(back) != _dump(inv):
                stored[str(index)] = {"fingerprint": fingerprint(back), "invocation": _dump(inv)}
            conversation.append(adk_inv)
        out["conversation"] = conversation
        if stored:
            stash["invocations"] = stored
    scenario = case.conversation_scenario
    if scenario is not None:
        full = _dump(scenario)
        if case.conversation is None:
            adk_scenario = {
                "starting_prompt": scenario.starting_prompt or "",
                "conversation_plan": scenario.conversation_plan or "",
            }
            if scenario.user_persona is not None:
                adk_scenario["user_persona"] = scenario.user_persona
            out["conversation_scenario"] = adk_scenario
            rest = {k: v for k, v in full.items() if snake_key(k) not in _ADK_SCENARIO_FIELDS}
            if rest:
                stash["conversation_scenario"] = rest
        else:  # ADK allows only one of the two; the scenario rides along in the stash
            stash["conversation_scenario"] = full
    elif case.conversation is None:
        out["conversation"] = []
    if case.session_input is not None:
        session = case.session_input
        out["session_input"] = {
            **(session.model_extra or {}),
            "app_name": session.app_name,
            "user_id": session.user_id,
            "state": session.state,
        }
    if case.rubrics:
        out["rubrics"] = [
            {
                "rubric_id": r.id,
                "rubric_content": {"text_property": r.content.text if r.content is not None else None},
                **({"description": r.description} if r.description is not None else {}),
                **({"type": r.type} if r.type is not None else {}),
            }
            for r in case.rubrics
        ]
        metrics = {r.id: r.metric_name for r in case.rubrics if r.metric_name}
        if metrics:
            stash["rubric_metrics"] = metrics
    if case.creation_timestamp is not None:
        out["creation_timestamp"] = case.creation_timestamp
    # Native-only case fields: ADK's EvalCase keeps unknown keys, so they are written as they are.
    if case.eval_mode:
        out["eval_mode"] = case.eval_mode
    if case.context_messages:
        out["context_messages"] = [_dump(m) for m in case.context_messages]
    if case.expected_runner_enabled:
        out["expected_runner_enabled"] = True
    if case.actual_conversation is not None:
        out["actual_conversation"] = [_dump(inv) for inv in case.actual_conversation]
    for key, value in (case.model_extra or {}).items():
        if key != STASH_KEY:
            out[key] = value
    if stash:
        out[STASH_KEY] = stash
    return out


def to_adk_eval_set(eval_set: EvalSet) -> dict[str, Any]:
    """The eval set as an ADK EvalSet JSON object (snake_case, role ``model``, ``intermediate_data``)."""
    out: dict[str, Any] = {"eval_set_id": eval_set.eval_set_id}
    extra = dict(eval_set.model_extra or {})
    empty = extra.pop("adk_empty_fields", None)
    empty = empty if isinstance(empty, list) else []
    for key, value in (("name", eval_set.name), ("description", eval_set.description)):
        if value or key in empty:
            out[key] = value or ""
    out["eval_cases"] = [case_to_adk(case) for case in eval_set.eval_cases]
    if eval_set.creation_timestamp is not None:
        out["creation_timestamp"] = eval_set.creation_timestamp
    # ADK's EvalSet ignores unknown top-level keys; writing them keeps them for our own reader.
    for key, value in extra.items():
        out.setdefault(key, value)
    return out
