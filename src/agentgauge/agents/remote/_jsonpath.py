"""The small JSON path dialect of the plain-HTTP agent config: ``$``, ``.name``, ``["name"]`` / ``['name']`` and
``[index]`` (negative counts from the end), e.g. ``$.choices[0].message.content`` or ``$["tool calls"][-1]``."""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MISSING", "JsonPath", "format_json_path", "parse_json_path", "select"]

JsonPath = tuple[str | int, ...]

MISSING: Any = object()
"""What :func:`select` returns when the path leads nowhere (distinct from a JSON ``null``)."""

_NAME = re.compile(r"\.([A-Za-z_$][\w$-]*)")
_INDEX = re.compile(r"\[(-?\d+)\]")
_QUOTED = re.compile(r"""\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]""")


def parse_json_path(text: str) -> JsonPath:
    """The steps of ``text`` (keys and indexes); :class:`ValueError` naming the first character not understood."""
    if not text.startswith("$"):
        raise ValueError(f"a JSON path starts with '$', got {text[:40]!r}")
    steps: list[str | int] = []
    position = 1
    while position < len(text):
        if match := _NAME.match(text, position):
            steps.append(match[1])
        elif match := _INDEX.match(text, position):
            steps.append(int(match[1]))
        elif match := _QUOTED.match(text, position):
            double, single = match[1], match[2]
            steps.append(json.loads(f'"{double}"') if double is not None else single.replace("\\'", "'"))
        else:
            raise ValueError(f"cannot read the JSON path {text[:80]!r} at character {position + 1}")
        position = match.end()
    return tuple(steps)


def format_json_path(steps: JsonPath) -> str:
    """``steps`` written as a JSON path :func:`parse_json_path` reads back."""
    out = ["$"]
    for step in steps:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", step):
            out.append(f".{step}")
        else:
            out.append(f"[{json.dumps(step)}]")
    return "".join(out)


def select(data: Any, steps: JsonPath) -> Any:
    """The value at ``steps`` in ``data``, or :data:`MISSING`."""
    value = data
    for step in steps:
        if isinstance(step, int):
            if not isinstance(value, list) or not -len(value) <= step < len(value):
                return MISSING
            value = value[step]
        elif isinstance(value, dict) and step in value:
            value = value[step]
        else:
            return MISSING
    return value
