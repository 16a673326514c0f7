"""Reading and writing JSON bytes with precise errors, and JSON-path rendering for messages."""

from __future__ import annotations

import functools
import gc
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import IO, Any

import orjson
from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ..errors import InputError
from ._jsonexact import dumps, loads

__all__ = [
    "BOM",
    "MAX_DEPTH",
    "MAX_VALUE_DEPTH",
    "check_depth",
    "dump_json",
    "gc_paused",
    "join_path",
    "loads_within_depth",
    "nests_deeper",
    "open_input",
    "parse_json",
    "read_bytes",
    "type_name",
    "validation_error",
]

MAX_DEPTH = 200
"""How deeply arrays and objects may nest in any input file, counted from the top of the document.

Deeper values would fail later, far from the file (JSON writers and pydantic stop at about 255 levels), so every
reader refuses them up front with the file and the JSON path."""

MAX_VALUE_DEPTH = 100
"""How deeply arrays and objects may nest inside one value that ends up in a result (a tool's arguments or result,
a message): results wrap such values in about ten more levels and are read back within :data:`MAX_DEPTH`, and JSON
writers stop at a few hundred levels (orjson: 255), so a deeper value would only fail when it is saved or shown.
Agents' outputs have the same limit (``agentgauge.agents`` ``MAX_OUTPUT_DEPTH``)."""

BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark, written by some editors; skipped wherever JSON is read

_FILE_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"))


def open_input(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open an input file for reading; anything but a regular file is refused before a byte is read.

    The file is opened without blocking, so a FIFO with no writer cannot hang the caller; errors are
    :class:`InputError` naming the file.
    """
    source = os.fspath(path)
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise InputError("file not found", file=source) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSON file", file=source) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=source) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise InputError("is a directory, expected a JSON file", file=source)
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
            raise InputError(f"{kind}, expected a regular JSON file", file=source)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; a missing, unreadable or non-regular file becomes an :class:`InputError` naming it."""
    with open_input(path) as handle:
        try:
            return handle.read()
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror or exc}", file=os.fspath(path)) from None


