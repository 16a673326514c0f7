"""JSON numbers read and written exactly as Python's ``json`` and Google ADK do, at orjson's speed where it agrees.

orjson keeps integers only within 64 bits: a larger one silently becomes a float (``12345678901234567890123``
reads as ``1.2345678901234568e22``, so two different ids compare equal), orjson refuses to write it, and a number
beyond the range of a double (``1e400``) is a syntax error to it. ADK reads eval sets with pydantic (and older files
with Python's ``json``): integers of any size up to 4300 digits stay exact, ``1e400`` is infinity, and the
literals ``NaN``, ``Infinity`` and ``-Infinity`` are accepted.

:func:`loads` gives those values. orjson parses first; the document is parsed again by the standard library only
when orjson may have read it differently: orjson refused it (the standard library's answer is then taken only if it
holds no lone surrogate, which ADK refuses as well), or it holds an integer token outside orjson's range, found by one
``bytes.translate`` pass looking for 19 digits in a row (a few percent of orjson's own time). :func:`dumps` writes
such integers exactly; infinities and NaN are written as ``null``, as orjson and ADK's own files do.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["INT_DIGITS_LIMIT", "dumps", "exact_value", "loads", "may_hold_wide_ints"]

INT_DIGITS_LIMIT = 4300
"""The most digits an integer may have: Python's ``int`` conversion limit, which pydantic (ADK) applies too."""

_BEFORE_NUMBER = frozenset(b" \t\r\n:,[")  # what may precede a number token in JSON
# Every digit -> "0"; what may precede a number token, and "-", -> ":"; the rest -> " ". A digit run that may be a
# wide integer then shows as ":" and 19 zeros (or 19 zeros at the very start): one ``find`` passes over the digit
# runs inside strings and names (ids, timestamps in text), which a ``"`` or a letter precedes.
_CLASSES = bytes(0x30 if 0x30 <= b <= 0x39 else 0x3A if b in _BEFORE_NUMBER or b == 0x2D else 0x20 for b in range(256))
_RUN = b"0" * 19  # -2**63 has 19 digits and 2**64 - 1 has 20: a shorter integer is always within orjson's range
_CANDIDATE = b":" + _RUN
_ZEROS = re.compile(rb"0+")
_AFTER_INTEGER = frozenset(b".eE")  # a token continuing with one of these is a float, which orjson reads right
_U64_MAX = b"18446744073709551615"
_I64_MIN = b"9223372036854775808"  # without its sign
_TOO_LONG = re.compile(rb"[0-9]{%d}" % (INT_DIGITS_LIMIT + 1))
_FAILED = object()


def _beyond(limit: bytes, digits: bytes) -> bool:
    return len(digits) > len(limit) or (len(digits) == len(limit) and digits > limit)


def may_hold_wide_ints(data: bytes) -> bool:
    """True when ``data`` (JSON text) may hold an integer outside orjson's range (-2**63 to 2**64 - 1).

    False positives (a long digit run inside a string that looks like a number token) only cost a second parse.
    """
    classes = data.translate(_CLASSES)
    at = 0 if classes.startswith(_RUN) else _next_run(classes, 0)
    while at >= 0:
        run_end = _ZEROS.match(classes, at)
        end = run_end.end() if run_end is not None else at + len(_RUN)
        negative = at > 0 and data[at - 1] == 0x2D  # "-"
        start = at - 1 if negative else at
        number_token = (start == 0 or data[start - 1] in _BEFORE_NUMBER) and (
            end == len(data) or data[end] not in _AFTER_INTEGER
        )
        if number_token and _beyond(_I64_MIN if negative else _U64_MAX, data[at:end]):
            return True
        at = _next_run(classes, end)
    return False


def _next_run(classes: bytes, after: int) -> int:
    # Where the next run of 19+ digits after a possible number start begins (-1: none).
    found = classes.find(_CANDIDATE, after)
    return found + 1 if found >= 0 else -1


# ``parse_constant=float``: a new float for every NaN, as pydantic makes (the json module would hand out one shared
# NaN object, and containers compare an object equal to itself: two NaN arguments would then match, unlike in ADK).


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > INT_DIGITS_LIMIT:
        raise _TooLong
    return int(text)


class _TooLong(ValueError):
    """An integer of more digits than :data:`INT_DIGITS_LIMIT`."""


def _has_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif kind is dict:
            stack.extend(item)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def _stdlib(data: bytes, *, after_error: bool) -> Any:
    """``data`` parsed by the standard library, or :data:`_FAILED`; :class:`orjson.JSONDecodeError` for an
    integer too long to convert."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _FAILED
    try:
        value = json.loads(text, parse_int=_parse_int, parse_constant=float)
    except _TooLong:
        found = _TOO_LONG.search(data)
        where = len(data[: found.start()].decode("utf-8")) if found is not None else 0
        raise orjson.JSONDecodeError(
            f"number out of range: an integer of more than {INT_DIGITS_LIMIT} digits", text, where
        ) from None
    except (ValueError, RecursionError):
        return _FAILED
    if after_error and _has_lone_surrogate(value):
        return _FAILED
    return value


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """Like :func:`orjson.loads`, with the numbers Python's ``json`` reads: exact integers of any size, ``1e400``
    as infinity, ``NaN`` / ``Infinity`` literals. Raises :class:`orjson.JSONDecodeError` (orjson's own message)
    for a document neither parser accepts, or for an integer of more than :data:`INT_DIGITS_LIMIT` digits."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        value = _stdlib(raw, after_error=True)
        if value is _FAILED:
            raise
        return value
    return exact_value(value, raw)


def exact_value(value: Any, data: bytes) -> Any:
    """``value`` as orjson parsed it from ``data``, or ``data`` parsed again when orjson may have read an integer as
    a float (see :func:`may_hold_wide_ints`)."""
    if not may_hold_wide_ints(data):
        return value
    exact = _stdlib(data, after_error=False)
    return value if exact is _FAILED else exact


def _int_text(number: int) -> bytes:
    try:
        return str(number).encode()
    except ValueError:  # more digits than str() converts: in pieces of 1000 digits
        sign, rest, pieces = ("-" if number < 0 else ""), abs(number), []
        while rest:
            rest, piece = divmod(rest, 10**1000)
            pieces.append(piece)
        head, *tail = reversed(pieces)
        return (sign + str(head) + "".join(f"{piece:01000d}" for piece in tail)).encode()


def _with_wide_ints(value: Any) -> Any:
    # A copy in which every integer orjson cannot write is a Fragment of its exact digits.
    kind = type(value)
    if kind is int or (isinstance(value, int) and not isinstance(value, bool)):
        return value if -(2**63) <= value < 2**64 else orjson.Fragment(_int_text(int(value)))
    if isinstance(value, dict):
        return {
            (str(k) if type(k) is int and not -(2**63) <= k < 2**64 else k): _with_wide_ints(v)
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_with_wide_ints(item) for item in value]
    return value


def dumps(value: Any, option: int = 0) -> bytes:
    """Like :func:`orjson.dumps`, but integers beyond 64 bits are written exactly instead of refused.

    Infinities and NaN are written as ``null`` (orjson's and pydantic's default, so ADK writes them the same way).
    """
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError as exc:
        if "64-bit" not in str(exc):
            raise
    return orjson.dumps(_with_wide_ints(value), option=option)
