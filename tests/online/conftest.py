"""Fixtures of the online-evaluation tests (the helpers are in ``_online``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the _online helpers

from _online import Collector


@pytest.fixture
def collector() -> Iterator[Collector]:
    """A collector-like loopback server recording what is posted to it."""
    server = Collector()
    yield server
    server.stop()
