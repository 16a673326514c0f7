"""Values inside trace exports, read the same way by every dialect: OTLP ``AnyValue``, attribute lists or maps
(flattened to dotted keys), trace/span ids (hex or base64) and integers written as strings.

Imports only :mod:`agentgauge.errors` (through :class:`~._where.Where`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ._where import Where

__all__ = ["any_value", "attributes", "hex_id", "is_number", "items", "to_int"]


def hex_id(value: Any, size: int, key: str, where: Where) -> str:
    """A trace/span id as lowercase hex. OTLP JSON uses hex; protobuf's JSON mapping writes base64: both read."""
    if not isinstance(value, str) or not value:
        raise where.error(f"missing or invalid {key!r} (expected a hex string)")
    lowered = value.lower()
    if all(c in "0123456789abcdef" for c in lowered):
        return lowered
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) == size:
        return raw.hex()
    raise where.error(f"invalid {key!r}: {value!r} is neither hex nor base64")


def to_int(value: Any) -> int:
    """An integer from an int, float or numeric string; ``0`` for anything else (booleans included)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return 0
    return 0


def attributes(raw: Any, where: Where) -> dict[str, Any]:
    """OTLP ``[{key, value: {stringValue | ...}}]``, a flat ``{key: value}`` dict, or a nested dict (flattened to
    dotted keys, as ClickHouse JSON columns store them)."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        out: dict[str, Any] = {}
        for item in raw:
            if isinstance(item, dict) and isinstance(item.get("key"), str):
                out[item["key"]] = any_value(item.get("value"))
        return out
    if isinstance(raw, dict):
        flat: dict[str, Any] = {}
        _flatten("", raw, flat)
        return flat
    raise where.error(f"attributes must be an array or an object, found {type(raw).__name__}")


def _flatten(prefix: str, value: dict[str, Any], out: dict[str, Any]) -> None:
    for key, item in value.items():
        name = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(item, dict) and item and not _is_any_value(item):
            _flatten(name, item, out)
        else:
            out[name] = any_value(item) if isinstance(item, dict) else item


_VALUE_KEYS = frozenset(
    {"stringValue", "intValue", "doubleValue", "boolValue", "arrayValue", "kvlistValue", "bytesValue"}
)


def _is_any_value(item: dict[str, Any]) -> bool:
    return len(item) == 1 and next(iter(item)) in _VALUE_KEYS


def any_value(value: Any) -> Any:
    """Decode an OTLP ``AnyValue`` (``{"stringValue": ...}``, ...) to a plain JSON value; other values pass."""
    if not isinstance(value, dict):
        return value
    if not value:
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return to_int(value["intValue"])
    if "doubleValue" in value:
        number = value["doubleValue"]
        return float(number) if isinstance(number, (int, float, str)) and is_number(number) else number
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        inner = value["arrayValue"]
        return [any_value(item) for item in items(inner.get("values") if isinstance(inner, dict) else inner)]
    if "kvlistValue" in value:
        inner = value["kvlistValue"]
        pairs = items(inner.get("values") if isinstance(inner, dict) else inner)
        return {str(p.get("key")): any_value(p.get("value")) for p in pairs if isinstance(p, dict)}
    if "bytesValue" in value:
        try:
            decoded = base64.b64decode(value["bytesValue"])
            return decoded.decode("utf-8")
        except (binascii.Error, ValueError, TypeError):
            return value["bytesValue"]
    return value


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
