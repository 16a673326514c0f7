"""Tolerant extraction of JSON from judge answers (code fences, surrounding prose, several objects)."""

from __future__ import annotations

import json
import re
from typing import Any

from ._errors import JudgeParseError

__all__ = ["extract_json", "extract_json_object", "strip_code_fence"]

_LEADING_FENCE = re.compile(r"^```[A-Za-z0-9_+-]*[ \t]*\n?")
_TRAILING_FENCE = re.compile(r"\n?[ \t]*```$")
_FENCED_BLOCK = re.compile(r"```[A-Za-z0-9_+-]*[ \t]*\n(.*?)```", re.S)
_MAX_SCAN = 200_000
_DECODER = json.JSONDecoder()


def strip_code_fence(text: str) -> str:
    """``text`` trimmed, without one leading code fence (```` ``` ````, ```` ```json ````) and a trailing one."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = _LEADING_FENCE.sub("", stripped, count=1)
        stripped = _TRAILING_FENCE.sub("", stripped, count=1)
    return stripped.strip()


def _candidates(text: str) -> list[str]:
    whole = strip_code_fence(text)
    blocks = [m.group(1).strip() for m in _FENCED_BLOCK.finditer(text)]
    return [whole, *blocks]


def _scan(text: str, openers: str) -> Any:
    # raw_decode at every opener finds the first complete value even when prose surrounds it.
    for index, char in enumerate(text[:_MAX_SCAN]):
        if char in openers:
            try:
                value, _ = _DECODER.raw_decode(text, index)
            except ValueError:
                continue
            return value
    raise ValueError("no JSON value found")


def extract_json(text: str) -> Any:
    """The first JSON object or array in a judge answer.

    Tries, in order: the whole answer without a code fence, each fenced block, then the first position where a
    complete ``{...}`` or ``[...]`` value decodes. Raises :class:`JudgeParseError` (with the raw answer) when
    nothing decodes.
    """
    for candidate in _candidates(text):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict | list):
            return value
    try:
        return _scan(text, "{[")
    except ValueError:
        raise JudgeParseError("no JSON value found in the judge answer", raw=text) from None


def extract_json_object(text: str) -> dict[str, Any]:
    """The first JSON object (``{...}``) in a judge answer; see :func:`extract_json`.

    Raises :class:`JudgeParseError` when the answer holds no JSON object.
    """
    for candidate in _candidates(text):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    try:
        value = _scan(text, "{")
    except ValueError:
        raise JudgeParseError("no JSON object found in the judge answer", raw=text) from None
    assert isinstance(value, dict)
    return value
