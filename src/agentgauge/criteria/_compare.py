"""Named custom comparisons, so a metrics file can say ``"compareName": "my_compare"`` and stay plain JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..model import Invocation
from ._base import CriterionError, MatchResult
from ._tokenize import BUILTIN_TOKENIZERS, RougeTokenizer, builtin_tokenizer

__all__ = [
    "CompareKind",
    "CompareRegistry",
    "CompareResult",
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
