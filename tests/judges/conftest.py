from __future__ import annotations

from collections.abc import Iterator

import pytest
from chat_server import ChatServer

from agentgauge._redact import clear_secrets


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
