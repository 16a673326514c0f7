"""FinalResponseCriterion: the final answer compared as JSON, text, ROUGE and/or checked as XML."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from pydantic import Field, model_validator

from ._base import MATCH, CriterionError, MatchResult
from ._compare import CompareRegistry, CustomComparable, InvocationCompare
from ._json import JSONCriterion
from ._rouge import RougeCriterion
from ._text import TextCriterion
from ._xml import XMLCriterion

if TYPE_CHECKING:
    from ..model import Invocation

__all__ = ["FinalResponseCriterion"]


class FinalResponseCriterion(CustomComparable):
    """Compares ``finalResponse.content`` of the actual invocation with the expected one.

    Configured parts run in the order ``json`` (both contents parsed as JSON), ``text``, ``rouge`` (expected is
    the target, actual the prediction), ``xml`` (the actual text must be well-formed XML when ``valid``); a part
    with ``ignore`` is skipped. Every part runs, and every failing part is reported in that order, joined with
    ``"; "``. At least one part (or a custom ``compare``) must be configured.

    Both final responses missing is a match; only the actual one missing is a mismatch; a missing expected
    response counts as empty text.
    """

    compare_kind = "final_response"
    compare_label = "final response"

    text: TextCriterion | None = None
    json_: JSONCriterion | None = Field(default=None, alias="json")
    rouge: RougeCriterion | None = None
    xml: XMLCriterion | None = None
    compare_name: str | None = None
    compare: InvocationCompare | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _check(self) -> Self:
        parts = (self.text, self.json_, self.rouge, self.xml, self.compare_name, self.compare)
        if all(p is None or p == "" for p in parts):
            raise ValueError("finalResponse must configure text, json, rouge, or xml")
        return self

    def resolve(self, compares: CompareRegistry) -> Self:
        """A copy with this criterion's and every nested ``compareName`` (and ``rouge.tokenizerName``) bound from
        ``compares``."""
        update = self.compare_update(compares)
        if self.text is not None:
            update["text"] = self.text.resolve(compares)
        if self.json_ is not None:
            update["json_"] = self.json_.resolve(compares)
        if self.rouge is not None:
            update["rouge"] = self.rouge.resolve(compares)
        if self.xml is not None:
            update["xml"] = self.xml.resolve(compares)
        return self.model_copy(update=update)

    def match(self, actual: Invocation, expected: Invocation) -> MatchResult:
        """Compare the final responses of two invocations."""
        custom = self.custom_match(actual, expected)
        if custom is not None:
            return custom
        if actual is None or expected is None:
            raise CriterionError("final response: actual or expected invocation is missing")
        a, e = actual.final_response, expected.final_response
        if a is None and e is None:
            return MATCH
        if a is None:
            return MatchResult(False, "actual final response is missing")
        return self.match_text(a.content, e.content if e is not None else "")

    def match_text(self, actual: str, expected: str) -> MatchResult:
        """Compare two final-response texts with every configured part."""
        failures: list[str] = []
        if self.json_ is not None and not self.json_.ignore:
            r = self.json_.match_raw(actual, expected)
            if not r.ok:
                failures.append(f"json mismatch: {r.reason}")
        if self.text is not None and not self.text.ignore:
            r = self.text.match(actual, expected)
            if not r.ok:
                failures.append(f"text mismatch: {r.reason}")
        if self.rouge is not None and not self.rouge.ignore:
            r = self.rouge.match(expected, actual)
            if not r.ok:
                failures.append(f"rouge mismatch: {r.reason}")
        if self.xml is not None and not self.xml.ignore:
            r = self.xml.match(actual, expected)
            if not r.ok:
                failures.append(f"xml mismatch: {r.reason}")
        return MATCH if not failures else MatchResult(False, "; ".join(failures))
