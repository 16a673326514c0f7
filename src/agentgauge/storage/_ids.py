"""Validation of names that become path segments (application names, eval set ids, result ids, ...).

Every backend applies the same rules (the local files, the in-memory managers and the SQL store), so an id one of
them accepts can be moved to another. The length limits come from the file names the default layout derives from
each id: one file name holds at most 255 bytes on common file systems (ext4, APFS; NTFS counts 255 UTF-16 units,
never more than the UTF-8 bytes).
"""

from __future__ import annotations

import os
from pathlib import Path

from .._util.uuids import uuid4
from ..errors import InvalidIdError
from ..model._ids import check_id_text

__all__ = ["ID_MAX_BYTES", "NAME_MAX", "check_file_name", "check_segment", "default_result_id"]

NAME_MAX = 255
"""Bytes in one file name on common file systems."""

ID_MAX_BYTES: dict[str, int] = {
    "app name": NAME_MAX,  # the folder <app>/
    "user id": NAME_MAX,  # the folder <app>/.sessions/<user>/
    # <id>.evalset.json and <id>.metrics.json, each with its lock file <name>.lock
    "eval set id": NAME_MAX - len(".evalset.json.lock"),
    "eval set result id": NAME_MAX - len(".evalset_result.json"),  # <id>.evalset_result.json
    "session id": NAME_MAX - len(".json"),  # <app>/.sessions/<user>/<id>.json
}
"""The longest id of each kind, in UTF-8 bytes (237 for an eval set id, 235 for a result id); other kinds of id
are limited to :data:`NAME_MAX`."""

_FORBIDDEN = ("/", "\\")


def check_segment(value: object, what: str, *, max_bytes: int | None = None) -> str:
    """Return ``value`` if it is safe as a single path segment, else raise
    :class:`~agentgauge.errors.InvalidIdError` (an :class:`~agentgauge.errors.InputError`) naming ``what``.

    Rejected: non-strings, the empty string, ``.`` and ``..``, anything containing ``/``, ``\\`` or a control
    character (NUL, CR, LF, ESC, ...; which also rules out absolute paths), drive-qualified Windows paths such as
    ``C:\\x``, lone surrogates, and ids longer than ``max_bytes`` in UTF-8 (default: the limit of ``what`` in
    :data:`ID_MAX_BYTES`, else 255).
    """
    if not isinstance(value, str):
        raise InvalidIdError(f"invalid {what} {value!r}: expected a string", kind=what, value=value)
    if value in ("", ".", ".."):
        raise InvalidIdError(
            f"invalid {what} {value!r}: must be a non-empty name other than '.' or '..'", kind=what, value=value
        )
    for bad in _FORBIDDEN:
        if bad in value:
            raise InvalidIdError(
                f"invalid {what} {value!r}: must not contain {bad!r} (one path segment only)", kind=what, value=value
            )
    check_id_text(value, what)
    if len(value) >= 2 and value[1] == ":" and value[0].isalpha():
        raise InvalidIdError(f"invalid {what} {value!r}: must not be a drive-qualified path", kind=what, value=value)
    limit = ID_MAX_BYTES.get(what, NAME_MAX) if max_bytes is None else max_bytes
    size = len(value.encode())
    if size > limit:
        raise InvalidIdError(
            f"invalid {what} {value!r}: too long ({size} bytes in UTF-8; at most {limit}, so that the file it "
            f"names fits the file system's limit of {NAME_MAX} bytes)",
            kind=what,
            value=value,
            limit=limit,
        )
    return value


def check_file_name(path: Path, value: str, what: str, *, extra: int = 0) -> Path:
    """``path`` (the file a locator built for id ``value``) when its name, plus ``extra`` bytes a manager adds to it
    (``.lock``), fits in one file name; else :class:`~agentgauge.errors.InvalidIdError` naming the id.

    The default layout never fails here (:data:`ID_MAX_BYTES` leaves room); a custom locator may add a prefix.
    """
    size = len(os.fsencode(path.name)) + extra
    if size > NAME_MAX:
        limit = max(0, len(value.encode()) - (size - NAME_MAX))
        raise InvalidIdError(
            f"invalid {what} {value!r}: too long for its file name {path.name!r} ({size} bytes in UTF-8; the id may "
            f"have at most {limit} so that it fits the file system's limit of {NAME_MAX})",
            kind=what,
            value=value,
            limit=limit,
        )
    return path


def default_result_id(app: str, eval_set_id: str) -> str:
    """A new result id, ``<app>_<evalSetId>_<uuid4>``, with ``<app>_<evalSetId>`` cut (at a character boundary) when
    the whole would exceed the limit of a result id: long app names and eval set ids still give a valid id."""
    check_id_text(app, "app name")
    check_id_text(eval_set_id, "eval set id")
    suffix = f"_{uuid4()}"
    prefix = f"{app}_{eval_set_id}".encode()
    room = ID_MAX_BYTES["eval set result id"] - len(suffix)
    if len(prefix) > room:
        prefix = prefix[:room]
    return prefix.decode(errors="ignore") + suffix
