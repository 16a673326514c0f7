"""Text the judge prompts are built from: user prompts, answers, tool calls, retrieved knowledge, rubrics."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import ValidationError

from ...criteria._base import CriterionError
from ...criteria._llm import Rubric
from ...model import Invocation, Message
from .._base import EvaluatorError

__all__ = [
    "KNOWLEDGE_TOOLS",
    "NO_KNOWLEDGE",
    "final_text",
    "invocation_rubrics",
    "knowledge_lines",
    "render_context",
    "render_tool_calls",
    "user_text",
]

KNOWLEDGE_TOOLS = frozenset({"knowledge_search", "knowledge_search_with_agentic_filter"})
NO_KNOWLEDGE = "No knowledge search results were found."


def _content(message: Message | None) -> str:
    return message.content if message is not None else ""


def user_text(invocation: Invocation) -> str:
    """The user's message of an invocation."""
    return _content(invocation.user_content)


def final_text(invocation: Invocation, *, include_intermediate: bool = False) -> str:
    """The final answer; with ``include_intermediate``, intermediate texts come first, joined by newlines."""
    parts = [m.content for m in invocation.intermediate_responses if m.content] if include_intermediate else []
    if invocation.final_response is not None and invocation.final_response.content:
        parts.append(invocation.final_response.content)
    return "\n".join(parts)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_tool_calls(invocation: Invocation) -> str:
    """One line per tool call: ``name(arguments) -> result`` as JSON, or ``(no tool calls)``."""
    if not invocation.tools:
        return "(no tool calls)"
    return "\n".join(f"- {t.name}({_json(t.arguments)}) -> {_json(t.result)}" for t in invocation.tools)


def _decode_knowledge(result: Any, index: int) -> str:
    value = result
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise EvaluatorError(f"knowledge search result {index + 1} is not JSON: {value[:120]!r}") from None
    if not isinstance(value, dict) or not isinstance(value.get("documents", []), list):
        raise EvaluatorError(
            f"knowledge search result {index + 1} is not {{documents: [...], message?}}: {_json(value)[:120]}"
        )
    docs = []
    for doc in value.get("documents") or []:
        if not isinstance(doc, dict):
            raise EvaluatorError(f"knowledge search result {index + 1} has a document that is not an object")
        item: dict[str, Any] = {}
        if doc.get("id"):
            item["id"] = doc["id"]
        item["text"] = doc.get("text", "")
        if doc.get("metadata"):
            item["metadata"] = doc["metadata"]
        item["score"] = doc.get("score", 0)
        docs.append(item)
    out: dict[str, Any] = {"documents": docs}
    if value.get("message"):
        out["message"] = value["message"]
    return json.dumps(out, ensure_ascii=False, separators=(",", ":"))


def knowledge_lines(invocation: Invocation) -> str:
    """Results of ``knowledge_search`` / ``knowledge_search_with_agentic_filter`` calls, one compact JSON line
    each (``{documents: [{id?, text, metadata?, score}], message?}``), or a fixed "no results" sentence."""
    lines = [
        _decode_knowledge(tool.result, i) for i, tool in enumerate(invocation.tools) if tool.name in KNOWLEDGE_TOOLS
    ]
    return "\n".join(lines) if lines else NO_KNOWLEDGE


def render_context(invocations: Sequence[Invocation]) -> str:
    """Everything an answer may be grounded in, per invocation: user prompt, context messages, tool calls and
    tool outputs (JSON arrays)."""
    blocks = []
    for number, inv in enumerate(invocations, start=1):
        context = "\n".join(f"- [{m.role}] {m.content}" for m in inv.context_messages) or "(none)"
        calls = [{"id": t.id, "name": t.name, "args": t.arguments} for t in inv.tools]
        outputs = [{"id": t.id, "name": t.name, "output": t.result} for t in inv.tools]
        blocks.append(
            f"Turn {number}\nUser prompt: {user_text(inv)}\nContext messages:\n{context}\n"
            f"tool_calls: {_json(calls)}\ntool_outputs: {_json(outputs)}"
        )
    return "\n\n".join(blocks)


def _rubric_dicts(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list) else []


def invocation_rubrics(invocations: Iterable[Invocation | None]) -> list[Rubric]:
    """Rubrics attached to invocations (the ``rubrics`` key kept from ADK eval sets), in order, deduplicated."""
    out: list[Rubric] = []
    seen: set[str] = set()
    for inv in invocations:
        if inv is None:
            continue
        for raw in _rubric_dicts((inv.model_extra or {}).get("rubrics")):
            try:
                rubric = Rubric.model_validate(raw)
            except (CriterionError, ValidationError):
                continue
            key = f"{rubric.id}\x00{rubric.text}"
            if rubric.content is not None and key not in seen:
                seen.add(key)
                out.append(rubric)
    return out
