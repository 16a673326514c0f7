"""Reading an eval set one case at a time, so a large file never exists as one parsed tree.

Parsing a whole document first builds its entire JSON tree -- several times the file's size -- before the first
model exists. Here the file is read in chunks, the top-level object key by key and the cases array element by
element, so besides the models built so far only one chunk and one case's raw tree are alive.

orjson has no incremental mode, but given bytes that start with a complete JSON value followed by more content, it
fails at the position where that value ends; the value alone is then parsed from exactly those bytes. Every value
is therefore checked by orjson, and the structure around the values (``{``, ``:``, ``,``, ``[``, ``]``, ``}``) by
this module, so only valid JSON is accepted.

This is only a fast path for well-formed eval set objects: for anything else -- another document kind, a syntax
error, a case that fails to convert, a duplicate key -- :func:`stream_eval_set` returns ``None`` and the caller
reads the document the ordinary way, which gives exactly the same result or error (line and column, JSON path).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import InputError
from ..model import EvalCase, EvalSet
from ._evalset_read import case_from_raw, eval_set_top
from ._jsonexact import exact_value
from ._jsonio import BOM, MAX_DEPTH, gc_paused, loads_within_depth

if TYPE_CHECKING:
    from ._unknown import EvalSetKeys

__all__ = ["stream_eval_set"]

_CHUNK = 1 << 20  # bytes read at a time
_FIRST_WINDOW = 1 << 14  # bytes first tried for a value; later windows follow the size of the previous case
_CASES_PER_COLLECTION = 500  # see gc_paused: about 30,000 objects
_SPACE = re.compile(rb"[ \t\r\n]*")
_CASES_KEYS = ("eval_cases", "evalCases")
_OPEN_OBJECT, _CLOSE_OBJECT, _OPEN_ARRAY, _CLOSE_ARRAY, _COLON, _COMMA = b"{}[]:,"


class _NotStreamable(Exception):
    """The document is not a well-formed eval set object; the caller reads it whole instead."""


class _Input:
    """Unread bytes of a document, refilled from ``read`` in chunks and consumed from the front."""

    def __init__(self, read: Callable[[int], bytes]) -> None:
        self._read = read
        self._buf = b""
        self._pos = 0
        self._dropped = 0  # bytes of the input already dropped from the front of the buffer
        self._eof = False
        self._window = _FIRST_WINDOW
        self._recent: list[int] = []

    def _more(self, wanted: int = 0) -> bool:
        # Read at least a chunk, or what a large value still needs in one go (repeated appends would be quadratic).
        if self._eof:
            return False
        chunk = self._read(max(_CHUNK, wanted))
        if not chunk:
            self._eof = True
            return False
        self._dropped += self._pos
        self._buf = self._buf[self._pos :] + chunk  # drops what was consumed
        self._pos = 0
        return True

    def offset(self) -> int:
        """How many bytes of the input have been consumed (the offset of the next unread byte)."""
        return self._dropped + self._pos

    def peek(self) -> int:
        """The next byte that is not whitespace (it is not consumed), or -1 at the end of the input."""
        while True:
            end = _SPACE.match(self._buf, self._pos)
            self._pos = end.end() if end else self._pos
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return -1

    def expect(self, *allowed: int) -> int:
        """Consume the next non-whitespace byte, which must be one of ``allowed``."""
        byte = self.peek()
        if byte not in allowed:
            raise _NotStreamable
        self._pos += 1
        return byte

    def skip_bom(self) -> None:
        """Skip a UTF-8 byte order mark at the start of the input."""
        while len(self._buf) - self._pos < len(BOM) and self._more():
            pass
        if self._buf.startswith(BOM, self._pos):
            self._pos += len(BOM)

    def value(self, max_depth: int) -> Any:
        """Parse and consume the JSON value that starts at the next non-whitespace byte; a value that nests arrays
        and objects more than ``max_depth`` levels deep is not streamable (the whole-document reader names it)."""
        self.peek()
        size = self._window
        while True:
            while len(self._buf) - self._pos < size and self._more(size - len(self._buf) + self._pos):
                pass
            start, stop = self._pos, _char_boundary(self._buf, self._pos + size)
            window = memoryview(self._buf)[start:stop]
            at_end = self._eof and stop >= len(self._buf)
            try:
                value, used = orjson.loads(window), len(window)
            except orjson.JSONDecodeError as exc:
                # Content after a complete value: orjson stopped where the value (and the spaces after it) ends.
                value, used = _UNPARSED, _error_offset(exc, len(window))
            else:
                used = used if at_end else 0  # a cut-off window can still parse (``12`` of ``123``): look further
            if used:
                value = self._checked(value, start, used, max_depth)
                if value is not _INCOMPLETE:
                    self._pos += used
                    self._recent = [*self._recent[-(_RECENT_VALUES - 1) :], used]
                    self._window = max(_FIRST_WINDOW, _next_window(self._recent))
                    return value
            if at_end:
                raise _NotStreamable  # a syntax error: the whole-document reader reports it
            size *= 2

    def _checked(self, value: Any, start: int, used: int, max_depth: int) -> Any:
        """The value in the ``used`` bytes at ``start`` (``value``, unless :data:`_UNPARSED`, was parsed from them),
        parsed with its depth limited to ``max_depth`` when it could nest that deep, and with exact integers;
        :data:`_INCOMPLETE` when those bytes are not one whole value."""
        data = self._buf[start : start + used]
        # Only a value with more containers than the limit can be too deep; counting brackets costs about what
        # parsing within the limit adds, so a large value is always parsed that way.
        if used > _ALWAYS_LIMITED or data.count(b"[") + data.count(b"{") > max_depth:
            try:
                value = loads_within_depth(data, max_depth)
            except orjson.JSONDecodeError:
                if _parses(data):
                    raise _NotStreamable from None  # nested too deep: the whole-document reader names where
                return _INCOMPLETE
        elif value is _UNPARSED:
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError:
                return _INCOMPLETE
        # orjson reads an integer beyond 64 bits as a float: such a value is parsed again, exactly.
        return exact_value(value, data)


_INCOMPLETE = object()
_UNPARSED = object()
_RECENT_VALUES = 8  # how many of the last values' sizes decide the next window
_ALWAYS_LIMITED = 1 << 16  # bytes from which a value is parsed within the depth limit without counting brackets


def _next_window(recent: list[int]) -> int:
    # A quarter more than the largest of the last values: a window that ends far past the value costs orjson
    # time too (it reads and decodes all of it), one too short a parse of the window and another twice as long.
    return max(recent) * 5 // 4 + 64


def _char_boundary(buf: bytes, end: int) -> int:
    # ``end`` moved back to the start of a UTF-8 character, so a window never ends inside one (orjson would refuse
    # the whole window as invalid UTF-8, and it would be parsed again twice as large).
    low = max(end - 3, 0)
    while end > low and end < len(buf) and buf[end] & 0xC0 == 0x80:
        end -= 1
    return end


def _error_offset(exc: orjson.JSONDecodeError, window_size: int) -> int:
    # The byte offset of orjson's error position (it reports characters of the document it was given), 0 when it
    # stopped at the very start or at the end of what it was given (a value cut off by the end of the window).
    text, stop = exc.doc, exc.pos
    if not isinstance(text, str) or stop <= 0 or stop >= len(text):
        return 0
    if text.isascii():
        return stop
    # Encode the shorter side: the bytes before the stop, or the window less the bytes after it.
    if stop <= len(text) // 2:
        return len(text[:stop].encode("utf-8", "surrogatepass"))
    return window_size - len(text[stop:].encode("utf-8", "surrogatepass"))


def _parses(data: bytes) -> bool:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _leading_value(window: bytes, exc: orjson.JSONDecodeError) -> tuple[Any, int]:
    """The value at the start of ``window`` and its length in bytes, when ``exc`` (orjson's error for the whole
    window) is content after a complete value; else ``(None, 0)``."""
    stop = _error_offset(exc, len(window))
    if stop <= 0:
        return None, 0
    try:
        return orjson.loads(memoryview(window)[:stop]), stop
    except orjson.JSONDecodeError:
        return None, 0  # not a complete value yet: the window was too short


def _object_members(source_input: _Input) -> Iterator[str]:
    """The keys of the JSON object that is the whole input (after an optional BOM), one at a time; the caller
    reads each member's value from ``source_input`` before asking for the next key. A key that is not a string or
    comes twice, or anything after the object, raises ``_NotStreamable``."""
    seen: set[str] = set()
    source_input.skip_bom()
    source_input.expect(_OPEN_OBJECT)
    if source_input.peek() != _CLOSE_OBJECT:
        while True:
            key = source_input.value(MAX_DEPTH)
            source_input.expect(_COLON)
            if type(key) is not str or key in seen:
                raise _NotStreamable  # duplicate keys: leave the choice to the whole-document reader
            seen.add(key)
            yield key
            if source_input.expect(_COMMA, _CLOSE_OBJECT) == _CLOSE_OBJECT:
                break
    else:
        source_input.expect(_CLOSE_OBJECT)
    if source_input.peek() != -1:
        raise _NotStreamable


def _file_members(path: str | os.PathLike[str]) -> Iterator[tuple[str, _Input]]:
    """:func:`_object_members` of the file at ``path``, each key with the reader its value is read from."""
    with open(path, "rb") as handle:
        source_input = _Input(handle.read)
        for key in _object_members(source_input):
            yield key, source_input


def _cases(source_input: _Input, source: str, keys: EvalSetKeys | None) -> list[EvalCase]:
    out: list[EvalCase] = []
    source_input.expect(_OPEN_ARRAY)
    if source_input.peek() == _CLOSE_ARRAY:
        source_input.expect(_CLOSE_ARRAY)
        return out
    with gc_paused() as collect_young:
        while True:
            raw = source_input.value(MAX_DEPTH - 2)  # a case is two levels down: {"evalCases": [{...}]}
            if keys is not None:
                keys.case(raw, len(out))
            out.append(case_from_raw(raw, source, f"evalCases[{len(out)}]"))
            if len(out) % _CASES_PER_COLLECTION == 0:
                collect_young()
            if source_input.expect(_COMMA, _CLOSE_ARRAY) == _CLOSE_ARRAY:
                return out


def _document(source_input: _Input, source: str, keys: EvalSetKeys | None) -> EvalSet:
    top: dict[str, Any] = {}
    cases: list[EvalCase] | None = None
    for key in _object_members(source_input):
        if key in _CASES_KEYS:
            if cases is not None:
                raise _NotStreamable
            if keys is not None:
                keys.cases_under(key)
            cases = _cases(source_input, source, keys)
        else:
            top[key] = source_input.value(MAX_DEPTH - 1)
    if cases is None:
        raise _NotStreamable
    if keys is not None:
        keys.top(top)
    eval_set = eval_set_top(top, source)
    eval_set.eval_cases = cases
    return eval_set


def stream_eval_set(read: Callable[[int], bytes], source: str, keys: EvalSetKeys | None = None) -> EvalSet | None:
    """The eval set object read from ``read`` (a file's ``read``), or ``None`` when it must be read whole;
    ``keys`` gathers its unknown keys (and is cleared when ``None`` is returned)."""
    try:
        return _document(_Input(read), source, keys)
    except (_NotStreamable, InputError):
        if keys is not None:
            keys.clear()
        return None
