"""Fixtures shared by several test folders: the scripted chat-completions server of ``tests/judges``."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check behaviour, not speed: no per-example deadline (a loaded machine took 200 ms+ for one example).
settings.register_profile("agentgauge", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("agentgauge")

# The server module lives with the judge-client tests; load it by path under its own name, so test modules of any
# folder can ``from chat_server import ...``.
_PATH = Path(__file__).resolve().parent / "judges" / "chat_server.py"
if "chat_server" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("chat_server", _PATH)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["chat_server"] = _module
    _spec.loader.exec_module(_module)

from chat_server import ChatServer  # noqa: E402


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A running scripted chat-completions server, stopped after the test."""
    server = ChatServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _not_in_github_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run by tests never annotate or summarise the job running the suite (tests that check the GitHub
    Actions output set these variables themselves)."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
