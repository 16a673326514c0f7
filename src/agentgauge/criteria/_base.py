"""What every criterion returns, and the error a broken configuration raises."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CriterionError", "MatchResult"]


class CriterionError(ValueError):
    """A criterion's configuration is invalid (unknown strategy, bad regex, conflicting options, ...).

    A mismatch is never an error: it is a :class:`MatchResult` with ``ok=False``.
    """


@dataclass(frozen=True, slots=True)
class MatchResult:
    """The outcome of ``criterion.match(actual, expected)``.

    ``reason`` reproduces the decision and labels both sides, e.g.
    ``"arguments mismatch: actual 'Lyon' != expected 'Paris' at $.city"``; it is empty for a plain match.
    """

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


MATCH = MatchResult(True)
"""The shared successful result with no reason."""
