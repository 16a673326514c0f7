"""Rewriting an eval set file after some of its cases changed, keeping everything else byte for byte.

A server or library write changes one case (or adds or deletes one); the file stays in the dialect it is written in
(see :mod:`._dialect`), and every case that did not change keeps its exact bytes: its key spelling, its layout and
whatever a tool that wrote it put there. Only the changed cases are rendered, in the file's dialect, in the key
spelling of the case they replace and with the file's indentation. The top-level keys stay as they are unless the
eval set's own fields changed. When the file's layout cannot be traced (an escaped key, cases that are not objects,
...) the document is rewritten from its parsed form instead: the same data, indented with two spaces.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import InputError
from ..model import EvalCase, EvalSet
from ._dialect import (
    Dialect,
    KeyStyle,
    case_in_dialect,
    case_style,
    document_dialect,
    eval_set_in_dialect,
    sniff_dialect,
)
from ._evalset_read import case_from_raw, eval_set_top
from ._jsonexact import dumps
from ._jsonio import dump_json, parse_json
from ._keys import get_key, has_key
from ._stream import _leading_value

__all__ = ["Layout", "rewrite_eval_set", "scan_layout"]

_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]')
_CASES_TOKENS = (b'"eval_cases"', b'"evalCases"')
_OPEN, _CLOSE, _COMMA, _QUOTE = b"[{", b"]}", ord(","), ord('"')
_SPACE = re.compile(rb"[ \t\r\n]*")
_FIRST_WINDOW = 1 << 12  # bytes first tried for a case; later windows follow the size of the previous case
_SNIFFED = 1 << 16


@dataclass(frozen=True)
class Layout:
    """Where the cases array and each case sit in an eval set file's bytes (end offsets are exclusive)."""

    cases_open: int
    cases_close: int
    spans: list[tuple[int, int]]


def scan_layout(data: bytes) -> Layout | None:
    """The layout of a JSON object document whose cases array holds only objects, else ``None``.

    The top level is walked token by token; each case is measured by orjson (in C), so a large file costs little
    more than parsing it."""
    depth = 0
    expect_key = False
    key: bytes | None = None
    found: Layout | None = None
    match = _TOKEN.search(data)
    while match is not None:
        pos = match.start()
        byte = data[pos]
        resume = match.end()
        if byte == _QUOTE:
            if depth == 1 and expect_key:
                key, expect_key = match.group(), False
        elif byte in _OPEN:
            if depth == 0 and byte != _OPEN[1]:
                return None  # not an object: a legacy array
            if depth == 1 and byte == _OPEN[0] and key in _CASES_TOKENS:
                if found is not None:
                    return None  # the cases key twice
                found = _cases_layout(data, pos)
                if found is None:
                    return None
                resume = found.cases_close + 1
            else:
                depth += 1
                expect_key = depth == 1
        elif byte in _CLOSE:
            depth -= 1
        elif byte == _COMMA and depth == 1:
            expect_key, key = True, None
        match = _TOKEN.search(data, resume)
    return found


def _cases_layout(data: bytes, cases_open: int) -> Layout | None:
    """The spans of the objects in the array opening at ``cases_open``; ``None`` when one is anything else."""
    spans: list[tuple[int, int]] = []
    pos = _skip_space(data, cases_open + 1)
    if data[pos : pos + 1] == b"]":
        return Layout(cases_open, pos, spans)
    window = _FIRST_WINDOW
    while data[pos : pos + 1] == b"{":
        end = _object_end(data, pos, window)
        if end is None:
            return None
        spans.append((pos, end))
        window = max(_FIRST_WINDOW, 2 * (end - pos))
        pos = _skip_space(data, end)
        if data[pos : pos + 1] == b"]":
            return Layout(cases_open, pos, spans)
        if data[pos : pos + 1] != b",":
            return None
        pos = _skip_space(data, pos + 1)
    return None


def _skip_space(data: bytes, pos: int) -> int:
    found = _SPACE.match(data, pos)
    return found.end() if found else pos


def _object_end(data: bytes, start: int, window: int) -> int | None:
    # orjson parses a window starting at the object; content after it makes orjson fail where the object ends.
    # Windows grow fourfold until the object fits, so every byte is read a few times at most.
    size = window
    while True:
        chunk = data[start : start + size]
        try:
            orjson.loads(chunk)
        except orjson.JSONDecodeError as exc:
            used = _leading_value(chunk, exc)[1]
            if used:
                return start + len(chunk[:used].rstrip())  # orjson stops after the spaces that follow the object
        else:
            return start + len(chunk.rstrip())
        if start + size >= len(data):
            return None
        size *= 4


def _indent_unit(data: bytes) -> bytes:
    # The indentation of the first indented line: what one level is in this file (two spaces when unknown).
    match = re.search(rb"\n([ \t]+)\S", data)
    return match.group(1) if match else b"  "


def _line_indent(data: bytes, pos: int) -> bytes:
    line = data[data.rfind(b"\n", 0, pos) + 1 : pos]
    return line[: len(line) - len(line.lstrip(b" \t"))]


@dataclass(frozen=True)
class _Style:
    """How the cases array of a file is laid out: around, between and inside its elements."""

    lead: bytes
    sep: bytes
    trail: bytes
    indent: bytes | None  # the indentation of a case's first line; None: compact JSON on one line
    unit: bytes
    newline: bytes  # b"\r\n" in a file with Windows line ends


