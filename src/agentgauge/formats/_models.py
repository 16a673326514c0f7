"""Any pydantic model from a JSON or YAML document, with the readers' error messages (file, JSON path, expected)."""

from __future__ import annotations

import os
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import InputError
from ._jsonio import open_input, parse_json, read_bytes, validation_error

__all__ = ["load_json_model", "model_from_document", "read_json", "read_limited"]

_Model = TypeVar("_Model", bound=BaseModel)


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON document of a file (see :func:`agentgauge.formats.parse_json` for the rules); a missing, unreadable,
    non-regular or malformed file raises :class:`InputError` naming it."""
    source = os.fspath(path)
    return parse_json(read_bytes(source), source)


def read_limited(path: str | os.PathLike[str], limit: int, *, what: str = "the file") -> bytes:
    """The bytes of a small input file, at most ``limit`` of them (reading stops there); a larger, missing,
    unreadable or non-regular file raises :class:`InputError` naming it."""
    source = os.fspath(path)
    with open_input(source) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise InputError(f"cannot read file: {exc.strerror or exc}", file=source) from None
    if len(data) > limit:
        raise InputError(f"{what} is over the {limit}-byte limit", file=source)
    return data


def model_from_document(document: Any, model: type[_Model], source: str, *, camel: bool = True) -> _Model:
    """``document`` validated as ``model``; the first problem raises :class:`InputError` naming ``source`` and the
    JSON path (field names in camelCase unless ``camel=False``: for models read with their Python names)."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise validation_error(exc, source, "", camel=camel) from None


def load_json_model(path: str | os.PathLike[str], model: type[_Model], *, camel: bool = True) -> _Model:
    """A JSON file read as ``model`` (errors as :func:`model_from_document`)."""
    source = os.fspath(path)
    if not source.strip():
        raise InputError("empty file name")
    return model_from_document(read_json(source), model, source, camel=camel)
