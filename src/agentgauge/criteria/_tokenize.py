"""ROUGE tokenizers: ADK's Unicode-aware tokenizer and rouge-score's default one, both with a stem cache, plus
the named tokenizers a criterion selects with ``tokenizerName`` (built in: ``jieba``).

Stemming is nltk's ``PorterStemmer`` in its default ``NLTK_EXTENSIONS`` mode, applied by rouge-score's own
``tokenize`` to ASCII words longer than 3 characters. Each distinct word is stemmed once per process: the
cache is what makes ROUGE cheap, since the same few thousand words recur in every answer.
"""

from __future__ import annotations

import importlib.util
import re
import threading
import unicodedata
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

from ._base import CriterionError

__all__ = [
    "BUILTIN_TOKENIZERS",
    "RougeTokenizer",
    "builtin_tokenizer",
    "default_tokens",
    "jieba_tokens",
    "unicode_tokens",
]

RougeTokenizer = Callable[[str], Sequence[str]]
"""A ROUGE tokenizer: text in, tokens out. It replaces the whole tokenization (no lowercasing or stemming added)."""

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
# bytes.translate table: ASCII letters and digits stay, every other byte becomes a space.
_ASCII_WORDS = bytes(b if chr(b).isascii() and chr(b).isalnum() else 0x20 for b in range(256))
_CACHE_LIMIT = 500_000

_lock = threading.Lock()
_stemmer: Any = None
_rouge_tokenize: Any = None


def _load() -> None:
    global _stemmer, _rouge_tokenize
    with _lock:
        if _rouge_tokenize is None:
            from rouge_score import tokenize

            _stemmer = _porter_module().PorterStemmer()
            _rouge_tokenize = tokenize.tokenize


def _porter_module() -> Any:
    """nltk's ``nltk.stem.porter`` module, the one rouge-score stems with.

    Importing it normally runs nltk's package ``__init__``, which imports most of nltk and numpy (~0.2 s, a large
    share of a short ``agentgauge eval``) although only this module is used. So unless nltk is already imported,
    the module is loaded under stand-in parent packages that only give it nltk's folders to import from. Everything
    loaded that way is then taken out of ``sys.modules`` again: a later ``import nltk`` (by an agent, or rouge-score's
    ROUGE-N/L scorer) imports the real package from scratch. The stemming code is nltk's own either way; any surprise
    falls back to the ordinary import.
    """
    import sys
    import types

    if "nltk" in sys.modules:
        from nltk.stem import porter

        return porter
    before = set(sys.modules)
    try:
        spec = importlib.util.find_spec("nltk")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("nltk is not installed")
        root = list(spec.submodule_search_locations)
        for name, path in (("nltk", root), ("nltk.stem", [f"{p}/stem" for p in root])):
            stand_in = types.ModuleType(name)
            stand_in.__path__ = path
            sys.modules[name] = stand_in
        module = importlib.import_module("nltk.stem.porter")
    except Exception:  # an nltk whose layout differs: import it the ordinary way
        module = None
    finally:
        for name in set(sys.modules) - before:
            if name == "nltk" or name.startswith("nltk."):
                del sys.modules[name]
    if module is None:
        from nltk.stem import porter

        return porter
    return module


class _WordCache(dict[str, tuple[str, ...]]):
    """rouge-score's tokenization of single ASCII words, computed on first lookup.

    Lookups go through ``dict.__getitem__`` (C speed for hits); ``__missing__`` tokenizes a new word.
    """

    def __init__(self, stem: bool) -> None:
        super().__init__()
        self.stem = stem

    def __missing__(self, word: str) -> tuple[str, ...]:
        if _rouge_tokenize is None:
            _load()
        tokens = tuple(_rouge_tokenize(word, _stemmer if self.stem else None))
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        self[word] = tokens
        return tokens


_CACHES = {True: _WordCache(True), False: _WordCache(False)}


