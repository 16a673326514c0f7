"""Values inside trace exports, read the same way by every dialect: OTLP ``AnyValue``, attribute lists or maps
(flattened to dotted keys), trace/span ids (hex or base64) and integers written as strings.

Imports only :mod:`agentgauge.errors` (through :class:`~._where.Where`).
"""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

from ._where import Where

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "UINT64_MAX",
    "any_value",
    "attributes",
    "bounded_int",
    "hex_id",
    "is_number",
    "items",
    "placed_value",
    "to_int",
]

UINT64_MAX = 2**64 - 1
"""The largest OTLP ``fixed64`` (span and event times in nanoseconds since the epoch)."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""The range of an OTLP ``intValue`` (``int64``)."""


_HEX_DIGITS = frozenset("0123456789abcdef")


def hex_id(value: Any, size: int, key: str, where: Where) -> str:
    """A trace/span id as lowercase hex. OTLP JSON uses hex; protobuf's JSON mapping writes base64: both read."""
    if not isinstance(value, str) or not value:
        raise where.error(f"missing or invalid {key!r} (expected a hex string)")
    lowered = value.lower()
    if _HEX_DIGITS.issuperset(lowered):
        return lowered
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise where.error(f"invalid {key!r}: {value!r} is neither hex nor base64")


class _OutOfRange(ValueError):
    """A number outside the range its field allows; ``path`` is where it sits below the value being decoded
    (filled in on the way out, so a value that is fine costs no path building)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.path: list[str | int] = []


def _int_or_none(value: Any) -> int | float | None:
    """``value`` as an integer when it is one (an int, a float, a numeric string), else ``None``; a float that is
    infinite or NaN is handed back as it is (no integer is in range of it)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:  # not an integer, or more digits than Python converts
            return None
    return None


def _in_range(value: Any, low: int, high: int) -> int:
    number = _int_or_none(value)
    if number is None:
        return 0
    if isinstance(number, float) or not low <= number <= high:  # a float here is infinite or NaN
        text = str(value)
        shown = text if len(text) <= 40 else f"{text[:40]}…"
        raise _OutOfRange(f"expected an integer from {low} to {high}, found {shown}")
    return number


def to_int(value: Any) -> int:
    """An integer from an int, float or numeric string; ``0`` for anything else (booleans, infinities and NaN
    included). Fields with a range read through :func:`bounded_int`."""
    number = _int_or_none(value)
    return number if isinstance(number, int) else 0


def bounded_int(value: Any, low: int, high: int, key: str, where: Where) -> int:
    """The integer of field ``key`` of the object at ``where`` (an int, a float or a numeric string; ``0`` when it
    is absent or not a number); an infinite number or one outside ``low``..``high`` is an
    :class:`~agentgauge.errors.InputError` naming the field's JSON path (a time of ``1e999`` cannot be read as
    one)."""
    try:
        return _in_range(value, low, high)
    except _OutOfRange as exc:
        raise where.key(key).error(str(exc)) from None


def attributes(raw: Any, where: Where) -> dict[str, Any]:
    """OTLP ``[{key, value: {stringValue | ...}}]``, a flat ``{key: value}`` dict, or a nested dict (flattened to
    dotted keys, as ClickHouse JSON columns store them)."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for index, item in enumerate(raw):
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                try:
                    out[item["key"]] = any_value(item.get("value"))
                except _OutOfRange as exc:
                    raise _placed(where.key("attributes").at(index).key("value"), exc) from None
        return out
    if isinstance(raw, dict):
        flat: dict[str, Any] = {}
        _flatten("", raw, flat, where.key("attributes"))
        return flat
    raise where.error(f"attributes must be an array or an object, found {type(raw).__name__}")


def _flatten(prefix: str, value: dict[str, Any], out: dict[str, Any], where: Where) -> None:
    for key, item in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item and not _is_any_value(item):
            _flatten(name, item, out, where)
        elif isinstance(item, dict):
            try:
                out[name] = any_value(item)
            except _OutOfRange as exc:
                raise _placed(where.key(name), exc) from None
        else:
            out[name] = item


_VALUE_KEYS = frozenset(
    {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"}
)


def _is_any_value(item: dict[str, Any]) -> bool:
    return len(item) == 1 and next(iter(item)) in _VALUE_KEYS


def placed_value(value: Any, where: Where) -> Any:
    """:func:`any_value` of the value found at ``where``, a number out of range named by its JSON path."""
    try:
        return any_value(value)
    except _OutOfRange as exc:
        raise _placed(where, exc) from None


def _placed(where: Where, exc: _OutOfRange) -> Exception:
    for step in exc.path:
        where = where.at(step) if isinstance(step, int) else where.key(step)
    return where.error(str(exc))


def any_value(value: Any) -> Any:
    """Decode an OTLP ``AnyValue`` (``{"stringValue": ...}``, ...) to a plain JSON value; other values pass. An
    ``intValue`` outside ``int64`` raises (a :class:`ValueError`; :func:`attributes` names its JSON path)."""
    if not isinstance(value, dict):
        return value
    if not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return _in_range(value["intValue"], INT64_MIN, INT64_MAX)
        except _OutOfRange as exc:
            exc.path.insert(0, "intValue")
            raise
    if "doubleValue" in value:
        number = value["doubleValue"]
        return float(number) if isinstance(number, (int, float, str)) and is_number(number) else number
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        inner = value["arrayValue"]
        return [_nested(item, index, "arrayValue", inner) for index, item in enumerate(_values_of(inner))]
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        pairs = _values_of(inner)
        return {
            str(p.get("key")): _nested(p.get("value"), index, "kvlistValue", inner, "value")
            for index, p in enumerate(pairs)
            if isinstance(p, dict)
        }
    if "bytesValue" in value:
        try:
            decoded = base64.b64decode(value["bytesValue"])
            return decoded.decode("utf-8")
        except (binascii.Error, ValueError, TypeError):
            return value["bytesValue"]
    return value


def _values_of(inner: Any) -> list[Any]:
    return items(inner.get("values") if isinstance(inner, dict) else inner)


def _nested(item: Any, index: int, kind: str, inner: Any, *below: str) -> Any:
    """One element of an array or key/value list value, decoded; a number out of range names its place."""
    try:
        return any_value(item)
    except _OutOfRange as exc:
        exc.path[:0] = [kind, *(["values"] if isinstance(inner, dict) else []), index, *below]
        raise


def items(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty list (malformed optional arrays are skipped)."""
    return value if isinstance(value, list) else []


def is_number(value: Any) -> bool:
    """True when ``float(value)`` succeeds."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True
