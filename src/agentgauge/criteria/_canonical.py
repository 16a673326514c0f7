"""The canonical form of a JSON value (tool arguments and results): how rules key recorded calls, how runs are
aligned step by step, and the default comparison the trajectory criterion makes of arguments and results."""

from __future__ import annotations

from typing import Any

import orjson

from ._json import JSONCriterion

__all__ = ["canonical_json", "canonical_value", "json_difference"]

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS
_DEFAULT = JSONCriterion()


def canonical_json(value: Any) -> str:
    """``value`` as compact JSON text with object keys sorted (values JSON cannot hold are written as text)."""
    try:
        return orjson.dumps(value, option=_OPTIONS, default=str).decode()
    except (TypeError, orjson.JSONEncodeError):  # too deep, or an int beyond 64 bits
        return repr(value)


def canonical_value(value: Any) -> Any:
    """``value`` with object keys sorted, as the recorded form of a call's arguments (unchanged if not JSON)."""
    try:
        return orjson.loads(orjson.dumps(value, option=_OPTIONS))
    except (TypeError, orjson.JSONEncodeError):
        return value


def json_difference(actual: Any, expected: Any) -> str | None:
    """Why two JSON values differ as the trajectory criterion compares arguments and results by default (structure
    and values, key order ignored, numbers within 1e-6), e.g. ``actual 'Lyon' != expected 'Paris' at $.city``;
    ``None`` when they are the same."""
    result = _DEFAULT.match(actual, expected)
    return None if result.ok else result.reason