def _is_cjk(code: int) -> bool:
    return 0x4E00 <= code <= 0x9FFF or 0x3040 <= code <= 0x309F or 0x30A0 <= code <= 0x30FF or 0xAC00 <= code <= 0xD7AF


def _is_non_spaced(code: int) -> bool:
    return 0x0E00 <= code <= 0x0E7F or 0x0E80 <= code <= 0x0EFF or 0x1780 <= code <= 0x17FF or 0x1000 <= code <= 0x109F


def _unicode_words(text: str) -> list[str]:
    out: list[str] = []
    append = out.append
    category = unicodedata.category
    for ch in text:
        code = ord(ch)
        if code < 0x80:
            append(ch if ch.isalnum() else " ")
        elif _is_cjk(code):
            append(" " + ch + " ")
        elif _is_non_spaced(code):
            # A combining mark stays on its base consonant; anything else starts a new cluster.
            append(ch if category(ch).startswith("M") else " " + ch)
        elif ch.isalnum() or category(ch).startswith("M"):
            append(ch)
        else:
            append(" ")
    return "".join(out).split()


def unicode_tokens(text: str, stem: bool = True) -> list[str]:
    """Google ADK's ``response_match_score`` tokenization (2.x ``_UnicodeAwareTokenizer``).

    NFKC + lowercase; CJK characters become single tokens; Thai/Lao/Khmer/Myanmar split into clusters of a base
    character and its combining marks; other word characters and combining marks are kept, everything else
    separates words. ASCII words go through rouge-score's tokenizer (stemmed when longer than 3 characters);
    non-ASCII words are kept whole and never stemmed.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    lookup = _CACHES[stem].__getitem__
    if text.isascii():
        words = text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
        return list(chain.from_iterable(map(lookup, words)))
    tokens: list[str] = []
    for word in _unicode_words(text):
        if word.isascii():
            tokens.extend(lookup(word))
        else:
            tokens.append(word)
    return tokens


def default_tokens(text: str, stem: bool = False) -> list[str]:
    """rouge-score's ``DefaultTokenizer``: lowercase, keep ``[a-z0-9]`` runs, optional Porter stemming."""
    words = _NON_ALNUM.sub(" ", text.lower()).split()
    return list(chain.from_iterable(map(_CACHES[stem].__getitem__, words)))


_jieba: Any = None


def _load_jieba() -> Any:
    global _jieba
    with _lock:
        if _jieba is None:
            import logging

            import jieba

            # jieba logs its dictionary loading to stderr at DEBUG level; keep that quiet while it loads.
            log = logging.getLogger("jieba")
            level = log.level
            log.setLevel(logging.WARNING)
            try:
                tokenizer = jieba.Tokenizer()
                tokenizer.initialize()
            finally:
                log.setLevel(level)
            _jieba = tokenizer
    return _jieba


def jieba_tokens(text: str) -> list[str]:
    """Chinese word segmentation with jieba (accurate mode, HMM on), as trpc-agent-go's ``jieba`` example tokenizer:
    each segment with surrounding whitespace removed, empty segments dropped. Needs ``agentgauge[jieba]``."""
    tokenizer = _jieba if _jieba is not None else _load_jieba()
    return [token for token in (segment.strip() for segment in tokenizer.cut(text, HMM=True)) if token]


def _check_jieba() -> None:
    if importlib.util.find_spec("jieba") is None:
        raise CriterionError("rouge tokenizerName 'jieba' needs the jieba package (pip install 'agentgauge[jieba]')")


BUILTIN_TOKENIZERS: dict[str, tuple[RougeTokenizer, Callable[[], None]]] = {"jieba": (jieba_tokens, _check_jieba)}
"""Tokenizers every registry knows by name: name -> (tokenizer, check that its optional package is installed)."""


def builtin_tokenizer(name: str) -> RougeTokenizer | None:
    """The built-in tokenizer ``name`` (``None`` if there is none); :class:`CriterionError` if its package is
    missing."""
    entry = BUILTIN_TOKENIZERS.get(name)
    if entry is None:
        return None
    tokenize, check = entry
    check()
    return tokenize
