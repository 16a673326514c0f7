"""Short, unambiguous renderings of values for mismatch reasons.

Every reason that shows both sides labels them, actual first: ``actual 'Lyon' != expected 'Paris' at $.city``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["first_difference", "show"]

_LIMIT = 120


def show(value: Any, limit: int = _LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def first_difference(actual: str, expected: str, folded_a: str | None = None, folded_e: str | None = None) -> str:
    """``actual 'x' != expected 'y'`` for short strings; for long ones, where they first differ with a window around
    it."""
    a = actual if folded_a is None else folded_a
    e = expected if folded_e is None else folded_e
    if len(actual) + len(expected) <= _LIMIT:
        return f"actual {actual!r} != expected {expected!r}"
    i = next((k for k, (x, y) in enumerate(zip(a, e, strict=False)) if x != y), min(len(a), len(e)))
    start = max(0, i - 20)
    return (
        f"differs at character {i} (actual {len(actual)} characters, expected {len(expected)}): "
        f"actual {show(actual[start : i + 40], 80)} != expected {show(expected[start : i + 40], 80)}"
    )