def _style(data: bytes, layout: Layout) -> _Style:
    spans = layout.spans
    unit = _indent_unit(data)
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    if spans:
        lead = data[layout.cases_open + 1 : spans[0][0]]
        trail = data[spans[-1][1] : layout.cases_close]
        sep = data[spans[0][1] : spans[1][0]] if len(spans) > 1 else b"," + lead
    elif b"\n" in data:
        outer = _line_indent(data, layout.cases_open)
        lead, trail = newline + outer + unit, newline + outer
        sep = b"," + lead
    else:
        lead, trail, sep = b"", b"", b","
    indent = lead[lead.rfind(b"\n") + 1 :] if b"\n" in lead else None
    return _Style(lead, sep, trail, indent, unit, newline)


def _render(value: Any, style: _Style) -> bytes:
    if style.indent is None:
        return dumps(value)
    lines = dump_json(value).rstrip(b"\n").split(b"\n")
    out = []
    for number, line in enumerate(lines):
        body = line.lstrip(b" ")
        level = (len(line) - len(body)) // 2  # dump_json indents by two spaces; JSON strings hold no raw newline
        out.append((b"" if number == 0 else style.indent) + style.unit * level + body)
    return style.newline.join(out)


@dataclass(frozen=True)
class _Rendered:
    """A case rendered anew (not kept from the file), as JSON data."""

    value: Any


_Item = int | _Rendered  # a case kept from the file (its index there) or rendered anew


def _splice(data: bytes, layout: Layout, plan: list[_Item], style: _Style) -> bytes:
    spans = layout.spans
    pieces: list[bytes] = []
    previous = -2
    for item in plan:
        if isinstance(item, int):
            # Two cases that were neighbours keep whatever separated them; anything else gets the usual separator.
            if pieces:
                pieces.append(data[spans[previous][1] : spans[item][0]] if item == previous + 1 else style.sep)
            pieces.append(data[spans[item][0] : spans[item][1]])
            previous = item
        else:
            if pieces:
                pieces.append(style.sep)
            pieces.append(_render(item.value, style))
            previous = -2
    body = style.lead + b"".join(pieces) + style.trail if pieces else b""
    return data[: layout.cases_open + 1] + body + data[layout.cases_close :]


def _same_case(case: EvalCase, raw: Any, source: str) -> bool:
    try:
        before = case_from_raw(copy.deepcopy(raw), source, "")
    except ValueError:
        return False
    return before.model_dump(mode="json") == case.model_dump(mode="json")


def _same_top(top: dict[str, Any], eval_set: EvalSet, source: str) -> bool:
    try:
        before = eval_set_top(copy.deepcopy(top), source)
    except ValueError:
        return False
    # The id is the file's name for the managers; an id inside the file that differs from it is the user's to keep.
    before.eval_set_id = eval_set.eval_set_id
    after = eval_set.model_copy(update={"eval_cases": []})
    return before.model_dump(mode="json") == after.model_dump(mode="json")


def _plan(cases: list[Any], eval_set: EvalSet, keep: Callable[[EvalCase, Any], bool], dialect: Dialect) -> list[_Item]:
    """For each case of ``eval_set``: the index of its raw case to keep, or the case rendered in ``dialect``."""
    where: dict[str, int] = {}
    for index, raw in enumerate(cases):
        case_id = get_key(raw, "eval_id") if isinstance(raw, dict) else None
        if isinstance(case_id, str):
            where[case_id] = -1 if case_id in where else index  # an id twice: neither copy is known to be kept
    # A new case is spelled as the last case of the file is (or as the cases key, in a file without cases).
    default: KeyStyle = (case_style(cases[-1]) if cases else None) or ("snake" if dialect == "adk" else "camel")
    plan: list[_Item] = []
    for case in eval_set.eval_cases:
        index = where.get(case.eval_id, -1)
        if index >= 0 and keep(case, cases[index]):
            plan.append(index)
        else:
            style = (case_style(cases[index]) if index >= 0 else None) or default
            plan.append(_Rendered(case_in_dialect(case, dialect, style)))
    return plan


def rewrite_eval_set(
    old: bytes | None,
    eval_set: EvalSet,
    *,
    changed: Collection[str] | None = None,
    dialect: Dialect = "native",
    source: str = "<eval set>",
) -> bytes:
    """The bytes of an eval set file after writing ``eval_set`` over ``old`` (the file's current bytes, if any).

    ``changed`` names the cases added or replaced since ``old`` was read (``None``: compare every case with the
    file); the others keep their bytes. ``dialect`` is used for a new file only: an existing one keeps its own.
    """
    if old is None:
        return dump_json(eval_set_in_dialect(eval_set, dialect))
    try:
        doc = parse_json(old, source)
    except InputError:  # a broken file is replaced whole, in the dialect its first bytes suggest
        return dump_json(eval_set_in_dialect(eval_set, sniff_dialect(old[:_SNIFFED])))
    file_dialect = document_dialect(doc)
    if not isinstance(doc, dict) or not has_key(doc, "eval_cases"):
        return dump_json(eval_set_in_dialect(eval_set, file_dialect))  # a legacy array: written as ADK writes it
    cases_key = "eval_cases" if "eval_cases" in doc else "evalCases"
    cases = doc[cases_key] if isinstance(doc[cases_key], list) else []

    def keep(case: EvalCase, raw: Any) -> bool:
        return case.eval_id not in changed if changed is not None else _same_case(case, raw, source)

    plan = _plan(cases, eval_set, keep, file_dialect)
    top = {k: v for k, v in doc.items() if k not in ("eval_cases", "evalCases")}
    if changed is not None or _same_top(top, eval_set, source):
        layout = scan_layout(old)
        if layout is not None and len(layout.spans) == len(cases):
            return _splice(old, layout, plan, _style(old, layout))
        out = dict(doc)
    else:
        out = eval_set_in_dialect(eval_set.model_copy(update={"eval_cases": []}), file_dialect)
        cases_key = "eval_cases" if "eval_cases" in out else "evalCases"
    out[cases_key] = [cases[item] if isinstance(item, int) else item.value for item in plan]
    return dump_json(out)
