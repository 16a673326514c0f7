"""Eval sets from an ADK ``ConversationScenarios`` document (``{"scenarios": [...]}``): one scenario case each, with
ADK's case ids."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from ..errors import InputError
from ..model import ConversationScenario, EvalCase, EvalSet, SessionInput

__all__ = ["scenario_eval_id", "scenarios_eval_set"]


def scenario_eval_id(scenario: ConversationScenario) -> str:
    """ADK's case id for a scenario: the first 8 hex digits of the SHA-256 of the sorted-keys JSON of
    ``{starting_prompt, conversation_plan, user_persona}`` (equal to ADK's id when no persona is set; ADK expands
    a persona id into its own persona text first)."""
    data = {
        "starting_prompt": scenario.starting_prompt,
        "conversation_plan": scenario.conversation_plan,
        "user_persona": scenario.user_persona,
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:8]


def _scenario(raw: Any, source: str, where: str) -> ConversationScenario:
    if not isinstance(raw, dict):
        raise InputError(f"expected a scenario object (got {type(raw).__name__})", file=source, location=where)
    try:
        scenario = ConversationScenario.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        path = ".".join([where, *(str(p) for p in first["loc"])])
        raise InputError(first["msg"], file=source, location=path) from None
    for key in ("starting_prompt", "conversation_plan"):
        if not isinstance(getattr(scenario, key), str) or not getattr(scenario, key).strip():
            camel = "startingPrompt" if key == "starting_prompt" else "conversationPlan"
            raise InputError("must be a non-empty string", file=source, location=f"{where}.{camel}")
    return scenario


def scenarios_eval_set(
    doc: Any,
    source: str,
    *,
    eval_set_id: str,
    session_input: SessionInput | None = None,
    existing: Iterable[str] = (),
) -> EvalSet:
    """An eval set with one case per scenario of an ADK ``ConversationScenarios`` document (``{"scenarios": [...]}``).

    Case ids are ADK's (:func:`scenario_eval_id`); a scenario whose id is in ``existing`` or repeats an earlier one
    is skipped, as ``adk eval_set add_eval_case`` does. Errors name the file and JSON path.
    """
    raw = doc.get("scenarios") if isinstance(doc, dict) else None
    if not isinstance(raw, list):
        raise InputError("expected an object with a 'scenarios' array (ADK ConversationScenarios)", file=source)
    seen = set(existing)
    cases = []
    for i, item in enumerate(raw):
        scenario = _scenario(item, source, f"scenarios[{i}]")
        eval_id = scenario_eval_id(scenario)
        if eval_id in seen:
            continue
        seen.add(eval_id)
        cases.append(EvalCase(eval_id=eval_id, conversation_scenario=scenario, session_input=session_input))
    return EvalSet(eval_set_id=eval_set_id, name=eval_set_id, eval_cases=cases)
