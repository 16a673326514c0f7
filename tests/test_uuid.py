"""Random ids: valid version-4 UUIDs, unique, and not repeated by a forked child."""

from __future__ import annotations

import multiprocessing
import os

import pytest

from agentgauge._util.uuids import uuid4, uuid4_hex


def test_ids_are_version_4_and_unique() -> None:
    ids = [uuid4() for _ in range(10_000)]
    assert all(i.version == 4 and i.variant == "specified in RFC 4122" for i in ids)
    assert len(set(ids)) == len(ids)
    assert len(uuid4_hex()) == 32


def _child_id(queue: multiprocessing.Queue[str]) -> None:
    queue.put(str(uuid4()))


@pytest.mark.skipif(not hasattr(os, "register_at_fork"), reason="needs fork")
def test_a_forked_child_does_not_repeat_the_parent() -> None:
    context = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[str] = context.Queue()
    child = context.Process(target=_child_id, args=(queue,))
    child.start()
    child_id = queue.get(timeout=30)
    child.join(timeout=30)
    assert child_id != str(uuid4())