def parse_json(data: bytes | str, source: str) -> Any:
    """Parse JSON (a leading UTF-8 BOM is skipped) with the numbers Python's ``json`` and Google ADK read: integers
    of any size exact, ``1e400`` as infinity (see :mod:`._jsonexact`); syntax errors name the line and column,
    values nested deeper than :data:`MAX_DEPTH` name their JSON path."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    view = data[len(BOM) :] if data.startswith(BOM) else data
    try:
        with gc_paused():  # the collector would rescan the growing tree many times over; nothing here is cyclic
            doc = loads(view)
    except orjson.JSONDecodeError as exc:
        if not bytes(view).strip():
            raise InputError("empty file, expected a JSON document", file=source) from None
        where = f"line {exc.lineno} column {exc.colno}"
        if "depth limit" in exc.msg or "recursion limit" in exc.msg:
            # orjson stops at 1024 levels, far beyond the limit that applies: name that one
            raise InputError(
                f"nested deeper than {MAX_DEPTH} levels of arrays and objects", file=source, location=where
            ) from None
        raise InputError(f"invalid JSON: {exc.msg}", file=source, location=where) from None
    if data.count(b"[") + data.count(b"{") > MAX_DEPTH:  # fewer containers cannot nest too deeply
        check_depth(doc, source)
    return doc


def check_depth(value: Any, source: str, prefix: str = "", *, level: int = 0) -> None:
    """Raise :class:`InputError` when ``value``, found ``level`` containers below the top of its document (at JSON
    path ``prefix``), nests deeper than :data:`MAX_DEPTH` in all; the error names the path of the first too-deep
    array or object."""
    if nests_deeper(value, MAX_DEPTH - level):
        where = _path_too_deep(value, MAX_DEPTH - level) if level < MAX_DEPTH else []
        location = join_path(prefix, where) or None
        if location is not None and len(location) > 200:  # a path 200 levels deep is mostly repetition
            location = f"{location[:120]}…{location[-60:]}"
        raise InputError(f"nested deeper than {MAX_DEPTH} levels of arrays and objects", file=source, location=location)


def nests_deeper(value: Any, limit: int) -> bool:
    """True when ``value`` has arrays/objects nested more than ``limit`` levels (``value`` itself is level 1)."""
    # Breadth first, one level at a time: no per-node bookkeeping, and it stops at the first level past the limit.
    level = [value] if type(value) in (dict, list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below = []
        for node in level:
            for child in node.values() if type(node) is dict else node:
                kind = type(child)
                if kind is dict or kind is list:
                    below.append(child)
        level = below
    return False


@functools.cache
def _orjson_depth_limit() -> int:
    """How many levels of arrays orjson parses before it refuses a document (1024 so far), found once by trying."""

    def parses(levels: int) -> bool:
        try:
            orjson.loads(b"[" * levels + b"]" * levels)
        except orjson.JSONDecodeError:
            return False
        return True

    low, high = 0, 4096
    if parses(high):
        return 0  # no limit found: :func:`loads_within_depth` checks the parsed value instead
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if parses(middle) else (low, middle - 1)
    return low


def loads_within_depth(data: bytes, limit: int) -> Any:
    """``data`` parsed by orjson (no exact integers: see :mod:`._jsonexact`), refused with
    :class:`orjson.JSONDecodeError` when it is not JSON or when it nests arrays/objects more than ``limit`` levels
    (``data`` itself is level 1)."""
    padding = _orjson_depth_limit() - limit
    if padding <= 0 or padding > 4096:
        value = orjson.loads(data)
        if nests_deeper(value, limit):
            raise orjson.JSONDecodeError(f"nested deeper than {limit} levels", "", 0)
        return value
    # orjson's own depth limit does the check at parsing speed: the value is parsed inside ``padding`` arrays, so
    # it is refused exactly when it nests more than ``limit`` levels (walking the parsed value costs about as much
    # as parsing it).
    wrapped = bytearray(b"[" * padding)
    wrapped += data
    wrapped += b"]" * padding
    value = orjson.loads(wrapped)
    for _ in range(padding):
        if len(value) != 1:  # ``data`` was not one value: nothing (blanks) or several (``1],[2``)
            raise orjson.JSONDecodeError("expected one JSON value", "", 0)
        value = value[0]
    return value


def _path_too_deep(value: Any, limit: int) -> list[int | str]:
    # The path to the first container at depth limit + 1 (only called once that is known to exist).
    keys: list[int | str] = []
    stack: list[Iterator[tuple[Any, Any]]] = [iter(value.items() if type(value) is dict else enumerate(value))]
    while stack:
        for key, child in stack[-1]:
            if type(child) is dict or type(child) is list:
                keys.append(key)
                if len(stack) >= limit:
                    return keys
                stack.append(iter(child.items() if type(child) is dict else enumerate(child)))
                break
        else:
            stack.pop()
            if keys:
                keys.pop()
    return keys


def dump_json(value: Any) -> bytes:
    """Indented (2 spaces) UTF-8 JSON with a trailing newline; integers beyond 64 bits are written exactly,
    infinities and NaN as ``null`` (as ADK writes them)."""
    return dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def join_path(prefix: str, loc: Sequence[int | str]) -> str:
    """``prefix`` extended by ``loc`` as a JSON path: ``evalCases[3].conversation[0].userContent``."""
    out = prefix
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out = f"{out}.{item}" if out else str(item)
    return out


def type_name(value: Any) -> str:
    """The JSON type name of a parsed value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def validation_error(exc: ValidationError, source: str, prefix: str, *, camel: bool = True) -> InputError:
    """The first pydantic error as one :class:`InputError` with file, JSON path and what was expected."""
    first = exc.errors(include_url=False)[0]
    loc: list[int | str] = []
    for item in first["loc"]:
        if isinstance(item, str) and camel:
            # Pydantic reports field names; readers accept both spellings, so show the canonical camelCase one.
            loc.append(to_camel(item) if "_" in item and not item.startswith("_") else item)
        elif isinstance(item, (int, str)):
            loc.append(item)
    message = _describe(first)
    return InputError(message, file=source, location=join_path(prefix, loc) or None)


def _describe(error: Any) -> str:
    kind = error.get("type", "")
    msg = str(error.get("msg", "invalid value"))
    if kind == "missing":
        return "missing required field"
    if kind.startswith("value_error"):
        msg = msg.removeprefix("Value error, ")
    elif "input" in error and kind != "extra_forbidden":
        return f"{_lower_first(msg)} (got {type_name(error['input'])})"
    return _lower_first(msg)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


@contextmanager
def gc_paused() -> Iterator[Callable[[], None]]:
    """Pause the cyclic garbage collector while building large acyclic trees (much faster, same result).

    Yields a function to call every few thousand objects: unless the collector was off anyway, it collects the
    young generations. Otherwise everything built while paused is examined in one collection right after, which
    for a million objects no longer in the CPU caches takes longer than these small collections together.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield _collect_young if enabled else _nothing
    finally:
        if enabled:
            gc.enable()


def _collect_young() -> None:
    gc.collect(1)


def _nothing() -> None:
    pass
