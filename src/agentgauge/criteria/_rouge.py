"""ROUGE scoring: ADK's ``response_match_score`` (ROUGE-1 F) and the configurable :class:`RougeCriterion`."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator

from ._base import CriterionError, MatchResult
from ._model import CriterionModel
from ._tokenize import RougeTokenizer, builtin_tokenizer, default_tokens, unicode_tokens

if TYPE_CHECKING:
    from ._compare import CompareRegistry

__all__ = ["RougeCriterion", "RougeScore", "RougeThreshold", "adk_rouge1", "rouge_scores"]

_ROUGE_TYPE = re.compile(r"^rouge([1-9][0-9]*|L|Lsum)$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class RougeScore:
    """Precision, recall and F-measure of one ROUGE comparison."""

    precision: float
    recall: float
    fmeasure: float


def _scoring() -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer


def _as_score(s: Any) -> RougeScore:
    return RougeScore(precision=s.precision, recall=s.recall, fmeasure=s.fmeasure)


def adk_rouge1(candidate: str, reference: str) -> RougeScore:
    """ROUGE-1 exactly as Google ADK's ``response_match_score`` computes it (its F-measure is the score).

    Tokens come from :func:`~agentgauge.criteria._tokenize.unicode_tokens` with stemming; the overlap and the
    precision/recall/F arithmetic are those of rouge-score's ``_score_ngrams``, operation for operation, so results
    agree bit for bit (the differential tests against ADK check it). Doing the arithmetic here spares importing
    rouge-score's scorer module, which imports all of nltk, numpy and absl.
    """
    ref = Counter(unicode_tokens(reference))
    # Identical texts (common: most answers are unchanged) tokenize identically; count them once.
    cand = ref if candidate == reference else Counter(unicode_tokens(candidate))
    return _unigram_scores(ref, cand)


def _unigram_scores(target: Counter[str], prediction: Counter[str]) -> RougeScore:
    if prediction is target:  # identical texts: every token overlaps (the sum the loop below would give)
        overlap = sum(target.values())
    else:
        overlap = 0
        for token, count in target.items():
            overlap += min(count, prediction[token])
    precision = overlap / max(sum(prediction.values()), 1)
    recall = overlap / max(sum(target.values()), 1)
    fmeasure = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return RougeScore(precision=precision, recall=recall, fmeasure=fmeasure)


def _sentences(text: str, split: bool) -> list[str]:
    parts = _SENTENCE_END.split(text) if split else text.split("\n")
    return [p for p in parts if p]


def rouge_scores(
    rouge_type: str,
    target: str,
    prediction: str,
    tokenize: Callable[[str], Sequence[str]],
    split_summaries: bool = False,
) -> RougeScore:
    """One ROUGE variant (``rougeN``, ``rougeL``, ``rougeLsum``) of ``prediction`` against ``target``."""
    rs = _scoring()
    if rouge_type == "rougeL":
        return _as_score(rs._score_lcs(list(tokenize(target)), list(tokenize(prediction))))
    if rouge_type == "rougeLsum":
        ref = [list(tokenize(s)) for s in _sentences(target, split_summaries)]
        can = [list(tokenize(s)) for s in _sentences(prediction, split_summaries)]
        return _as_score(rs._summary_level_lcs(ref, can))
    m = _ROUGE_TYPE.match(rouge_type)
    if m is None or not m.group(1).isdigit():
        raise CriterionError(f"invalid rougeType {rouge_type!r}: expected rougeN (N >= 1), rougeL or rougeLsum")
    n = int(m.group(1))
    return _as_score(
        rs._score_ngrams(rs._create_ngrams(tokenize(target), n), rs._create_ngrams(tokenize(prediction), n))
    )


class RougeThreshold(CriterionModel):
    """Minimum precision, recall and F1; each defaults to 0 (no requirement)."""

    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0


class RougeCriterion(CriterionModel):
    """ROUGE between the expected text (target) and the actual text (prediction).

    ``rougeType`` is ``rougeN`` (``rouge1``, ``rouge2``, ...), ``rougeL`` or ``rougeLsum`` (sentences split on
    newlines, or on ``.``/``!``/``?`` followed by whitespace with ``splitSummaries``). The comparison passes
    when precision, recall and F1 all reach ``threshold`` (each 0 by default); ``measure`` (``f1`` default,
    ``precision``, ``recall``) picks the value shown first in the reason. ``tokenizer`` is ``default``
    (rouge-score's: ``[a-z0-9]`` words only) or ``unicode`` (ADK's: keeps non-Latin scripts); ``useStemmer``
    applies Porter stemming to ASCII words longer than 3 characters.

    ``tokenizerName`` (trpc-agent-go) names a tokenizer instead: one registered with
    :meth:`CompareRegistry.register_rouge_tokenizer <agentgauge.criteria.CompareRegistry.register_rouge_tokenizer>`,
    or the built-in ``jieba`` (Chinese word segmentation, ``pip install 'agentgauge[jieba]'``). It replaces the
    whole tokenization (``tokenizer`` and ``useStemmer`` no longer apply). An unknown name, or ``jieba`` without its
    package, is a configuration error when the criterion is resolved -- never a silent fallback.
    """

    ignore: bool = False
    rouge_type: str = "rouge1"
    measure: Literal["f1", "precision", "recall"] = "f1"
    threshold: RougeThreshold = Field(default_factory=RougeThreshold)
    use_stemmer: bool = False
    split_summaries: bool = False
    tokenizer: Literal["default", "unicode"] = "default"
    tokenizer_name: str | None = None
    tokenize: RougeTokenizer | None = Field(default=None, exclude=True)

    @field_validator("rouge_type")
    @classmethod
    def _type(cls, value: str) -> str:
        if not _ROUGE_TYPE.match(value):
            raise ValueError(f"invalid rougeType {value!r}: expected rougeN (N >= 1), rougeL or rougeLsum")
        return value

    @field_validator("measure", mode="before")
    @classmethod
    def _measure(cls, value: Any) -> Any:
        return "f1" if value in (None, "") else value

    def resolve(self, compares: CompareRegistry) -> RougeCriterion:
        """A copy with ``tokenizerName`` bound from ``compares``; unknown name → :class:`CriterionError`."""
        if not self.tokenizer_name:
            return self
        return self.model_copy(update={"tokenize": compares.rouge_tokenizer(self.tokenizer_name)})

    def _named_tokenizer(self) -> RougeTokenizer:
        name = self.tokenizer_name or ""
        builtin = builtin_tokenizer(name)
        if builtin is None:
            raise CriterionError(f"rouge tokenizerName {name!r} is not resolved (use resolve())")
        return builtin

    def score(self, target: str, prediction: str) -> RougeScore:
        """The configured ROUGE variant of ``prediction`` against ``target``."""
        if self.tokenize is not None:
            return rouge_scores(self.rouge_type, target, prediction, self.tokenize, self.split_summaries)
        if self.tokenizer_name:
            return rouge_scores(self.rouge_type, target, prediction, self._named_tokenizer(), self.split_summaries)
        stem = self.use_stemmer
        if self.tokenizer == "unicode":

            def tok(text: str) -> list[str]:
                return unicode_tokens(text, stem)
        else:

            def tok(text: str) -> list[str]:
                return default_tokens(text, stem)

        return rouge_scores(self.rouge_type, target, prediction, tok, self.split_summaries)

    def match(self, target: str, prediction: str) -> MatchResult:
        """Pass when every component reaches its threshold; the reason lists all three values."""
        if self.ignore:
            return MatchResult(True)
        s = self.score(target, prediction)
        t = self.threshold
        value = {"f1": s.fmeasure, "precision": s.precision, "recall": s.recall}[self.measure]
        ok = s.precision >= t.precision and s.recall >= t.recall and s.fmeasure >= t.f1
        reason = (
            f"{self.rouge_type} {self.measure}={value:.6f} precision={s.precision:.6f} recall={s.recall:.6f} "
            f"f1={s.fmeasure:.6f}"
        )
        if not ok:
            reason += f" (thresholds precision={t.precision:g} recall={t.recall:g} f1={t.f1:g})"
        return MatchResult(ok, reason)
