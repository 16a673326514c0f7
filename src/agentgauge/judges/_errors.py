"""Errors raised by judge clients and judge-answer parsers."""

from __future__ import annotations

from .._util.redact import redact
from ..errors import AgentgaugeError

__all__ = ["JudgeAnswerError", "JudgeConfigError", "JudgeError", "JudgeParseError", "JudgeTimeoutError", "snippet"]

_SNIPPET_CHARS = 300


def snippet(text: str, limit: int = _SNIPPET_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis, for reasons and error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class JudgeError(AgentgaugeError):
    """A judge model could not answer (after retries). ``status`` is the last HTTP status, if any.

    The message never contains a registered secret (API key), whatever the server echoed.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(redact(message))
        self.status = status


class JudgeAnswerError(JudgeError):
    """The judge endpoint kept returning responses that are not chat completions (an HTML page, a body that is
    not JSON, fields of the wrong type), after retries.

    ``judge`` is ``"<model> at <base URL>"``, ``description`` says what was wrong with the last response and
    ``attempts`` how many were made; metrics report it per invocation.
    """

    def __init__(self, judge: str, description: str, *, attempts: int) -> None:
        self.judge = judge
        self.description = redact(description)
        self.attempts = attempts
        super().__init__(f"judge {judge} returned an invalid answer: {self.description}")

    def for_invocation(self, number: int) -> str:
        """``judge <model> at <URL> returned an invalid answer for invocation <number>: <description>``."""
        return f"judge {self.judge} returned an invalid answer for invocation {number}: {self.description}"


class JudgeTimeoutError(JudgeError):
    """A judge call used up its time budget (all attempts and waits together) without an answer."""


class JudgeConfigError(JudgeError):
    """The judge is not usable as configured (no model name, no API key for a hosted provider, ...)."""


class JudgeParseError(JudgeError):
    """A judge answered, but the answer does not have the required format. ``raw`` is the answer as received."""

    def __init__(self, message: str, *, raw: str) -> None:
        super().__init__(f"{message}; judge answer: {snippet(raw) if raw.strip() else '<empty>'!s}")
        self.raw = raw
