"""Secret masking: registered values (API keys) are replaced in text, bytes and standard streams."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentgauge._util import redact as _redact
from agentgauge._util.redact import (
    MASK,
    RedactingStream,
    clear_secrets,
    redact,
    redact_bytes,
    register_secret,
    registered_secrets,
)
from agentgauge.judges import JudgeEndpoint
from agentgauge.judges._endpoint import NO_KEY_PLACEHOLDER
from agentgauge.storage import atomic_write

KEY = "sk-proj-Abc123<&>'\"x9"


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    clear_secrets()
    yield
    clear_secrets()


def test_nothing_registered_returns_the_same_objects() -> None:
    text, data = "a" * 1000, b"b" * 1000
    assert redact(text) is text and redact_bytes(data) is data


def test_short_and_empty_values_are_never_registered_secrets() -> None:
    assert not register_secret("")
    assert not register_secret(None)
    assert not register_secret("  test  ")
    assert not register_secret("1234567")  # shorter than MIN_SECRET_LENGTH
    assert registered_secrets() == frozenset()
    assert redact("test 1234567") == "test 1234567"
    assert register_secret(" 12345678 ")  # stripped, 8 characters
    assert redact("key=12345678.") == f"key={MASK}."


def test_every_spelling_is_masked_in_text_and_bytes() -> None:
    register_secret(KEY)
    as_json = json.dumps({"k": KEY})
    as_html = "<td>sk-proj-Abc123&lt;&amp;&gt;&#x27;&quot;x9</td>"
    for text in (f"raw {KEY} raw", as_json, json.dumps({"k": KEY + "é"}, ensure_ascii=True), as_html):
        masked = redact(text)
        assert "Abc123" not in masked and MASK in masked, masked
        assert b"Abc123" not in redact_bytes(text.encode())


def test_a_secret_containing_another_is_masked_whole() -> None:
    register_secret("sk-short-123")
    register_secret("sk-short-123-and-longer")
    assert redact("x sk-short-123-and-longer y sk-short-123") == f"x {MASK} y {MASK}"


def test_endpoints_register_their_key_but_not_the_placeholder() -> None:
    JudgeEndpoint.resolve(model="m", provider="openai", base_url="http://127.0.0.1:1/v1", api_key=KEY, env={})
    assert KEY in registered_secrets()
    JudgeEndpoint.resolve(model="m", provider="ollama", env={})
    assert NO_KEY_PLACEHOLDER not in registered_secrets()
    JudgeEndpoint.resolve(model="m", provider="deepseek", env={"DEEPSEEK_API_KEY": "sk-from-the-environment"})
    assert "sk-from-the-environment" in registered_secrets()


def test_atomic_write_never_puts_a_secret_on_disk(tmp_path: Path) -> None:
    register_secret(KEY)
    atomic_write(tmp_path / "out.json", json.dumps({"echo": KEY}).encode())
    assert json.loads((tmp_path / "out.json").read_text()) == {"echo": MASK}


def test_redacting_stream_masks_writes_and_delegates_the_rest() -> None:
    register_secret(KEY)
    buffer = io.StringIO()
    stream = RedactingStream(buffer)
    assert stream.write(f"key {KEY}\n") == len(f"key {KEY}\n")
    stream.writelines([KEY, "\n"])
    assert buffer.getvalue() == f"key {MASK}\n{MASK}\n"
    assert stream.isatty() is False and stream.getvalue() == buffer.getvalue()


def test_mask_standard_streams_is_idempotent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setattr(sys, "stdout", io.StringIO())
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    _redact.mask_standard_streams()
    first = sys.stdout
    _redact.mask_standard_streams()
    assert sys.stdout is first and isinstance(first, RedactingStream)
    assert isinstance(sys.stderr, RedactingStream)
    register_secret(KEY)
    print(f"the key is {KEY}")
    assert first.wrapped.getvalue() == f"the key is {MASK}\n"
