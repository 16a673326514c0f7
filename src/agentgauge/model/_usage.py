"""Token usage from Google ADK / genai ``usage_metadata`` (per model call), summed the way ADK's eval does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._evalset import TokenUsage

__all__ = ["add_adk_usage", "is_model_call_event", "usage_from_adk_events"]


def _count(meta: Mapping[str, Any], snake: str) -> int | None:
    parts = snake.split("_")
    camel = parts[0] + "".join(p.title() for p in parts[1:])
    value = meta.get(snake, meta.get(camel))
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _add(total: int | None, count: int | None) -> int | None:
    if count is None:
        return total
    return (total or 0) + count


def _either(a: int | None, b: int | None) -> int | None:
    return None if a is None and b is None else (a or 0) + (b or 0)


def add_adk_usage(usage: TokenUsage, meta: Mapping[str, Any]) -> None:
    """Fold one call's genai ``GenerateContentResponseUsageMetadata`` (as a dict) into ``usage`` (in place).

    As ADK's ``TokenUsage.from_usage_metadata``: input = prompt + tool-use prompt tokens, output = candidates +
    thoughts tokens; a count nobody reported stays ``None``; the total is derived from input and output.
    """
    prompt, tool = _count(meta, "prompt_token_count"), _count(meta, "tool_use_prompt_token_count")
    candidates, thoughts = _count(meta, "candidates_token_count"), _count(meta, "thoughts_token_count")
    usage.input_tokens = _add(usage.input_tokens, _either(prompt, tool))
    usage.output_tokens = _add(usage.output_tokens, _either(candidates, thoughts))
    usage.prompt_tokens = _add(usage.prompt_tokens, prompt)
    usage.cached_tokens = _add(usage.cached_tokens, _count(meta, "cached_content_token_count"))
    usage.tool_use_tokens = _add(usage.tool_use_tokens, tool)
    usage.candidates_tokens = _add(usage.candidates_tokens, candidates)
    usage.reasoning_tokens = _add(usage.reasoning_tokens, thoughts)
    if usage.input_tokens is not None or usage.output_tokens is not None:
        usage.total_tokens = (usage.input_tokens or 0) + (usage.output_tokens or 0)


def _get(event: Any, snake: str, camel: str) -> Any:
    if isinstance(event, Mapping):
        return event.get(snake, event.get(camel))
    return getattr(event, snake, None)


def is_model_call_event(event: Any) -> bool:
    """ADK's rule: an event is a model (inference) call when it has ``usage_metadata`` or ``model_version``."""
    return _get(event, "usage_metadata", "usageMetadata") is not None or (
        _get(event, "model_version", "modelVersion") is not None
    )


def usage_from_adk_events(events: Iterable[Any]) -> TokenUsage:
    """The usage of one invocation from its ADK events (dicts or ADK ``Event`` objects).

    ``model_calls`` counts the model-call events (possibly 0); ``model`` is the last ``model_version`` seen.
    """
    usage = TokenUsage(model_calls=0)
    for event in events:
        if not is_model_call_event(event):
            continue
        usage.model_calls = (usage.model_calls or 0) + 1
        version = _get(event, "model_version", "modelVersion")
        if isinstance(version, str):
            usage.model = version
        meta = _get(event, "usage_metadata", "usageMetadata")
        if meta is None:
            continue
        if not isinstance(meta, Mapping):
            meta = meta.model_dump(exclude_none=True) if hasattr(meta, "model_dump") else {}
        add_adk_usage(usage, meta)
    return usage
