"""Exception types shared across agentgauge."""

from __future__ import annotations

__all__ = ["AgentgaugeError", "InputError", "NotFoundError"]


class AgentgaugeError(Exception):
    """Base class of agentgauge's own errors."""


class InputError(AgentgaugeError, ValueError):
    """A file or argument is invalid. The CLI prints ``str(error)`` as one line and exits with code 2.

    ``file`` names the offending file (if any) and ``location`` the JSON path inside it, e.g.
    ``evalCases[3].conversation[0].userContent``.
    """

    def __init__(self, message: str, *, file: str | None = None, location: str | None = None) -> None:
        self.message = message
        self.file = file
        self.location = location
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
