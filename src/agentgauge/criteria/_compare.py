"""Named custom comparisons, so a metrics file can say ``"compareName": "my_compare"`` and stay plain JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from ..model import Invocation
from ._base import MATCH, CriterionError, MatchResult
from ._model import CriterionModel
from ._tokenize import BUILTIN_TOKENIZERS, RougeTokenizer, builtin_tokenizer

__all__ = [
    "CompareKind",
    "CompareRegistry",
    "CompareResult",
    "CustomComparable",
    "IgnorableCriterion",
    "InvocationCompare",
    "JSONCompare",
    "RougeTokenizer",
    "TextCompare",
    "run_compare",
]

CompareResult = bool | MatchResult
"""What a custom comparison returns: a plain verdict or a :class:`MatchResult` with its own reason."""

TextCompare = Callable[[str, str], CompareResult]
"""``compare(actual, expected)`` for strings."""

JSONCompare = Callable[[Any, Any], CompareResult]
"""``compare(actual, expected)`` for JSON values (dicts, lists, numbers, ...)."""

InvocationCompare = Callable[[Invocation, Invocation], CompareResult]
"""``compare(actual, expected)`` for whole invocations (tool trajectory, final response)."""

CompareKind = Literal["text", "json", "tool_trajectory", "final_response"]
_KINDS: tuple[CompareKind, ...] = ("text", "json", "tool_trajectory", "final_response")


def run_compare(fn: Callable[[Any, Any], Any], actual: Any, expected: Any, label: str) -> MatchResult:
    """Call a custom comparison and normalise its answer to a :class:`MatchResult`."""
    out = fn(actual, expected)
    if isinstance(out, MatchResult):
        return out
    if isinstance(out, bool):
        return MatchResult(True) if out else MatchResult(False, f"custom compare {label} returned false")
    raise CriterionError(f"custom compare {label} must return bool or MatchResult, got {type(out).__name__}")


class CompareRegistry:
    """Custom comparisons by kind and name, resolved into criteria with ``criterion.resolve(registry)``.

    Kinds: ``text`` (:data:`TextCompare`), ``json`` (:data:`JSONCompare`), ``tool_trajectory`` and
    ``final_response`` (:data:`InvocationCompare`). Registering a name again replaces the earlier function.
    ROUGE tokenizers (``rouge.tokenizerName``) are registered with :meth:`register_rouge_tokenizer`; ``jieba`` is
    built in (with the ``jieba`` extra installed) and a registered tokenizer of the same name takes its place.
    Pass an instance explicitly (e.g. ``Registry(compares=...)``); there is no hidden global registry.
    """

    def __init__(self) -> None:
        self._fns: dict[CompareKind, dict[str, Callable[..., CompareResult]]] = {k: {} for k in _KINDS}
        self._tokenizers: dict[str, RougeTokenizer] = {}

    def register(self, kind: CompareKind, name: str, fn: Callable[..., CompareResult]) -> None:
        """Register ``fn`` under ``name`` for criteria of ``kind``."""
        if kind not in self._fns:
            raise CriterionError(f"unknown compare kind {kind!r}: expected one of {', '.join(_KINDS)}")
        if not name:
            raise CriterionError("a compare name must not be empty")
        if not callable(fn):
            raise CriterionError(f"compare {name!r} is not callable")
        self._fns[kind][name] = fn

    def register_text(self, name: str, fn: TextCompare) -> None:
        """Register a string comparison used by ``TextCriterion.compareName``."""
        self.register("text", name, fn)

    def register_json(self, name: str, fn: JSONCompare) -> None:
        """Register a JSON comparison used by ``JSONCriterion.compareName``."""
        self.register("json", name, fn)

    def register_tool_trajectory(self, name: str, fn: InvocationCompare) -> None:
        """Register an invocation comparison used by ``ToolTrajectoryCriterion.compareName``."""
        self.register("tool_trajectory", name, fn)

    def register_final_response(self, name: str, fn: InvocationCompare) -> None:
        """Register an invocation comparison used by ``FinalResponseCriterion.compareName``."""
        self.register("final_response", name, fn)

    def get(self, kind: CompareKind, name: str) -> Callable[..., CompareResult]:
        """The function registered as ``name`` for ``kind``; unknown → :class:`CriterionError` listing names."""
        try:
            return self._fns[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._fns.get(kind, {}))) or "none registered"
            raise CriterionError(f"unknown {kind} compareName {name!r} (known: {known})") from None

    def names(self, kind: CompareKind) -> list[str]:
        """Sorted names registered for ``kind``."""
        return sorted(self._fns[kind])

    def register_rouge_tokenizer(self, name: str, tokenize: RougeTokenizer) -> None:
        """Register ``tokenize(text) -> tokens`` as the ROUGE tokenizer ``name`` (``rouge.tokenizerName``).

        The tokenizer replaces the whole tokenization: ROUGE counts exactly the tokens it returns.
        """
        if not name:
            raise CriterionError("a tokenizer name must not be empty")
        if not callable(tokenize):
            raise CriterionError(f"rouge tokenizer {name!r} is not callable")
        self._tokenizers[name] = tokenize

    def rouge_tokenizer(self, name: str) -> RougeTokenizer:
        """The tokenizer registered (or built in) as ``name``; :class:`CriterionError` naming the known ones."""
        registered = self._tokenizers.get(name)
        if registered is not None:
            return registered
        builtin = builtin_tokenizer(name)
        if builtin is None:
            raise CriterionError(
                f"unknown rouge tokenizerName {name!r} (known: {', '.join(self.rouge_tokenizer_names())})"
            )
        return builtin

    def rouge_tokenizer_names(self) -> list[str]:
        """Sorted names of the registered and built-in ROUGE tokenizers."""
        return sorted(set(self._tokenizers) | set(BUILTIN_TOKENIZERS))


class CustomComparable(CriterionModel):
    """Base of a criterion that a custom comparison can replace: ``compareName`` names a function of kind
    :attr:`compare_kind` in a :class:`CompareRegistry`; once :meth:`resolve` binds it, it decides in place of the
    criterion's own checks.

    Subclasses declare the ``compare_name`` and ``compare`` fields themselves, where they belong in their
    serialised form (a field declared here would come first in every ``model_dump()``).
    """

    compare_kind: ClassVar[CompareKind]
    """The registry kind ``compareName`` is looked up in."""
    compare_label: ClassVar[str]
    """How reasons and errors name the criterion (``text``, ``tool trajectory``, ...)."""

    if TYPE_CHECKING:
        compare_name: str | None
        compare: Callable[..., CompareResult] | None

    def compare_update(self, compares: CompareRegistry) -> dict[str, Any]:
        """The ``model_copy`` update that binds ``compareName`` from ``compares`` (empty when none is named)."""
        if not self.compare_name:
            return {}
        return {"compare": compares.get(self.compare_kind, self.compare_name)}

    def resolve(self, compares: CompareRegistry) -> Self:
        """A copy whose ``compare`` is the function registered as ``compareName`` (self when none is named)."""
        update = self.compare_update(compares)
        return self.model_copy(update=update) if update else self

    def custom_match(self, actual: Any, expected: Any) -> MatchResult | None:
        """The custom comparison's verdict, or ``None`` when there is none; an unbound ``compareName`` raises
        :class:`CriterionError`."""
        if self.compare is not None:
            return run_compare(self.compare, actual, expected, f"({self.compare_label})")
        if self.compare_name:
            raise CriterionError(
                f"{self.compare_label} compareName {self.compare_name!r} is not resolved (use resolve())"
            )
        return None


class IgnorableCriterion(CustomComparable):
    """Base of a part criterion (a tool call's name, arguments or result; a final response's text, JSON or XML)
    that ``ignore`` switches off: an ignored part always matches, before any custom comparison."""

    ignore: bool = False

    def preempt(self, actual: Any, expected: Any) -> MatchResult | None:
        """The verdict that comes before the criterion's own checks (``ignore``, then the custom comparison), or
        ``None`` when those checks decide."""
        if self.ignore:
            return MATCH
        return self.custom_match(actual, expected)
