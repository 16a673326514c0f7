from __future__ import annotations

from collections.abc import Iterator

import pytest

from agentgauge._util.redact import clear_secrets


@pytest.fixture(autouse=True)
def _forget_secrets() -> Iterator[None]:
    # Keys registered by one test must not mask another test's output.
    yield
    clear_secrets()
