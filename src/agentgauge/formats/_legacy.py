"""ADK's legacy eval data: ``*.test.json`` turn lists and the ``[{name, data, initial_session}]`` form.

A ``.test.json`` file holds one session, so it becomes one eval case. Its ``eval_id`` (and the eval set id) is the
file name without ``.test.json`` / ``.json`` — ADK uses the whole file path, which is not portable and cannot be a
storage id. Invocation ids are ``<evalId>-<n>`` (ADK draws random ones) so conversions are reproducible.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..errors import InputError
from ..model import EvalSet, SessionInput
from ._jsonio import type_name, validation_error

__all__ = ["is_legacy_document", "legacy_eval_set", "session_input_from_initial"]


def _fail(message: str, source: str, path: str) -> InputError:
    return InputError(message, file=source, location=path)


def is_legacy_document(doc: Any) -> bool:
    """True for a non-empty array of legacy rows or named legacy entries."""
    return isinstance(doc, list) and bool(doc) and isinstance(doc[0], dict) and ("query" in doc[0] or "data" in doc[0])


def _string(row: dict[str, Any], key: str, source: str, path: str, *, required: bool) -> str | None:
    value = row.get(key)
    if value is None:
        if required:
            raise _fail("missing required field", source, f"{path}.{key}")
        return None
    if not isinstance(value, str):
        raise _fail(f"expected a string (got {type_name(value)})", source, f"{path}.{key}")
    return value


def _tools(row: dict[str, Any], invocation_id: str, source: str, path: str) -> list[dict[str, Any]]:
    uses = row.get("expected_tool_use")
    if uses is None:
        return []
    if not isinstance(uses, list):
        raise _fail(f"expected an array (got {type_name(uses)})", source, f"{path}.expected_tool_use")
    tools: list[dict[str, Any]] = []
    for k, use in enumerate(uses):
        where = f"{path}.expected_tool_use[{k}]"
        if not isinstance(use, dict):
            raise _fail(f"expected an object (got {type_name(use)})", source, where)
        name = _string(use, "tool_name", source, where, required=True)
        # ADK reads tool_input into FunctionCall.args: null (or absent) is "no arguments", distinct from {}.
        args = use.get("tool_input")
        if args is not None and not isinstance(args, dict):
            raise _fail(f"expected an object (got {type_name(args)})", source, f"{where}.tool_input")
        tool: dict[str, Any] = {"id": f"{invocation_id}-tool-{k + 1}", "name": name, "arguments": args}
        if "mock_tool_output" in use:
            tool["mock_tool_output"] = use["mock_tool_output"]  # ADK ignores it; kept for reference
        tools.append(tool)
    return tools


def _intermediate(row: dict[str, Any], source: str, path: str) -> list[dict[str, Any]]:
    items = row.get("expected_intermediate_agent_responses")
    if items is None:
        return []
    if not isinstance(items, list):
        raise _fail(
            f"expected an array (got {type_name(items)})", source, f"{path}.expected_intermediate_agent_responses"
        )
    out: list[dict[str, Any]] = []
    for k, item in enumerate(items):
        where = f"{path}.expected_intermediate_agent_responses[{k}]"
        if not isinstance(item, dict):
            raise _fail(f"expected an object with author and text (got {type_name(item)})", source, where)
        text = _string(item, "text", source, where, required=False) or ""
        author = _string(item, "author", source, where, required=False) or ""
        out.append({"role": "assistant", "content": text, "author": author})
    return out


def _rows_to_case(rows: Any, eval_id: str, source: str, path: str) -> dict[str, Any]:
    if not isinstance(rows, list):
        raise _fail(f"expected an array of turns (got {type_name(rows)})", source, path)
    conversation: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        where = f"{path}[{i}]" if path else f"[{i}]"
        if not isinstance(row, dict):
            raise _fail(f"expected a turn object with 'query' (got {type_name(row)})", source, where)
        query = _string(row, "query", source, where, required=True)
        invocation_id = f"{eval_id}-{i + 1}"
        invocation: dict[str, Any] = {
            "invocation_id": invocation_id,
            "user_content": {"role": "user", "content": query},
            # ADK's conversion always sets a final response, empty when there is no reference.
            "final_response": {
                "role": "assistant",
                "content": _string(row, "reference", source, where, required=False) or "",
            },
            "tools": _tools(row, invocation_id, source, where),
        }
        intermediate = _intermediate(row, source, where)
        if intermediate:
            invocation["intermediate_responses"] = intermediate
        conversation.append(invocation)
    return {"eval_id": eval_id, "conversation": conversation}


_SESSION_KEYS = ("app_name", "user_id", "state")


def session_input_from_initial(value: Any, source: str, path: str = "") -> SessionInput:
    """An ADK ``initial_session`` / ``initial.session.json`` object (``{state, app_name, user_id}``).

    Only those three keys are kept, as ADK does: an initial session is often a saved ``Session`` whose ``id``,
    ``events`` and ``last_update_time`` describe a past run, not how a new one starts.
    """
    if not isinstance(value, dict):
        raise _fail(f"expected an object with state, app_name and user_id (got {type_name(value)})", source, path)
    try:
        return SessionInput.model_validate({key: value[key] for key in _SESSION_KEYS if key in value})
    except ValidationError as exc:
        raise validation_error(exc, source, path) from None


def legacy_eval_set(doc: list[Any], source: str, *, default_id: str) -> EvalSet:
    """One of ADK's legacy array forms as an eval set (see the module docstring for ids)."""
    if not doc:
        raise InputError("empty array: expected legacy ADK turns ({query, expected_tool_use, reference})", file=source)
    first = doc[0]
    cases: list[dict[str, Any]] = []
    if isinstance(first, dict) and "data" in first and "query" not in first:
        for i, entry in enumerate(doc):
            where = f"[{i}]"
            if not isinstance(entry, dict):
                raise _fail(f"expected an object with name and data (got {type_name(entry)})", source, where)
            name = _string(entry, "name", source, where, required=True) or ""
            case = _rows_to_case(entry.get("data"), name, source, f"{where}.data")
            if entry.get("initial_session"):  # ADK ignores an empty initial session
                session = session_input_from_initial(entry["initial_session"], source, f"{where}.initial_session")
                case["session_input"] = session.model_dump(mode="json")
            cases.append(case)
    elif isinstance(first, dict) and "query" in first:
        cases.append(_rows_to_case(doc, default_id, source, ""))
    else:
        raise InputError(
            f"not an eval set: found an array whose first item is {type_name(first)} without 'query' or 'data'; "
            "expected ADK legacy rows [{query, expected_tool_use, reference}] or [{name, data, initial_session}]",
            file=source,
        )
    try:
        return EvalSet.model_validate({"eval_set_id": default_id, "name": default_id, "eval_cases": cases})
    except ValidationError as exc:
        raise validation_error(exc, source, "evalCases") from None
