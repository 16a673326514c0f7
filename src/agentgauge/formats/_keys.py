"""Key lookup that accepts snake_case and camelCase spellings of the same field."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic.alias_generators import to_camel, to_snake

__all__ = ["MISSING", "get_key", "has_key", "pop_key", "snake_key"]

MISSING: Any = object()


@lru_cache(maxsize=512)
def _spellings(snake: str) -> tuple[str, str]:
    return snake, to_camel(snake)


def get_key(obj: dict[str, Any], snake: str, default: Any = None) -> Any:
    """``obj[snake]`` or ``obj[camelCase(snake)]``, else ``default``."""
    for key in _spellings(snake):
        if key in obj:
            return obj[key]
    return default


def has_key(obj: dict[str, Any], snake: str) -> bool:
    """True when either spelling of ``snake`` is a key of ``obj``."""
    return any(key in obj for key in _spellings(snake))


def pop_key(obj: dict[str, Any], snake: str, default: Any = None) -> Any:
    """Remove and return either spelling of ``snake`` (the snake_case one wins if both are present)."""
    value = default
    for key in reversed(_spellings(snake)):
        if key in obj:
            value = obj.pop(key)
    return value


def snake_key(key: str) -> str:
    """``key`` in snake_case (``appDetails`` → ``app_details``)."""
    return to_snake(key) if any(c.isupper() for c in key) else key
