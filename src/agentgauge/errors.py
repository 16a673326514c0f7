"""Exception types shared across agentgauge."""

from __future__ import annotations

import re

__all__ = ["AgentgaugeError", "InputError", "NotFoundError", "shorten"]

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


class NotFoundError(AgentgaugeError, LookupError):
    """A requested eval set, case, metric or result does not exist."""
