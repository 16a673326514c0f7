"""Errors raised by judge clients and judge-answer parsers."""

from __future__ import annotations

from ..errors import AgentgaugeError

__all__ = ["JudgeConfigError", "JudgeError", "JudgeParseError", "snippet"]

_SNIPPET_CHARS = 300


def snippet(text: str, limit: int = _SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis, for reasons and error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JudgeError(AgentgaugeError):
    """A judge model could not answer (after retries). ``status`` is the last HTTP status, if any."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class JudgeConfigError(JudgeError):
    """The judge is not usable as configured (no model name, no API key for a hosted provider, ...)."""


class JudgeParseError(JudgeError):
    """A judge answered, but the answer does not have the required format. ``raw`` is the answer as received."""

    def __init__(self, message: str, *, raw: str) -> None:
        super().__init__(f"{message}; judge answer: {snippet(raw) if raw.strip() else '<empty>'!s}")
        self.raw = raw
