"""Reading and writing JSON bytes with precise errors, and JSON-path rendering for messages."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import orjson
from pydantic import ValidationError
from pydantic.alias_generators import to_camel

from ..errors import InputError

__all__ = [
    "dump_json",
    "gc_paused",
    "join_path",
    "parse_json",
    "read_bytes",
    "type_name",
    "validation_error",
]


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes; a missing or unreadable file becomes an :class:`InputError` naming it."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError("file not found", file=os.fspath(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSON file", file=os.fspath(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", file=os.fspath(path)) from None


def parse_json(data: bytes | str, source: str) -> Any:
    """Parse JSON with orjson; syntax errors name the line and column."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    try:
        with gc_paused():  # the collector would rescan the growing tree many times over; nothing here is cyclic
            return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if not data.strip():
            raise InputError("empty file, expected a JSON document", file=source) from None
        raise InputError(
            f"invalid JSON: {exc.msg}", file=source, location=f"line {exc.lineno} column {exc.colno}"
        ) from None


def dump_json(value: Any) -> bytes:
    """Indented (2 spaces) UTF-8 JSON with a trailing newline."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


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
