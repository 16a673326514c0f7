"""Google ADK (and ADK-TS / older trpc genai-shaped) eval data → native dicts.

ADK keeps messages as genai ``Content{role, parts}`` and tool calls in ``intermediate_data``; the native model keeps
plain ``{role, content}`` messages and ``tools[{id, name, arguments, result}]``. What has no native home is kept in
extras so the ADK writer can restore it:

- ``adk_content`` on a message: the original ``Content`` whenever it is not a single plain text part with the usual
  role (several parts, non-text parts, thought flags, a ``null`` role, ...);
- ``adk_intermediate_data`` on an invocation: the original ``intermediate_data`` whenever the native tools and
  intermediate responses do not regenerate it exactly (``invocation_events``, missing ids, unpaired responses, ...);
- ADK durations become the native duration fields, and the events' ``usage_metadata`` / ``model_version`` the
  native ``usage`` (see :mod:`._adk_events`); other ADK-only invocation fields (rubrics, ``app_details``) stay as
  extras under their own names.

The writer emits a preserved original only while the native fields still derive from it, so edits are never lost.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ._adk_fast import fast_invocation
from ._jsonio import type_name
from ._keys import get_key, has_key, pop_key

__all__ = [
    "ADK_INVOCATION_EXTRAS",
    "content_to_message",
    "derive_intermediate",
    "invocation_from_adk",
    "is_genai_invocation",
    "rubric_from_adk",
]

_ROLE_TO_NATIVE = {"user": "user", "model": "assistant", "assistant": "assistant", "system": "system", "tool": "tool"}
ADK_INVOCATION_EXTRAS = ("rubrics", "app_details")


def _fail(message: str, source: str, path: str) -> InputError:
    return InputError(message, file=source, location=path)


def is_genai_invocation(inv: dict[str, Any]) -> bool:
    """True when an invocation uses genai ``Content`` messages or ``intermediate_data`` (ADK / older trpc shape)."""
    if has_key(inv, "intermediate_data"):
        return True
    for name in ("user_content", "final_response"):
        value = get_key(inv, name)
        if isinstance(value, dict) and "parts" in value and "content" not in value:
            return True
    return False


def _part_texts(parts: Any, source: str, path: str) -> list[str]:
    if parts is None:
        return []
    if not isinstance(parts, list):
        raise _fail(f"expected an array of parts (got {type_name(parts)})", source, path)
    texts: list[str] = []
    for j, part in enumerate(parts):
        if not isinstance(part, dict):
            raise _fail(f"expected a part object (got {type_name(part)})", source, f"{path}[{j}]")
        text = part.get("text")
        if text is None:
            continue
        if not isinstance(text, str):
            raise _fail(f"expected a string (got {type_name(text)})", source, f"{path}[{j}].text")
        if text:  # ADK joins the non-empty text parts with newlines (final_response_match_v1)
            texts.append(text)
    return texts


def content_to_message(value: Any, source: str, path: str, *, default_role: str) -> dict[str, Any]:
    """A genai ``Content`` as a native message dict; ``default_role`` is used for a missing or unknown role."""
    if not isinstance(value, dict):
        raise _fail(f"expected a Content object with 'role' and 'parts' (got {type_name(value)})", source, path)
    role = value.get("role")
    parts = value.get("parts")
    texts = _part_texts(parts, source, f"{path}.parts")
    native_role = _ROLE_TO_NATIVE.get(role, default_role) if isinstance(role, str) else default_role
    message: dict[str, Any] = {"role": native_role, "content": "\n".join(texts)}
    usual_role = "model" if default_role == "assistant" else default_role
    plain = (
        role == usual_role
        and isinstance(parts, list)
        and len(parts) == 1
        and len(parts[0]) == 1
        and isinstance(parts[0].get("text"), str)
        and len(value) == 2
    )
    if not plain:
        message["adk_content"] = value
    return message


def _call_id(call: dict[str, Any], index: int) -> str:
    value = call.get("id")
    # A stable id keeps the native form deterministic; ADK itself pairs id-less calls and responses by ``None``.
    return value if isinstance(value, str) and value else f"adk_call_{index}"


def _function_call(call: Any, source: str, path: str) -> dict[str, Any]:
    if not isinstance(call, dict):
        raise _fail(f"expected a FunctionCall object (got {type_name(call)})", source, path)
    name = call.get("name")
    if not isinstance(name, str):
        raise _fail(f"expected the tool name as a string (got {type_name(name)})", source, f"{path}.name")
    args = call.get("args")
    if args is not None and not isinstance(args, dict):
        raise _fail(f"expected an object (got {type_name(args)})", source, f"{path}.args")
    _check_id(call, source, path)
    return call


def _function_response(resp: Any, source: str, path: str) -> dict[str, Any]:
    if not isinstance(resp, dict):
        raise _fail(f"expected a FunctionResponse object (got {type_name(resp)})", source, path)
    body = resp.get("response")
    if body is not None and not isinstance(body, dict):
        raise _fail(f"expected an object (got {type_name(body)})", source, f"{path}.response")
    _check_id(resp, source, path)
    return resp


def _check_id(obj: dict[str, Any], source: str, path: str) -> None:
    # Calls and responses are paired by id: ADK's ids are optional strings, anything else cannot be paired.
    value = obj.get("id")
    if value is not None and not isinstance(value, str):
        raise _fail(f"expected the id as a string (got {type_name(value)})", source, f"{path}.id")


def _pair(
    calls: list[dict[str, Any]], responses: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    # Same pairing as ADK's get_all_tool_calls_with_responses: by id, the last response with an id wins.
    by_id: dict[Any, dict[str, Any]] = {}
    for response in responses:
        by_id[response.get("id")] = response
    used: set[int] = set()
    tools: list[dict[str, Any]] = []
    for i, call in enumerate(calls):
        # ``args`` absent or null stays ``None``: ADK compares it with ``==``, so ``None`` never matches ``{}``.
        tool: dict[str, Any] = {"id": _call_id(call, i), "name": call["name"], "arguments": call.get("args")}
        resp = by_id.get(call.get("id"))
        if resp is not None:
            used.add(id(resp))
            tool["result"] = resp.get("response")
        tools.append(tool)
    unpaired = [resp for resp in responses if id(resp) not in used]
    return tools, unpaired


def _intermediate_responses(items: Any, source: str, path: str) -> list[dict[str, Any]]:
    if items is None:
        return []
    if not isinstance(items, list):
        raise _fail(f"expected an array of [author, parts] pairs (got {type_name(items)})", source, path)
    out: list[dict[str, Any]] = []
    for k, item in enumerate(items):
        where = f"{path}[{k}]"
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
            raise _fail(f"expected an [author, parts] pair (got {type_name(item)})", source, where)
        texts = _part_texts(item[1], source, f"{where}[1]")
        out.append({"role": "assistant", "content": "\n".join(texts), "author": item[0]})
    return out


def _from_events(data: dict[str, Any], source: str, path: str) -> tuple[list[Any], list[Any], list[Any]]:
    events = get_key(data, "invocation_events")
    if not isinstance(events, list):
        raise _fail(f"expected an array of events (got {type_name(events)})", source, f"{path}.invocation_events")
    calls: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    for e, event in enumerate(events):
        where = f"{path}.invocation_events[{e}]"
        if not isinstance(event, dict):
            raise _fail(f"expected an event object (got {type_name(event)})", source, where)
        author = event.get("author")
        if not isinstance(author, str):
            raise _fail(f"expected the event author as a string (got {type_name(author)})", source, f"{where}.author")
        content = event.get("content")
        if content is None:
            continue
        if not isinstance(content, dict):
            raise _fail(f"expected a Content object (got {type_name(content)})", source, f"{where}.content")
        parts = content.get("parts") or []
        event_texts = _part_texts(parts, source, f"{where}.content.parts")
        for j, part in enumerate(parts):
            call = get_key(part, "function_call")
            if call is not None:
                calls.append(_function_call(call, source, f"{where}.content.parts[{j}].function_call"))
            resp = get_key(part, "function_response")
            if resp is not None:
                responses.append(_function_response(resp, source, f"{where}.content.parts[{j}].function_response"))
        if event_texts:
            texts.append({"role": "assistant", "content": "\n".join(event_texts), "author": author})
    tools, unpaired = _pair(calls, responses)
    return tools, texts, unpaired


def derive_intermediate(data: Any, source: str, path: str) -> tuple[list[Any], list[Any], list[Any], bool]:
    """Native ``tools``, ``intermediate_responses`` and unpaired tool responses from ADK ``intermediate_data``.

    The last item says whether the plain writer regenerates ``data`` exactly (so nothing needs preserving).
    """
    if data is None:
        return [], [], [], True
    if not isinstance(data, dict):
        raise _fail(f"expected an object (got {type_name(data)})", source, path)
    if has_key(data, "invocation_events"):
        if has_key(data, "tool_uses") or has_key(data, "tool_responses"):
            raise _fail("has both 'invocation_events' and 'tool_uses'/'tool_responses'; use one form", source, path)
        tools, texts, unpaired = _from_events(data, source, path)
        return tools, texts, unpaired, False
    raw_calls = get_key(data, "tool_uses") or []
    raw_responses = get_key(data, "tool_responses") or []
    for key, value in (("tool_uses", raw_calls), ("tool_responses", raw_responses)):
        if not isinstance(value, list):
            raise _fail(f"expected an array (got {type_name(value)})", source, f"{path}.{key}")
    calls = [_function_call(c, source, f"{path}.tool_uses[{i}]") for i, c in enumerate(raw_calls)]
    responses = [_function_response(r, source, f"{path}.tool_responses[{i}]") for i, r in enumerate(raw_responses)]
    tools, unpaired = _pair(calls, responses)
    raw_texts = get_key(data, "intermediate_responses")
    texts = _intermediate_responses(raw_texts, source, f"{path}.intermediate_responses")
    plain = not unpaired and _plain_tools(calls, responses, tools) and _plain_texts(raw_texts)
    known = {"tool_uses", "toolUses", "tool_responses", "toolResponses", "intermediate_responses"}
    plain = plain and all(k in known or k == "intermediateResponses" for k in data)
    return tools, texts, unpaired, plain


def _plain_call(call: dict[str, Any]) -> bool:
    # What the writer emits: {id, name, args: {...}}, or {id, name} for a call without arguments (ADK omits None).
    if not isinstance(call.get("id"), str) or not call["id"]:
        return False
    if len(call) == 2:
        return "args" not in call
    return len(call) == 3 and isinstance(call.get("args"), dict)


def _plain_tools(calls: list[dict[str, Any]], responses: list[dict[str, Any]], tools: list[dict[str, Any]]) -> bool:
    for call in calls:
        if not _plain_call(call):
            return False
    with_result = [t for t in tools if "result" in t]
    if len(with_result) != len(responses):
        return False
    for tool, resp in zip(with_result, responses, strict=True):
        if len(resp) != 3 or resp.get("id") != tool["id"] or resp.get("name") != tool["name"]:
            return False
        if not isinstance(resp.get("response"), dict):
            return False
    return True


def _plain_texts(items: Any) -> bool:
    for item in items or []:
        parts = item[1]
        if not (isinstance(parts, list) and len(parts) == 1 and len(parts[0]) == 1 and "text" in parts[0]):
            return False
        if not parts[0]["text"]:
            return False
    return True


def invocation_from_adk(inv: Any, source: str, path: str) -> dict[str, Any]:
    """One ADK / genai-shaped invocation as a native invocation dict (extras preserved as described above)."""
    if type(inv) is dict:
        fast = fast_invocation(inv)
        if fast is not None:
            return fast
    if not isinstance(inv, dict):
        raise _fail(f"expected an invocation object (got {type_name(inv)})", source, path)
    rest = dict(inv)
    out: dict[str, Any] = {}
    if not has_key(rest, "user_content"):
        raise _fail("missing required field", source, f"{path}.userContent")
    user = pop_key(rest, "user_content")
    if isinstance(user, dict) and "parts" not in user and "content" in user:
        out["user_content"] = user  # a native message inside an otherwise genai-shaped invocation
    else:
        out["user_content"] = content_to_message(user, source, f"{path}.userContent", default_role="user")
    final = pop_key(rest, "final_response")
    if final is not None:
        if isinstance(final, dict) and "parts" not in final and "content" in final:
            out["final_response"] = final
        else:
            out["final_response"] = content_to_message(final, source, f"{path}.finalResponse", default_role="assistant")
    if has_key(rest, "intermediate_data") and get_key(rest, "intermediate_data") is not None:
        data = pop_key(rest, "intermediate_data")
        if has_key(rest, "tools"):
            raise _fail("has both 'tools' and 'intermediate_data'; use one form", source, path)
        tools, texts, unpaired, plain = derive_intermediate(data, source, f"{path}.intermediateData")
        from ._adk_events import usage_from_data

        usage = usage_from_data(data)
        if usage is not None:
            out["usage"] = usage
        out["tools"] = tools
        if texts:
            out["intermediate_responses"] = texts
        if unpaired:
            out["unpaired_tool_responses"] = unpaired
        if not plain:
            out["adk_intermediate_data"] = data
    else:
        pop_key(rest, "intermediate_data")  # null, as ADK writes a result's invocation without any
        out["adk_no_intermediate_data"] = True
    for key, value in rest.items():
        out[key] = value
    return out


def rubric_from_adk(rubric: Any, source: str, path: str) -> Any:
    """An ADK ``Rubric{rubric_id, rubric_content{text_property}, description, type}`` as a native CaseRubric dict.

    Native rubrics (``id``, ``content{text}``) pass through unchanged.
    """
    if not isinstance(rubric, dict) or not (has_key(rubric, "rubric_id") or has_key(rubric, "rubric_content")):
        return rubric
    rest = dict(rubric)
    rubric_id = pop_key(rest, "rubric_id")
    if not isinstance(rubric_id, str):
        raise _fail(f"expected a string (got {type_name(rubric_id)})", source, f"{path}.rubricId")
    content = pop_key(rest, "rubric_content")
    out: dict[str, Any] = {"id": rubric_id}
    if content is not None:
        if not isinstance(content, dict):
            raise _fail(f"expected an object (got {type_name(content)})", source, f"{path}.rubricContent")
        text = get_key(content, "text_property")
        if text is not None:
            out["content"] = {"text": text}
    out.update(rest)
    return out
