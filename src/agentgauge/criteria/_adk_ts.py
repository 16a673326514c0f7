"""ADK-TS's (``@iqai/adk`` 0.5.x) scoring rules, reproduced exactly: its ``tool_trajectory_avg_score`` and the
``response_match_score`` evaluator it registers (``ResponseEvaluator``, not its unused ``RougeEvaluator``).

- Tool calls match position by position only (EXACT): equal names, equal argument key sets, and every top-level
  argument equal under ``JSON.stringify`` -- so nested key order matters (``{"a":1,"b":2}`` is not
  ``{"b":2,"a":1}``), ``true`` is not ``1``, ``1`` is ``1.0``, and missing or ``null`` arguments are ``{}``.
- The response match lowercases the text, keeps runs of ASCII word characters (``[a-z0-9_]``) as words, and scores
  the F-measure of the *sets* of words: no stemming, no Unicode normalisation, repeated words count once, and
  non-ASCII words do not exist (``"Привет мир"`` against itself scores 0).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ._base import MATCH, MatchResult
from ._rouge import RougeScore

if TYPE_CHECKING:
    from ..model import Tool

__all__ = ["adk_ts_args_equal", "adk_ts_rouge1", "adk_ts_words", "js_json_stringify", "match_adk_ts_tools"]

_INDEX_KEY = re.compile(r"0|[1-9][0-9]*")
_MAX_INDEX = 2**32 - 2  # the largest array index a JavaScript object orders numerically
_WORD = re.compile(r"[a-z0-9_]+")


def _js_number(value: float) -> str:
    """``Number.prototype.toString()`` of a finite double: shortest round-trip digits, JavaScript's layout."""
    if value == 0:
        return "0"  # also -0
    if value < 0:
        return "-" + _js_number(-value)
    _, digit_tuple, exponent = Decimal(repr(value)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    assert isinstance(exponent, int)
    k, n = len(digits), len(digits) + exponent  # value = 0.digits × 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    sign = "+" if n - 1 >= 0 else "-"
    mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{mantissa}e{sign}{abs(n - 1)}"


def _js_float(value: int | float) -> float | None:
    """The double ``JSON.parse`` makes of a number (``None`` for one it cannot hold: ``JSON.stringify`` writes
    ``null`` for ``Infinity`` and ``NaN``)."""
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _ordered_keys(keys: Sequence[str]) -> list[str]:
    """The order a JavaScript object enumerates its keys: array indices ascending, then the rest as inserted."""
    indices = [k for k in keys if _INDEX_KEY.fullmatch(k) and int(k) <= _MAX_INDEX]
    index_set = set(indices)
    return sorted(indices, key=int) + [k for k in keys if k not in index_set]


def js_json_stringify(value: Any) -> str:
    """``JSON.stringify`` of a JSON value as ``JSON.parse`` would have built it in JavaScript."""
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        number = _js_float(value)
        return "null" if number is None else _js_number(number)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(js_json_stringify(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = _ordered_keys([str(k) for k in value])
        items = {str(k): v for k, v in value.items()}
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{js_json_stringify(items[k])}" for k in keys) + "}"
    return json.dumps(str(value), ensure_ascii=False)  # not JSON data: compared as its text


def _js_args(args: Any) -> dict[str, Any]:
    """``call.args || {}`` seen through ``Object.keys``: falsy values are ``{}``, an array is keyed by index, a
    string by UTF-16 code unit, any other scalar has no keys."""
    if isinstance(args, dict):
        return {str(k): v for k, v in args.items()}
    if isinstance(args, list):
        return {str(i): v for i, v in enumerate(args)}
    if isinstance(args, str):
        units = args.encode("utf-16-le", "surrogatepass")
        return {str(i): units[2 * i : 2 * i + 2].decode("utf-16-le", "surrogatepass") for i in range(len(units) // 2)}
    return {}


def adk_ts_args_equal(actual: Any, expected: Any) -> tuple[bool, str]:
    """Whether two calls' arguments are equal for ADK-TS, and why not: the same key set, then every value's
    ``JSON.stringify`` equal."""
    a, e = _js_args(actual), _js_args(expected)
    if sorted(a) != sorted(e):
        only_a, only_e = sorted(set(a) - set(e)), sorted(set(e) - set(a))
        return False, f"argument keys differ: actual has {only_a or 'no others'}, expected has {only_e or 'no others'}"
    for key in sorted(a):
        left, right = js_json_stringify(a[key]), js_json_stringify(e[key])
        if left != right:
            return False, f"argument {key!r}: JSON.stringify actual {left} != expected {right}"
    return True, ""


def match_adk_ts_tools(actual: Sequence[Tool], expected: Sequence[Tool]) -> MatchResult:
    """ADK-TS's trajectory rule: the same number of calls, matching position by position."""
    if len(actual) != len(expected):
        names_a = ", ".join(t.name for t in actual)
        names_e = ", ".join(t.name for t in expected)
        return MatchResult(
            False,
            f"tool count mismatch: actual {len(actual)} != expected {len(expected)}; "
            f"actual [{names_a}], expected [{names_e}]",
        )
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        if a.name != e.name:
            return MatchResult(False, f"call {i}: name: actual {a.name!r} != expected {e.name!r}")
        ok, why = adk_ts_args_equal(a.arguments, e.arguments)
        if not ok:
            return MatchResult(False, f"call {i} ({e.name}): {why}")
    return MATCH


def adk_ts_words(text: str) -> set[str]:
    """The words ADK-TS's response match sees: lowercased, runs of ASCII letters, digits and ``_``, as a set."""
    # JavaScript's toLowerCase and str.lower map the same characters to ASCII (K for KELVIN SIGN, i for the dotted
    # capital I); everything that is not an ASCII word character then separates words.
    return set(_WORD.findall(text.lower()))


def adk_ts_rouge1(actual: str, expected: str) -> RougeScore:
    """ADK-TS's ROUGE-1 of the actual text (prediction) against the expected one (reference), on sets of words."""
    response, reference = adk_ts_words(actual), adk_ts_words(expected)
    common = len(response & reference)
    precision = common / len(response) if response else 0.0
    recall = common / len(reference) if reference else 0.0
    # The same operations in the same order as ADK-TS, so the doubles are identical.
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return RougeScore(precision, recall, fmeasure)
