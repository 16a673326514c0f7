"""Random ids (UUID version 4) without a system call per id.

:func:`uuid.uuid4` reads 16 bytes from ``os.urandom`` for every id; where that system call is slow (sandboxed
kernels: ~0.1 ms) a run of a few hundred cases spends tens of milliseconds on session and invocation ids alone. These
ids only need to be unique, not unpredictable, so they come from a per-process generator seeded once from
``os.urandom`` (and reseeded in a forked child, which would otherwise repeat its parent's ids).
"""

from __future__ import annotations

import os
import random
import uuid

__all__ = ["uuid4", "uuid4_hex"]

_generator = random.Random(os.urandom(32))


def _reseed() -> None:
    _generator.seed(os.urandom(32))


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reseed)


def uuid4() -> uuid.UUID:
    """A random version-4 UUID."""
    return uuid.UUID(int=_generator.getrandbits(128), version=4)


def uuid4_hex() -> str:
    """:func:`uuid4` as 32 hexadecimal digits."""
    return uuid4().hex
