"""Rules every id obeys, whether or not it names a file: text without control characters, of bounded length.

The rules for ids that become path segments (app names, eval set ids, ...) build on these in
:mod:`agentgauge.storage._ids`.
"""

from __future__ import annotations

import re

from ..errors import InvalidIdError

__all__ = ["CASE_ID_MAX_CHARS", "check_case_id", "check_id_text"]

CASE_ID_MAX_CHARS = 255
"""Characters in an eval case id: what a store's ``VARCHAR(255)`` id column holds (trpc-agent-go's tables)."""

# C0 controls, DEL and C1 controls (Unicode category Cc): they end lines, move the cursor or colour a terminal, and
# a CR/LF in a name that reaches a header or a log line forges new lines.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# A lone surrogate (Python's JSON reader accepts "\ud800") is no text: it cannot be encoded, written or stored.
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def check_id_text(value: object, what: str, *, max_chars: int | None = None) -> str:
    """``value`` when it is a string of valid text with no control character and at most ``max_chars`` characters;
    else :class:`~agentgauge.errors.InvalidIdError` naming ``what`` (e.g. ``"eval case id"``) and the rule."""
    if not isinstance(value, str):
        raise InvalidIdError(f"invalid {what} {value!r}: expected a string", kind=what, value=value)
    found = _CONTROL.search(value)
    if found is not None:
        raise InvalidIdError(
            f"invalid {what} {value!r}: must not contain control characters "
            f"(found {found[0]!r} at position {found.start()})",
            kind=what,
            value=value,
        )
    found = _SURROGATE.search(value)
    if found is not None:
        raise InvalidIdError(
            f"invalid {what} {value!r}: not valid Unicode text (lone surrogate {found[0]!r} at position "
            f"{found.start()})",
            kind=what,
            value=value,
        )
    if max_chars is not None and len(value) > max_chars:
        raise InvalidIdError(
            f"invalid {what} {value!r}: too long ({len(value)} characters; at most {max_chars})",
            kind=what,
            value=value,
            limit=max_chars,
        )
    return value


def check_case_id(value: object) -> str:
    """``value`` when it is a valid eval case id: text without control characters, at most 255 characters.

    Case ids never name a file, so ``/`` and the like are allowed (as in ADK).
    """
    return check_id_text(value, "eval case id", max_chars=CASE_ID_MAX_CHARS)
