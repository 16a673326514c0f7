from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# The scripted chat-completions server lives with the judge-client tests; load it by path under its own name.
_PATH = Path(__file__).resolve().parents[2] / "judges" / "chat_server.py"
if "chat_server" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("chat_server", _PATH)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["chat_server"] = _module
    _spec.loader.exec_module(_module)

from chat_server import ChatServer  # noqa: E402

from agentgauge._redact import clear_secrets  # noqa: E402


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _forget_secrets() -> Iterator[None]:
    # Keys registered by one test must not mask another test's output.
    yield
    clear_secrets()
