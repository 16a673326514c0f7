"""TextCriterion: exact / contains / regex string matching with optional case folding and length bounds."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from ._base import MATCH, CriterionError, MatchResult
from ._compare import IgnorableCriterion, TextCompare
from ._model import CriterionModel, match_strategy_or_exact
from ._show import first_difference, show

__all__ = ["LengthBounds", "TextCriterion", "TextMatchStrategy"]

TextMatchStrategy = Literal["exact", "contains", "regex", "skip"]
_STRATEGIES: tuple[str, ...] = ("exact", "contains", "regex", "skip")


@lru_cache(maxsize=1024)
def _compile(pattern: str, flags: int) -> re.Pattern[str]:
    try:
        return re.compile(pattern, flags)
    except re.error as exc:
        raise CriterionError(f"invalid regex {pattern!r}: {exc}") from None


class LengthBounds(CriterionModel):
    """Inclusive bounds on the number of characters (Unicode code points, Go's runes) of the actual text."""

    min: int | None = None
    max: int | None = None

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.min is None and self.max is None:
            raise ValueError("length needs min, max or both")
        if (self.min is not None and self.min < 0) or (self.max is not None and self.max < 0):
            raise ValueError("length bounds must not be negative")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"length min ({self.min}) is greater than max ({self.max})")
        return self

    def check(self, text: str) -> MatchResult:
        """Whether ``len(text)`` lies within the bounds."""
        n = len(text)
        if (self.min is not None and n < self.min) or (self.max is not None and n > self.max):
            lo = "" if self.min is None else str(self.min)
            hi = "" if self.max is None else str(self.max)
            return MatchResult(False, f"length mismatch: actual has {n} characters, not in [{lo}, {hi}]")
        return MATCH


class TextCriterion(IgnorableCriterion):
    """How two strings are compared (``name`` of a tool, the text of a final response).

    Order of checks: ``ignore`` (always matches) → custom ``compare`` (replaces everything below) → ``length``
    bounds on the actual text → ``matchStrategy``:

    - ``exact`` (default, also ``""``): ``actual == expected``;
    - ``contains``: ``expected in actual`` (expected is the needle);
    - ``regex``: ``re.search(expected, actual)``, unanchored; an invalid pattern raises :class:`CriterionError`;
    - ``skip``: always matches (after the length check).

    ``caseInsensitive`` lowercases both sides for ``exact`` and ``contains``; for ``regex`` the pattern is
    compiled with ``re.IGNORECASE`` instead of being lowercased, so escapes such as ``\\S`` keep their meaning.
    ``compareName`` names a function in a :class:`CompareRegistry`; bind it with :meth:`resolve`.
    """

    compare_kind = "text"
    compare_label = "text"

    case_insensitive: bool = False
    match_strategy: TextMatchStrategy = "exact"
    length: LengthBounds | None = None
    compare_name: str | None = None
    compare: TextCompare | None = Field(default=None, exclude=True)

    @field_validator("match_strategy", mode="before")
    @classmethod
    def _strategy(cls, value: Any) -> Any:
        return match_strategy_or_exact(value, _STRATEGIES)

    def match(self, actual: str, expected: str) -> MatchResult:
        """Compare ``actual`` with ``expected``; a mismatch's reason shows both sides."""
        verdict = self.preempt(actual, expected)
        if verdict is not None:
            return verdict
        if self.length is not None:
            checked = self.length.check(actual)
            if not checked.ok:
                return checked
        strategy = self.match_strategy
        if strategy == "skip":
            return MATCH
        if strategy == "regex":
            flags = re.IGNORECASE if self.case_insensitive else 0
            if _compile(expected, flags).search(actual) is not None:
                return MATCH
            return MatchResult(False, f"actual {show(actual)} does not match expected regex {show(expected)}")
        a, e = (actual.lower(), expected.lower()) if self.case_insensitive else (actual, expected)
        if strategy == "contains":
            if e in a:
                return MATCH
            return MatchResult(False, f"actual {show(actual)} does not contain expected {show(expected)}")
        if a == e:
            return MATCH
        return MatchResult(False, first_difference(actual, expected, a, e))
