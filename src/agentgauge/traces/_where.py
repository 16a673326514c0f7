"""Where a value sits in a trace file, for error messages: the file and the JSON path (or ``line N``) inside it.

A low module of :mod:`agentgauge.traces`: imports only :mod:`agentgauge.errors`.
"""

from __future__ import annotations

from typing import NamedTuple

from ..errors import InputError

__all__ = ["Where"]


class Where(NamedTuple):
    """A place in a trace file: ``file`` and the JSON ``path`` inside it (``""`` at the document's root)."""

    file: str
    path: str = ""

    def at(self, index: int) -> Where:
        """Item ``index`` of the array here (``path[index]``)."""
        return Where(self.file, f"{self.path}[{index}]")

    def key(self, name: str) -> Where:
        """Member ``name`` of the object here (``path.name``)."""
        return Where(self.file, f"{self.path}.{name}")

    def field(self, name: str) -> Where:
        """Member ``name`` of the object here, written without a leading dot at the root (``name``)."""
        return Where(self.file, f"{self.path}.{name}" if self.path else name)

    def error(self, message: str) -> InputError:
        """An :class:`InputError` about the value here."""
        return InputError(message, file=self.file, location=self.path)
