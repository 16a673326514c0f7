"""Structural JSON comparison with JSON paths: exact, ``ignoreTree`` and ``onlyTree`` modes.

Every function returns ``None`` when the values match, else the reason for the first difference found, both sides
labelled: ``actual 'Lyon' != expected 'Paris' at $.city``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ._show import show

__all__ = ["diff_exact", "diff_ignore", "diff_only", "is_number", "join_index", "join_key"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def join_key(path: str, key: str) -> str:
    """``$.a`` for identifier keys, ``$['a b']`` otherwise."""
    return f"{path}.{key}" if _IDENT.match(key) else f"{path}[{key!r}]"


def join_index(path: str, index: int) -> str:
    """``$.items[2]``."""
    return f"{path}[{index}]"


def is_number(value: Any) -> bool:
    """int or float, but never bool (``True`` is an ``int`` in Python, not a number in JSON)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return type(value).__name__


def _numbers_differ(a: float, e: float, tol: float) -> bool:
    if a == e and tol >= 0:  # equal infinities too (inf - inf is NaN); a negative tolerance fails even equal numbers
        return False
    try:
        return not abs(a - e) <= tol
    except OverflowError:  # huge ints against floats: fall back to exact equality
        return a != e


def _value_mismatch(path: str, a: Any, e: Any) -> str:
    if _kind(a) != _kind(e):
        return f"actual {show(a)} ({_kind(a)}) != expected {show(e)} ({_kind(e)}) at {path}"
    return f"actual {show(a)} != expected {show(e)} at {path}"


def diff_exact(a: Any, e: Any, tol: float, path: str = "$") -> str | None:
    """Objects by key set (order-independent), arrays element-wise in order, numbers within ``tol``."""
    if a is None or e is None:
        return None if a is None and e is None else _value_mismatch(path, a, e)
    if isinstance(a, Mapping):
        if not isinstance(e, Mapping):
            return _value_mismatch(path, a, e)
        for k in a:
            if k not in e:
                return f"key {k!r} in actual but not in expected at {path}"
        for k in e:
            if k not in a:
                return f"key {k!r} in expected but not in actual at {path}"
        for k in e:
            reason = diff_exact(a[k], e[k], tol, join_key(path, str(k)))
            if reason is not None:
                return reason
        return None
    if isinstance(e, Mapping):
        return _value_mismatch(path, a, e)
    if isinstance(a, (list, tuple)):
        if not isinstance(e, (list, tuple)):
            return _value_mismatch(path, a, e)
        if len(a) != len(e):
            return f"actual array length {len(a)} != expected {len(e)} at {path}"
        for i, (x, y) in enumerate(zip(a, e, strict=True)):
            reason = diff_exact(x, y, tol, join_index(path, i))
            if reason is not None:
                return reason
        return None
    if isinstance(e, (list, tuple)):
        return _value_mismatch(path, a, e)
    if is_number(a) and is_number(e):
        if _numbers_differ(a, e, tol):
            extra = "" if tol == 0 else f" (tolerance {tol:g})"
            if isinstance(a, float) and isinstance(e, float) and (math.isnan(a) or math.isnan(e)):
                extra = " (NaN never matches)"
            return f"actual {a!r} != expected {e!r} at {path}{extra}"
        return None
    if type(a) is type(e) and a == e:
        return None
    return _value_mismatch(path, a, e)


def diff_ignore(a: Any, e: Any, tree: Mapping[str, Any] | None, tol: float, path: str = "$") -> str | None:
    """Like :func:`diff_exact`, but object keys whose ``tree`` entry is ``true`` are skipped (present or not);
    an object entry descends into that key. Arrays drop the tree and compare exactly."""
    if not tree:
        return diff_exact(a, e, tol, path)
    if a is None or e is None:
        return None if a is None and e is None else _value_mismatch(path, a, e)
    if not isinstance(a, Mapping) or not isinstance(e, Mapping):
        return diff_exact(a, e, tol, path)
    keys = list(a) + [k for k in e if k not in a]
    for k in keys:
        sel = tree.get(k)
        if sel is True:
            continue
        if k not in e:
            return f"key {k!r} in actual but not in expected at {path}"
        if k not in a:
            return f"key {k!r} in expected but not in actual at {path}"
        sub = sel if isinstance(sel, Mapping) else None
        reason = diff_ignore(a[k], e[k], sub, tol, join_key(path, str(k)))
        if reason is not None:
            return reason
    return None


def diff_only(a: Any, e: Any, tree: Mapping[str, Any], tol: float, path: str = "$") -> str | None:
    """Compare only the keys named in ``tree``: ``true`` compares that key exactly, an object descends,
    ``false`` skips it; every other key is ignored. Non-object values compare exactly."""
    if a is None or e is None:
        return None if a is None and e is None else _value_mismatch(path, a, e)
    if not isinstance(a, Mapping) and not isinstance(e, Mapping):
        return diff_exact(a, e, tol, path)
    if not isinstance(a, Mapping) or not isinstance(e, Mapping):
        return _value_mismatch(path, a, e)
    for k, sel in tree.items():
        if sel is False:
            continue
        if k not in a:
            return f"key {k!r} in onlyTree but not in actual at {path}"
        if k not in e:
            return f"key {k!r} in onlyTree but not in expected at {path}"
        sub_path = join_key(path, str(k))
        reason = diff_exact(a[k], e[k], tol, sub_path) if sel is True else diff_only(a[k], e[k], sel, tol, sub_path)
        if reason is not None:
            return reason
    return None
