"""Validation of names that become path segments (application names, eval set ids, result ids)."""

from __future__ import annotations

from ..errors import InputError

__all__ = ["check_segment"]

_FORBIDDEN = ("/", "\\", "\x00")


def check_segment(value: object, what: str) -> str:
    """Return ``value`` if it is safe as a single path segment, else raise :class:`InputError`.

    Rejected: non-strings, the empty string, ``.`` and ``..``, and anything containing ``/``, ``\\`` or NUL (which
    also rules out absolute paths and drive-qualified Windows paths such as ``C:\\x``).
    """
    if not isinstance(value, str):
        raise InputError(f"invalid {what} {value!r}: expected a string")
    if value in ("", ".", ".."):
        raise InputError(f"invalid {what} {value!r}: must be a non-empty name other than '.' or '..'")
    for bad in _FORBIDDEN:
        if bad in value:
            shown = {"\x00": "NUL"}.get(bad, bad)
            raise InputError(f"invalid {what} {value!r}: must not contain {shown!r} (one path segment only)")
    if len(value) >= 2 and value[1] == ":" and value[0].isalpha():
        raise InputError(f"invalid {what} {value!r}: must not be a drive-qualified path")
    return value
