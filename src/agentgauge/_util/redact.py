"""Masking of secret values (API keys) in everything agentgauge writes or prints.

The lowest layer of the package: it imports nothing from agentgauge, so any module (storage, judges, CLI) can
use it. Keys are registered where they come into force (a judge endpoint is resolved, an OpenAI agent reads its
key variable); :func:`redact` and :func:`redact_bytes` then replace every registered value, and its JSON/HTML
escaped spellings, with ``***``.

Values shorter than :data:`MIN_SECRET_LENGTH` characters are never registered: masking a short string such as
``"test"`` would corrupt ordinary text, and no real API key is that short. With nothing registered both functions
return their argument unchanged after one truth test, so hot paths pay nothing.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO

__all__ = [
    "MASK",
    "MIN_SECRET_LENGTH",
    "RedactingStream",
    "clear_secrets",
    "mask_standard_streams",
    "redact",
    "redact_bytes",
    "register_secret",
    "registered_secrets",
]

MASK = "***"
"""What a secret value is replaced with."""

MIN_SECRET_LENGTH = 8
"""Values shorter than this are not treated as secrets (they would mask ordinary words)."""

_lock = threading.Lock()
_values: set[str] = set()
# Every spelling to replace, longest first so a secret containing another is masked whole. Rebuilt on
# registration (rare) and read without the lock (a tuple is replaced atomically).
_text_forms: tuple[str, ...] = ()
_byte_forms: tuple[bytes, ...] = ()


def _spellings(value: str) -> set[str]:
    """The value as written raw, inside a JSON string (ASCII-escaped or not) and in HTML/XML text."""
    import html  # here: importing it loads the table of HTML entities (~2 ms), and secrets are registered rarely

    forms = {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1], html.escape(value)}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def register_secret(value: str | None) -> bool:
    """Mask ``value`` (stripped) in every later output; returns whether it was registered.

    Empty values and values shorter than :data:`MIN_SECRET_LENGTH` are ignored.
    """
    global _text_forms, _byte_forms
    if not value:
        return False
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH:
        return False
    with _lock:
        if value in _values:
            return True
        _values.add(value)
        forms = sorted({form for v in _values for form in _spellings(v)}, key=lambda f: (-len(f), f))
        _text_forms = tuple(forms)
        _byte_forms = tuple(dict.fromkeys(form.encode("utf-8") for form in forms))
    return True


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by :data:`MASK` (``text`` itself when none occurs)."""
    forms = _text_forms
    if not forms or not text:
        return text
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    return text


def redact_bytes(data: bytes) -> bytes:
    """:func:`redact` for UTF-8 encoded ``data``."""
    forms = _byte_forms
    if not forms or not data:
        return data
    mask = MASK.encode()
    for form in forms:
        if form in data:
            data = data.replace(form, mask)
    return data


def registered_secrets() -> frozenset[str]:
    """The registered values (for tests and diagnostics; never print them)."""
    with _lock:
        return frozenset(_values)


def clear_secrets() -> None:
    """Forget every registered value (tests use this to isolate runs)."""
    global _text_forms, _byte_forms
    with _lock:
        _values.clear()
        _text_forms = ()
        _byte_forms = ()


class RedactingStream:
    """A text stream that masks registered secrets in what is written and passes everything else through.

    Attributes other than ``write``/``writelines`` (``isatty``, ``fileno``, ``encoding``, ``flush``, ...) are
    those of the wrapped stream, so terminal detection and encodings are unchanged.
    """

    def __init__(self, stream: TextIO) -> None:
        self.wrapped = stream

    def write(self, text: Any) -> int:
        """Write ``text`` with secrets masked (non-text is passed through for the wrapped stream to judge)."""
        if isinstance(text, str):
            self.wrapped.write(redact(text))
            return len(text)  # callers account for what they handed over
        return int(self.wrapped.write(text))

    def writelines(self, lines: Any) -> None:
        """Write every line with secrets masked."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


def mask_standard_streams() -> None:
    """Route ``sys.stdout`` and ``sys.stderr`` through :class:`RedactingStream` (idempotent).

    The command line calls this before a command that may hold keys, so progress lines, summaries, warnings and
    error lines never show a registered secret, whoever prints them.
    """
    if not isinstance(sys.stdout, RedactingStream) and sys.stdout is not None:
        sys.stdout = RedactingStream(sys.stdout)
    if not isinstance(sys.stderr, RedactingStream) and sys.stderr is not None:
        sys.stderr = RedactingStream(sys.stderr)
