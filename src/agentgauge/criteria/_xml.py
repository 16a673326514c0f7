"""XMLCriterion: checks that a final response is one well-formed XML document (trpc's ``xml`` part)."""

from __future__ import annotations

from typing import Any, Literal, Self
from xml.parsers import expat

from pydantic import Field, field_validator, model_validator

from ._base import MATCH, MatchResult
from ._compare import IgnorableCriterion, TextCompare

__all__ = ["XMLCriterion", "check_xml"]

XMLMatchStrategy = Literal["skip"]


class _Refused(Exception):
    """Raised from an expat handler to stop parsing a document that declares entities."""


def _refuse_entity(*_: Any) -> None:
    # Entity declarations are how "billion laughs" and external-entity documents work; a judged answer never
    # needs them, so the document is refused instead of expanded.
    raise _Refused("xml content declares entities (refused for safety)")


def check_xml(content: str) -> MatchResult:
    """Whether ``content`` is a single well-formed XML element, with only whitespace, comments and processing
    instructions around it. Entity declarations are refused; external entities and DTDs are never fetched."""
    if not content.strip():
        return MatchResult(False, "xml content is empty")
    if not content.lstrip().startswith("<"):
        return MatchResult(False, "xml content has non-whitespace text outside the root element")
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.EntityDeclHandler = _refuse_entity
    parser.UnparsedEntityDeclHandler = _refuse_entity
    parser.ExternalEntityRefHandler = lambda *_: 0  # 0 = error: never resolve an external entity
    roots = 0
    depth = [0]

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal roots
        if depth[0] == 0:
            roots += 1
        depth[0] += 1

    def end(name: str) -> None:
        depth[0] -= 1

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(content, True)
    except _Refused as exc:
        return MatchResult(False, str(exc))
    except expat.ExpatError as exc:
        return MatchResult(False, _explain(exc, content, roots, depth[0]))
    return MATCH


def _explain(exc: expat.ExpatError, content: str, roots: int, depth: int) -> str:
    code = expat.ErrorString(exc.code) if exc.code is not None else ""
    if code == expat.ErrorString(expat.errors.codes[expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT]):
        lines = content.splitlines(keepends=True)
        offset = sum(len(line) for line in lines[: exc.lineno - 1]) + exc.offset
        rest = content[offset:].lstrip()
        if rest.startswith("<") and not rest.startswith(("<!--", "<?")):
            return "xml content must contain a single root element"
        return "xml content has non-whitespace text outside the root element"
    if code == expat.ErrorString(expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS]):
        if roots == 0:
            return "xml content must contain a root element"
        return "xml content has unclosed elements"
    return f"xml content is not well-formed: {exc}"


class XMLCriterion(IgnorableCriterion):
    """trpc's XML part of a final-response criterion.

    ``matchStrategy`` must be ``"skip"`` (trpc defines no other; an empty or different value is a configuration
    error unless ``ignore`` is set). With ``valid: true`` the actual text must be a single well-formed XML element
    (:func:`check_xml`); otherwise the part always matches. A custom ``compare(actual, expected)`` (or
    ``compareName``, a ``text`` compare in the :class:`CompareRegistry`) replaces the validity check.
    """

    compare_kind = "text"
    compare_label = "xml"

    valid: bool = False
    match_strategy: XMLMatchStrategy | None = None
    compare_name: str | None = None
    compare: TextCompare | None = Field(default=None, exclude=True)

    @field_validator("match_strategy", mode="before")
    @classmethod
    def _strategy(cls, value: Any) -> Any:
        if value == "":
            return None
        if value is not None and value != "skip":
            raise ValueError(f"invalid match strategy {value!r}: xml supports only 'skip'")
        return value

    @model_validator(mode="after")
    def _check(self) -> Self:
        if not self.ignore and self.match_strategy is None:
            raise ValueError("xml match strategy is empty: set matchStrategy to 'skip'")
        return self

    def match(self, actual: str, expected: str) -> MatchResult:
        """Check ``actual`` (``expected`` reaches only a custom compare)."""
        verdict = self.preempt(actual, expected)
        if verdict is not None:
            return verdict
        if self.valid:
            checked = check_xml(actual)
            # Only the actual text is checked: say so, as every reason names its side.
            return checked if checked.ok else MatchResult(False, f"actual {checked.reason}")
        return MATCH
