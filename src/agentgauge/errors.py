"""Exception types shared across agentgauge."""

from __future__ import annotations

import re

__all__ = ["AgentError", "AgentgaugeError", "InputError", "InvalidIdError", "NotFoundError", "printable", "shorten"]

SHOWN_CHARS = 200  # how much of a quoted value an error message shows
_MAX_MESSAGE = 2000
# A quoted value: an opening quote (at the start or after a space or bracket, so never the closing quote of an
# earlier value), 200 (SHOWN_CHARS) characters kept, more cut, up to the matching closing quote.
_QUOTED = re.compile(r"""(?<![^\s(\[{=:,])(['"])([^'"\n]{200})[^'"\n]{2,}\1""")
_LONG_TOKEN = re.compile(r"\S{1000,}")  # an unquoted value with no space in it; long file paths stay whole


def shorten(text: str) -> str:
    """``text`` with quoted values (and other unbroken runs) cut to about 200 characters, and at most ~2000 in all.

    Messages quote the offending value; a 50 MB metric name must still give a one-line error of readable size.
    """
    if len(text) <= SHOWN_CHARS:
        return text
    text = _QUOTED.sub(lambda m: f"{m[1]}{m[2]}…{m[1]}", text)
    text = _LONG_TOKEN.sub(lambda m: f"{m[0][:SHOWN_CHARS]}…", text)
    if len(text) > _MAX_MESSAGE:
        text = f"{text[: _MAX_MESSAGE - 300]}…{text[-200:]}"
    return text


# C0 controls but tab and newline, DEL and C1 controls: ESC starts colours, cursor moves and window titles; C1's CSI
# (U+009B) does the same on terminals that read 8-bit controls.
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_UNPRINTABLE_OR_BREAK = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def printable(text: str, *, lines: bool = True) -> str:
    """``text`` with its control characters written as escapes (``\\x1b``, ``\\x07``), as user text is printed
    on a terminal: an eval id, an agent's answer or an error message must not colour, retitle or clear the
    terminal. Tab and newline are kept unless ``lines`` is false (an id, a one-line message)."""
    pattern = _UNPRINTABLE if lines else _UNPRINTABLE_OR_BREAK
    if pattern.search(text) is None:
        return text
    if lines:
        text = text.replace("\r\n", "\n")
    return pattern.sub(lambda m: _escape_char(m[0]), text)


def _escape_char(char: str) -> str:
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(char) or f"\\x{ord(char):02x}"


class AgentgaugeError(Exception):
    """Base class of agentgauge's own errors."""


class InputError(AgentgaugeError, ValueError):
    """A file or argument is invalid. The CLI prints ``str(error)`` as one line and exits with code 2.

    ``file`` names the offending file (if any) and ``location`` the JSON path inside it, e.g.
    ``evalCases[3].conversation[0].userContent``.
    """

    def __init__(self, message: str, *, file: str | None = None, location: str | None = None) -> None:
        self.message = shorten(message)
        self.file = file
        self.location = location if location is None else shorten(location)
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.file:
            where = self.file
        if self.location:
            where = f"{where}: {self.location}" if where else self.location
        return f"{where}: {self.message}" if where else self.message


class InvalidIdError(InputError):
    """An id refused before it can name a file or a stored row: not text, empty, too long, or holding a path
    separator or a control character. ``kind`` names the id (``"eval set id"``), ``value`` is the id as given and
    ``limit`` the length limit it broke (``None`` for the other rules)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        value: object,
        limit: int | None = None,
        file: str | None = None,
        location: str | None = None,
    ) -> None:
        self.kind = kind
        self.value = value
        self.limit = limit
        super().__init__(message, file=file, location=location)


class NotFoundError(AgentgaugeError, LookupError):
    """A requested eval set, case, metric or result does not exist."""


class AgentError(AgentgaugeError):
    """An agent could not produce an answer (bad output, protocol violation, no final answer, ...).

    The run engine records the message as the case's ``errorMessage``; other cases keep running.
    """
